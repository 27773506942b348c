package prompt

import (
	"fmt"
	"strings"

	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning"
)

// What changes with everyday edits (checkbox states, progress, dates, the
// newest decisions) is kept out of the cached prefix: the stable tier shows
// the project brief without its checkbox states, the semi tier's state
// snapshot lists decisions only in whole chunks, and the states, counts and
// dates go to the recitation's status part, after the conversation
// (docs/architecture.md#what-changes-often-goes-last).

// decisionChunk is how many decisions the state snapshot adds at once: it
// lists the decisions up to the last multiple of decisionChunk, so it
// changes once every decisionChunk decisions (chunkedDecisions).
const decisionChunk = 4

// chunkedDecisions returns how many of n decisions (oldest first) the state
// snapshot lists: n rounded down to a multiple of decisionChunk. The
// decisions after them are fewer than decisionChunk, and so among the 3
// newest the recitation recites (decisionChunk-1 == 3).
func chunkedDecisions(n int) int { return n - n%decisionChunk }

// stableBrief is the brief's body with every checkbox's state marker
// ("[ ] ", "[x] ") removed, so ticking a requirement leaves the stable tier
// as it was; the states are recited (briefStates).
func stableBrief(doc *markdown.Document) string {
	if len(doc.Checkboxes) == 0 {
		return doc.Body
	}
	lines := strings.Split(doc.Body, "\n")
	for _, cb := range doc.Checkboxes {
		i := cb.Line - doc.BodyLine
		if i < 0 || i >= len(lines) {
			continue
		}
		marker := "[" + string(cb.State) + "] "
		if j := strings.Index(lines[i], marker); j >= 0 {
			lines[i] = lines[i][:j] + lines[i][j+len(marker):]
		}
	}
	return strings.Join(lines, "\n")
}

// briefStates is the recited line of the brief's checkbox states: how many
// are checked and the checked items' text, or "" when it has none.
func briefStates(proj *planning.Project) string {
	if proj.Brief == nil || proj.Brief.Markdown == nil || len(proj.Brief.Markdown.Checkboxes) == 0 {
		return ""
	}
	cbs := proj.Brief.Markdown.Checkboxes
	var done []string
	for _, cb := range cbs {
		if cb.State == 'x' || cb.State == 'X' {
			done = append(done, cb.Text)
		}
	}
	line := fmt.Sprintf("%s: %d of %d checked", proj.Brief.Path, len(done), len(cbs))
	if len(done) > 0 {
		line += " (" + strings.Join(done, "; ") + ")"
	}
	return line
}

// progressLine is the recited progress: phases complete and plans with a
// summary (counted on disk), and the plans the roadmap ticks; "" without
// phases.
func progressLine(proj *planning.Project) string {
	if len(proj.Phases) == 0 {
		return ""
	}
	done, plans, plansDone := 0, 0, 0
	ids := map[string]bool{}
	for _, ph := range proj.Phases {
		if ph.Status == "complete" {
			done++
		}
		plans += len(ph.Plans)
		plansDone += ph.PlansDone()
		for _, pl := range ph.Plans {
			ids[pl.ID] = true
		}
	}
	line := fmt.Sprintf("%d of %d phases complete; %d of %d plans have a summary", done, len(proj.Phases), plansDone, plans)
	if ticked, listed := roadmapPlanTicks(proj, ids); listed > 0 {
		line += fmt.Sprintf("; %d of %d ticked in %s", ticked, listed, proj.Roadmap.Path)
	}
	return line
}

// roadmapPlanTicks counts the roadmap's checkboxes that name a plan of ids
// ("- [x] 02-01: …") and how many of them are checked.
func roadmapPlanTicks(proj *planning.Project, ids map[string]bool) (ticked, listed int) {
	if proj.Roadmap == nil || proj.Roadmap.Markdown == nil {
		return 0, 0
	}
	for _, cb := range proj.Roadmap.Markdown.Checkboxes {
		id, _, _ := strings.Cut(cb.Text, ":")
		if !ids[strings.TrimSpace(id)] {
			continue
		}
		listed++
		if cb.State == 'x' || cb.State == 'X' {
			ticked++
		}
	}
	return ticked, listed
}

// statusLines are the recitation's status part: the last activity, the
// progress and the brief's checkbox states, each skipped when unknown.
func statusLines(proj *planning.Project) []string {
	var out []string
	if st := proj.State; st != nil && st.LastActivity != "" {
		out = append(out, "Last activity: "+st.LastActivity)
	}
	for _, l := range []string{progressLine(proj), briefStates(proj)} {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

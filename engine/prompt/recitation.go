package prompt

import (
	"fmt"
	"strings"
)

// Recitation part budgets in lines, each including the part's heading line
// (current_task ≤ 6, progress ≤ 8, approach ≤ 5, decisions
// ≤ 5 of the last 3, blockers ≤ 3, health ≤ 4, status ≤ 4; at most 30
// lines in all).
const (
	RecitationMaxLines = 30
	recTaskLines       = 6
	recProgressLines   = 8
	recApproachLines   = 5
	recDecisionLines   = 5
	recBlockerLines    = 3
	recHealthLines     = 4
	recStatusLines     = 4
	// RecitationWidth is the longest line in runes; a longer line is cut
	// at a sentence or word boundary and ends in "⟨+N chars⟩" (cutText).
	RecitationWidth = 160
	// RecitationGoalWidth is the longest goal line in runes: a phase goal
	// is one sentence that roadmaps often wrap over two lines, and it is
	// recited whole (docs/formats.md#fields); only a goal longer
	// than this is cut, as other lines are.
	RecitationGoalWidth = 480
)

// RecitationInput is what the recitation block restates.
type RecitationInput struct {
	// Task lines: the position ("Phase 2 of 4: Sync engine"), the plan, the
	// next task and the files it names. Empty strings are skipped.
	Phase, Plan, Next string
	Files             []string
	// Goal is the current phase's goal, recited whole after the phase
	// line (up to RecitationGoalWidth runes); "" leaves the line out.
	Goal string
	// Tasks are the current plan's tasks in order.
	Tasks []TaskLine
	// Approach is the current approach and what was tried last, newest
	// first.
	Approach []string
	// Decisions are the recorded decisions, oldest first; the last 3 are
	// recited.
	Decisions []string
	// Blockers are the open blockers, most important first.
	Blockers []string
	// Health lines (state, circuit breaker, counters), at most 3 are shown.
	Health []string
	// Status lines (the last activity, the progress counts, the brief's
	// checkbox states) change with everyday edits: they are the last part,
	// so such an edit changes only the end of the prompt. None: no part.
	Status []string
	// Difficulty is the task's routing tier (SIMPLE, MODERATE, COMPLEX),
	// shown in the task part's heading; "" leaves it out.
	Difficulty string
}

// TaskLine is one task of the current plan.
type TaskLine struct {
	Text    string
	Done    bool
	Current bool
}

// Recite renders the recitation block in recite's one
// canonical format: at most 30 lines of `### Part` headings and bullets,
// widths counted in runes, and no `---` fence lines (which would read as
// YAML front matter at the top of a file). When the parts would exceed
// their budgets, completed tasks collapse to "X/Y tasks complete" and only
// the 2 most recent decisions are kept.
func Recite(in RecitationInput) string {
	task := []string{"### Task"}
	if in.Difficulty != "" {
		task[0] += " (difficulty: " + in.Difficulty + ")"
	}
	if in.Phase != "" {
		task = append(task, "- "+in.Phase)
	}
	goalLine := ""
	if g := strings.Join(strings.Fields(in.Goal), " "); g != "" {
		goalLine = "- Goal: " + g
		task = append(task, goalLine)
	}
	if in.Plan != "" {
		task = append(task, "- "+in.Plan)
	}
	if in.Next != "" {
		task = append(task, "- Next: "+in.Next)
	} else {
		task = append(task, "- Next: no open task in the current plan")
	}
	if len(in.Files) > 0 {
		task = append(task, "- Files: "+strings.Join(in.Files, ", "))
	}

	progress := progressPart(in.Tasks, false)
	decisions := lastN(in.Decisions, 3)
	over := len(progress) > recProgressLines
	if over {
		progress = progressPart(in.Tasks, true)
	}
	total := len(task) + len(progress) + partLen(in.Approach, recApproachLines) +
		1 + len(decisions) + partLen(in.Blockers, recBlockerLines) + partLen(in.Health, recHealthLines) +
		min(len(in.Status)+1, recStatusLines)*min(len(in.Status), 1)
	if total > RecitationMaxLines || over {
		decisions = lastN(in.Decisions, 2)
	}

	var parts [][]string
	parts = append(parts, capLines(task, recTaskLines))
	parts = append(parts, capLines(progress, recProgressLines))
	parts = append(parts, capLines(bullets("### Approach", in.Approach, "no approach recorded"), recApproachLines))
	parts = append(parts, capLines(bullets("### Decisions", decisions, "none recorded"), recDecisionLines))
	parts = append(parts, capLines(bullets("### Blockers", in.Blockers, "none open"), recBlockerLines))
	parts = append(parts, capLines(bullets("### Health", in.Health, "no loop iterations recorded"), recHealthLines))
	if len(in.Status) > 0 {
		parts = append(parts, capLines(bullets("### Status", in.Status, ""), recStatusLines))
	}

	var b strings.Builder
	n := 0
	for _, p := range parts {
		for _, l := range p {
			if n == RecitationMaxLines {
				break
			}
			if n > 0 {
				b.WriteByte('\n')
			}
			width := RecitationWidth
			if l == goalLine && goalLine != "" {
				width = RecitationGoalWidth
			}
			b.WriteString(cutText(l, width))
			n++
		}
	}
	return b.String()
}

func progressPart(tasks []TaskLine, collapse bool) []string {
	out := []string{"### Progress"}
	if len(tasks) == 0 {
		return append(out, "- no tasks in the current plan")
	}
	done := 0
	for _, t := range tasks {
		if t.Done {
			done++
		}
	}
	if collapse {
		out = append(out, fmt.Sprintf("- %d/%d tasks complete", done, len(tasks)))
	}
	for _, t := range tasks {
		if collapse && t.Done {
			continue
		}
		box := "[ ]"
		if t.Done {
			box = "[x]"
		}
		line := "- " + box + " " + t.Text
		if t.Current {
			line += " ← CURRENT"
		}
		out = append(out, line)
	}
	return out
}

func partLen(items []string, max int) int {
	n := 1 + len(items)
	if len(items) == 0 {
		n = 2
	}
	if n > max {
		n = max
	}
	return n
}

func bullets(heading string, items []string, none string) []string {
	out := []string{heading}
	if len(items) == 0 {
		return append(out, "- "+none)
	}
	for _, it := range items {
		out = append(out, "- "+it)
	}
	return out
}

// capLines keeps at most max lines; when lines are dropped the last kept
// line says how many more there were.
func capLines(lines []string, max int) []string {
	if len(lines) <= max {
		return lines
	}
	kept := append([]string{}, lines[:max-1]...)
	return append(kept, fmt.Sprintf("- … and %d more", len(lines)-(max-1)))
}

func lastN(s []string, n int) []string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

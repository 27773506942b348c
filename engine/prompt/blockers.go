package prompt

import (
	"cmp"
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode"

	"github.com/recite-dev/recite/planning"
)

// A blocker written in STATE.md (or BLOCKERS.md, HANDOFF.json) also reaches
// the prompt as a BLOCKED stop signal: the preservation block carries the
// planning tree's blockers, and an agent may quote one. The state section
// and the recitation show such a blocker once, with both sources
// (docs/formats.md#blockers).

// plannedBlocker is an open blocker of the planning tree and whether a stop
// signal of the prompt says the same.
type plannedBlocker struct {
	planning.Blocker
	signal bool
}

// blockerMarkRe is what a stop-signal line adds around a blocker's text:
// the BLOCKED mark or a blocker id before it, a "(source)" after it.
var (
	blockerLeadRe  = regexp.MustCompile(`^(?:BLOCKED\s*[:—–-]?\s*|[A-Z][A-Z0-9]*-\d+\s*(?:\[P[0-3][^\]]*\])?\s*[:—–-]?\s*)+`)
	blockerTrailRe = regexp.MustCompile(`\s*\([^()]*(?:\.md|\.json)(?::\d+)?\)\s*$`)
)

// blockerKey is a blocker text reduced for comparison: the BLOCKED mark,
// ids and a trailing "(file:line)" removed, markup dropped, letters and
// digits only, lower case.
func blockerKey(s string) string {
	s = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(s), "-*> "))
	s = blockerLeadRe.ReplaceAllString(s, "")
	s = blockerTrailRe.ReplaceAllString(s, "")
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// sameBlocker reports whether a stop-signal line says what a blocker of
// the planning tree says: one reduced text holds the other, the shorter
// being at least 12 letters or digits long (a word or two in common is
// not the same blocker).
func sameBlocker(signal, title string) bool {
	a, b := blockerKey(signal), blockerKey(title)
	if len(a) > len(b) {
		a, b = b, a
	}
	return len(a) >= 12 && strings.Contains(b, a)
}

// blockerList is the one list of open blockers the state section and the
// recitation show: the planning tree's open blockers (openBlockers), each
// marked when a BLOCKED stop signal of the prompt says the same, and the
// other BLOCKED stop signals (signalBlockers).
func blockerList(proj *planning.Project, in Input) ([]plannedBlocker, []string) {
	var planned []plannedBlocker
	for _, bl := range openBlockers(proj) {
		planned = append(planned, plannedBlocker{Blocker: bl})
	}
	var extra []string
next:
	for _, l := range signalBlockers(in, blockerIDs(proj)) {
		for i := range planned {
			if sameBlocker(l, planned[i].Title) {
				planned[i].signal = true
				continue next
			}
		}
		extra = append(extra, l)
	}
	return planned, extra
}

// noPhaseLine is the recitation's position when there is no current
// phase: why, when the state file says the milestone is over or not
// started (docs/formats.md#finished-milestones).
func noPhaseLine(proj *planning.Project) string {
	m := proj.Milestone
	name := strings.TrimSpace(m.Version + " " + m.Name)
	if name != "" {
		name += " "
	}
	from := path.Base(sourcePath(m.Source))
	switch m.Status {
	case planning.MilestoneComplete:
		return "No current phase: milestone " + name + "is complete (" + m.Reason + "; " + from + ")"
	case planning.MilestoneNotStarted:
		return "No current phase: milestone " + name + "has not started (" + m.Reason + "; " + from + ")"
	}
	return "No current phase"
}

// treeNextStep fills what the planning tree itself says comes next when
// the current plan has no open task: its next action (HANDOFF.json,
// STATE.md's next_action, the next milestone), with the file it comes
// from, and HANDOFF.json's open tasks as the progress
// (docs/formats.md#handoff-json).
func treeNextStep(proj *planning.Project, r *RecitationInput) {
	if r.Next == "" && proj.NextAction != nil {
		r.Next = proj.NextAction.Text + " (" + path.Base(sourcePath(proj.NextAction.Source)) + ")"
	}
	if len(r.Tasks) > 0 || proj.Handoff == nil {
		return
	}
	for i, t := range proj.Handoff.OpenTasks() {
		text := t.Name
		if t.Status != "" && t.Status != "not_started" {
			text += " (" + t.Status + ")"
		}
		r.Tasks = append(r.Tasks, TaskLine{Text: text + " — " + path.Base(proj.Handoff.Path), Current: i == 0})
	}
}

// treeStateLines are the state section's lines about the workstream, a
// finished milestone, the next step the tree recommends and HANDOFF.json,
// each with its file.
func treeStateLines(proj *planning.Project, src func(string) string) []string {
	var out []string
	if ws := proj.Workstream; ws != nil {
		out = append(out, "Workstream: "+ws.Name+" ("+ws.Source+")")
	}
	if proj.CurrentPhase == nil {
		if l := noPhaseLine(proj); l != "No current phase" {
			out = append(out, l)
		}
	}
	if a := proj.NextAction; a != nil && proj.NextTask == nil {
		out = append(out, "Next step: "+a.Text+" ("+src(sourcePath(a.Source))+")")
	}
	if h := proj.Handoff; h != nil && (h.NextAction != "" || h.Phase != "" || len(h.OpenTasks()) > 0) {
		l := "Handoff: " + cmp.Or(h.Status, "written")
		if h.Timestamp != "" {
			l += " at " + h.Timestamp
		}
		if n := len(h.OpenTasks()); n > 0 {
			l += fmt.Sprintf(", %d open %s", n, plural(n, "task", "tasks"))
		}
		out = append(out, l+" ("+src(h.Path)+")")
	}
	return out
}

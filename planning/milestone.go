package planning

import (
	"regexp"
	"strings"
)

// milestoneDoneRe recognises a state file's Phase or Status value that says
// the milestone as a whole is finished, as real STATE.md files of 2026
// write it: "Milestone Closeout", "milestone closeout complete",
// "milestone closeout (v1.2)", "v1.0 milestone complete, archived",
// "milestone_completed", "None (between milestones)", "— all phases
// complete", "v1.2 archived and tagged; awaiting next milestone"
// (docs/formats.md#finished-milestones). It runs on the value with '_'
// and '-' made spaces.
var milestoneDoneRe = regexp.MustCompile(`(?i)\bmilestones?\b[^.;]*?\b(closeout|close out|closed|complete|completed|done|shipped|archived)\b|\b(archived|shipped)\b[^.;]*\bmilestone\b|\bbetween milestones\b|\ball phases (are )?(complete|completed|done)\b`)

// notStartedRe is a Phase value that says no phase of the milestone has
// started ("Not started", "Not started (defining requirements)").
var notStartedRe = regexp.MustCompile(`(?i)^not\s+(yet\s+)?started\b`)

// readyToCloseRe is a value that says the milestone waits for GSD's
// complete-milestone step ("Ready To Complete Milestone", "Ready for
// `$gsd-complete-milestone v1.2`").
var readyToCloseRe = regexp.MustCompile(`(?i)\bready\s+(to|for)\b[^.;]*\bcomplete[\s-]*milestone\b|\bcomplete-milestone\b|\bclose\s*out\s+pending\b|\barchive pending\b`)

// milestoneOf says what the state file and the roadmap tell of the
// milestone (docs/formats.md#finished-milestones):
//
//   - complete when the state's Phase or Status says so (milestoneDoneRe),
//     or when the roadmap declares phases, every one of them is complete,
//     deferred or archived, and the state names no phase or says completed;
//   - not_started when the state's Phase says "Not started" and every
//     roadmap phase is done (a new milestone without phases yet);
//   - active otherwise.
func milestoneOf(p *Project) Milestone {
	var m Milestone
	st := p.State
	if st != nil {
		m.Version, m.Name = st.Milestone, st.MilestoneName
	}
	if st == nil && p.Roadmap == nil {
		return m
	}
	m.Status = MilestoneActive
	spaced := func(s string) string { return strings.NewReplacer("_", " ", "-", " ").Replace(stripInline(s)) }
	if st != nil && st.ActivePhase == "" {
		// A value naming a phase ("4 — Milestone archive UI") is about that
		// phase; the status counts only while the named phase, if any, is
		// done.
		named := p.phase(statePhaseNumber(st.Phase))
		openPhase := statePhaseNumber(st.Phase) != "" && (named == nil || named.Status != StatusComplete)
		statusLine := st.Line
		if l := metaKeyLine(st.Markdown, "status"); l > 0 {
			statusLine = l
		}
		if statePhaseNumber(st.Phase) == "" && st.Phase != "" && milestoneDoneRe.MatchString(spaced(st.Phase)) {
			m.Status, m.Reason, m.Source = MilestoneComplete, "Phase: "+firstTextLine(st.Phase), srcRef(st.Path, st.PhaseLine)
			return m
		}
		if !openPhase && st.RawStatus != "" && milestoneDoneRe.MatchString(spaced(st.RawStatus)) {
			m.Status, m.Reason, m.Source = MilestoneComplete, "Status: "+firstTextLine(st.RawStatus), srcRef(st.Path, statusLine)
			return m
		}
	}
	declared, done := 0, 0
	for _, ph := range p.Phases {
		if ph.OnlyOnDisk {
			continue
		}
		declared++
		if ph.Status == StatusComplete || ph.Status == StatusDeferred || ph.Archived {
			done++
		}
	}
	if declared == 0 || done < declared {
		return m
	}
	roadmap := ""
	if p.Roadmap != nil {
		roadmap = p.Roadmap.Path
	}
	switch {
	case st == nil:
		m.Status, m.Reason, m.Source = MilestoneComplete, "every roadmap phase is complete", roadmap
	case st.ActivePhase != "":
	case notStartedRe.MatchString(stripInline(st.Phase)):
		m.Status, m.Reason, m.Source = MilestoneNotStarted, "Phase: "+firstTextLine(st.Phase)+", and every roadmap phase is complete", srcRef(st.Path, st.PhaseLine)
	case statePhaseNumber(st.Phase) == "" || st.Status == "completed":
		m.Status, m.Reason, m.Source = MilestoneComplete, "every roadmap phase is complete", roadmap
	}
	return m
}

// nextMilestoneStep is the next step after a finished milestone: GSD's
// complete-milestone when the state says it is pending, else
// new-milestone (GSD's commands/gsd/complete-milestone.md and
// new-milestone.md).
func nextMilestoneStep(p *Project) string {
	if st := p.State; st != nil && (readyToCloseRe.MatchString(st.RawStatus) || readyToCloseRe.MatchString(st.Phase)) {
		return "complete the milestone (/gsd-complete-milestone), then plan the next one (/gsd-new-milestone)"
	}
	return "plan the next milestone (/gsd-new-milestone)"
}

// firstTextLine is the first line of s, trimmed.
func firstTextLine(s string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(first)
}

package claudecode

import (
	"github.com/recite-dev/recite/engine/internal/textutil"
	"github.com/recite-dev/recite/planning"
)

// Position is the current phase and plan of proj, for a status summary,
// names cut to StatusNameMax characters; nil for what the project has not.
func Position(proj *planning.Project) (*StatusPhase, *StatusPlan) {
	short := func(s string) string {
		if r := []rune(s); len(r) > StatusNameMax {
			return string(r[:StatusNameMax-1]) + "…"
		}
		return s
	}
	var sp *StatusPhase
	if ph := proj.CurrentPhase; ph != nil {
		sp = &StatusPhase{Number: ph.Number, Of: len(proj.Phases), Name: short(textutil.FirstLine(ph.Name)), Status: ph.Status, PlansDone: ph.PlansDone(), Plans: len(ph.Plans)}
		if proj.State != nil && proj.State.Status != "" {
			sp.Status = proj.State.Status
		}
	}
	var pl *StatusPlan
	if p := proj.CurrentPlan; p != nil {
		pl = &StatusPlan{ID: short(p.ID), Tasks: len(p.Tasks)}
		for _, t := range p.Tasks {
			if t.State == "done" {
				pl.TasksDone++
			}
		}
	}
	return sp, pl
}

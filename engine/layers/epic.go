package layers

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/recite-dev/recite/engine/compress"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// conversationPhase is the phase the conversation names (meta phase, by
// number, directory or name), else the project's current phase.
func conversationPhase(c *conversation.Conversation, proj *planning.Project) *planning.Phase {
	if want := strings.TrimSpace(c.Meta.Phase); want != "" {
		norm := func(s string) string { return strings.TrimLeft(s, "0") }
		for _, ph := range proj.Phases {
			if norm(ph.Number) == norm(want) || strings.EqualFold(ph.Name, want) || (ph.Dir != "" && filepath.Base(ph.Dir) == want) {
				return ph
			}
		}
	}
	return proj.CurrentPhase
}

var (
	successRE  = regexp.MustCompile(`(?i)success criteria`)
	criteriaRE = regexp.MustCompile(`^\s*(?:[-*+]|\d+[.)])\s+(.*)$`)
)

// successCriteria reads the "Success Criteria" list of a phase's entry in
// the roadmap.
func successCriteria(proj *planning.Project, ph *planning.Phase) []string {
	if proj.Roadmap == nil || proj.Roadmap.Markdown == nil {
		return nil
	}
	md := proj.Roadmap.Markdown
	i := md.FindSectionPrefix("Phase " + ph.Number + ":")
	if i < 0 {
		i = md.FindSection("Phase " + ph.Number)
	}
	if i < 0 {
		return nil
	}
	var out []string
	in := false
	for _, l := range strings.Split(md.SectionText(i), "\n") {
		if !in {
			in = successRE.MatchString(l)
			continue
		}
		if m := criteriaRE.FindStringSubmatch(l); m != nil {
			out = append(out, strings.TrimSpace(m[1]))
			continue
		}
		if strings.TrimSpace(l) != "" {
			break
		}
	}
	return out
}

// Epic is the epic and phase layer: the conversation's epic, the
// phase and its goal, the roadmap's success criteria, the plan, the
// planned deliverables (the plan's files_modified and the conversation's
// declared deliverables) and the acceptance criteria (the plan's
// must_haves truths and its tasks' done criteria). The files iterations
// modified are in the loop layer: the epic layer sits before the
// conversation, and a list that grows with every new file would re-send
// the whole conversation uncached each time.
func Epic(c *conversation.Conversation, proj *planning.Project) prompt.Section {
	s := prompt.Section{ID: prompt.IDEpic, Heading: "Epic and phase"}
	var b strings.Builder
	if c.Meta.Epic != "" {
		b.WriteString("Epic: " + c.Meta.Epic + "\n")
	}
	ph := conversationPhase(c, proj)
	var pl *planning.Plan
	if ph != nil {
		line := "Phase " + ph.Number
		if ph.Name != "" {
			line += ": " + ph.Name
		}
		b.WriteString(line + "\n")
		if ph.Goal != "" {
			b.WriteString("Goal: " + ph.Goal + "\n")
		}
		if sc := successCriteria(proj, ph); len(sc) > 0 {
			b.WriteString("Success criteria:\n")
			for _, x := range sc {
				b.WriteString("- " + x + "\n")
			}
		}
		if proj.Roadmap != nil {
			s.Sources = append(s.Sources, layout.PlanningDir+"/"+proj.Roadmap.Path)
		}
		if ph == proj.CurrentPhase {
			pl = proj.CurrentPlan
		} else {
			for _, cand := range ph.Plans {
				if !cand.Done {
					pl = cand
					break
				}
			}
		}
	} else if c.Meta.Phase != "" {
		b.WriteString("Phase: " + c.Meta.Phase + "\n")
	}
	var deliverables, acceptance []string
	add := func(list *[]string, items ...string) {
		for _, it := range items {
			if it = strings.TrimSpace(it); it != "" && !slices.Contains(*list, it) {
				*list = append(*list, it)
			}
		}
	}
	if pl != nil {
		line := "Plan " + pl.ID
		if pl.Title != "" {
			line += ": " + strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(pl.Title, "Plan "+pl.ID), ":"))
		}
		b.WriteString(line + "\n")
		s.Sources = append(s.Sources, layout.PlanningDir+"/"+pl.Path)
		add(&deliverables, pl.FilesModified...)
		add(&acceptance, compress.MustHaves(pl)...)
		for _, t := range pl.Tasks {
			if t.Done != "" && t.State != "done" {
				add(&acceptance, strings.Join(strings.Fields(t.Done), " "))
			}
		}
	}
	// Planned deliverables only: the files iterations touched change
	// often and belong to the loop layer, after the conversation, or every
	// new file would re-send the whole conversation uncached.
	add(&deliverables, c.Meta.Deliverables...)
	if len(deliverables) > 0 {
		b.WriteString("Deliverables:\n")
		for _, d := range deliverables {
			b.WriteString("- " + d + "\n")
		}
	}
	if len(acceptance) > 0 {
		b.WriteString("Acceptance criteria:\n")
		for _, a := range acceptance {
			b.WriteString("- " + a + "\n")
		}
	}
	if c.Meta.Epic != "" || len(c.Meta.Deliverables) > 0 {
		s.Sources = append(s.Sources, layout.ConversationLog(c.ID))
	}
	s.Body = strings.TrimSpace(b.String())
	return s
}

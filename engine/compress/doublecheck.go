package compress

import (
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/planning"
)

// IDDoubleCheck is the id of the section COMPLEX tasks get
// (docs/formats.md#difficulty-routing). It sits at the end of the semi tier.
const IDDoubleCheck = "double-check"

// planningDir is the planning tree's folder, as sources name it.
const planningDir = ".planning"

// DoubleCheckSection is the COMPLEX tier's extra step: verify the change
// against the task's done criteria and verify step, the plan's must-haves
// and the changed files before reporting done.
func DoubleCheckSection(proj *planning.Project) (prompt.Section, bool) {
	nt := proj.NextTask
	if nt == nil {
		return prompt.Section{}, false
	}
	var b strings.Builder
	b.WriteString("This task is COMPLEX. Before reporting it done:\n")
	if nt.Done != "" {
		b.WriteString("- Check the done criteria: " + strings.Join(strings.Fields(nt.Done), " ") + "\n")
	}
	if nt.Verify != "" {
		b.WriteString("- Run the verify step: " + strings.Join(strings.Fields(nt.Verify), " ") + "\n")
	}
	if pl := proj.CurrentPlan; pl != nil {
		for _, mh := range MustHaves(pl) {
			b.WriteString("- Check the must-have: " + mh + "\n")
		}
	}
	files := nt.Files
	if len(files) == 0 && proj.CurrentPlan != nil {
		files = proj.CurrentPlan.FilesModified
	}
	if len(files) > 0 {
		b.WriteString("- Re-read every changed file: " + strings.Join(files, ", ") + "\n")
	}
	b.WriteString("- Look for security and cross-module effects, then re-run the tests.")
	src := ""
	if proj.CurrentPlan != nil {
		src = planningDir + "/" + proj.CurrentPlan.Path
	}
	return prompt.Section{ID: IDDoubleCheck, Heading: "Double-check", Tier: prompt.Semi, Sources: []string{src}, Body: b.String()}, true
}

// InsertSemiLast puts s after the last semi-stable section (before the
// dynamic tier), keeping tier order.
func InsertSemiLast(p *prompt.Prompt, s prompt.Section) {
	i := 0
	for i < len(p.Sections) && p.Sections[i].Tier <= prompt.Semi {
		i++
	}
	p.Sections = append(p.Sections, prompt.Section{})
	copy(p.Sections[i+1:], p.Sections[i:])
	p.Sections[i] = s
}

// MustHaves reads the truths of a plan's must_haves front matter.
func MustHaves(pl *planning.Plan) []string {
	if pl.Markdown == nil {
		return nil
	}
	raw, ok := pl.Markdown.Meta("must_haves")
	if !ok {
		return nil
	}
	var mh struct {
		Truths []string `yaml:"truths"`
	}
	if yaml.Unmarshal([]byte(raw), &mh) != nil {
		return nil
	}
	return mh.Truths
}

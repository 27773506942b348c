package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/templates"
)

// defaultSystemFiles are read into the system prompt when a target names
// none: the instruction files coding agents already use.
var defaultSystemFiles = []string{"AGENTS.md", "CLAUDE.md"}

// maxIncludedFile bounds a system, tools or skill file, in bytes; larger
// files are cut with a diagnostic.
const maxIncludedFile = 256 << 10

// assemble gathers one target's inputs and builds its prompt, fitted to the
// target's budget.
func (e *Engine) assemble(ctx context.Context, cfg *config.Config, tg *config.Target, proj *planning.Project) (*TargetReport, []Diagnostic) {
	var diags []Diagnostic
	pdir := filepath.Join(e.dir, PlanningDir)
	in := prompt.Input{Target: tg.Name, Role: tg.Role, Project: proj, PlanningDir: PlanningDir}

	text, _, err := templates.Role(os.DirFS(pdir), tg.Role)
	if err != nil {
		diags = append(diags, Diagnostic{Path: config.FileName, Message: fmt.Sprintf("target %q: %v", tg.Name, err)})
	}
	in.RoleTemplate = text

	system := tg.System
	explicit := len(system) > 0
	if !explicit {
		system = defaultSystemFiles
	}
	for _, rel := range system {
		f, err := e.readProjectFile(rel)
		if err != nil {
			if explicit || !errors.Is(err, fs.ErrNotExist) {
				diags = append(diags, Diagnostic{Path: rel, Message: fmt.Sprintf("system file for target %q: %v", tg.Name, err)})
			}
			continue
		}
		in.System = append(in.System, f)
	}
	if tg.Tools != "" {
		f, err := e.readProjectFile(tg.Tools)
		if err != nil {
			diags = append(diags, Diagnostic{Path: tg.Tools, Message: fmt.Sprintf("tools file for target %q: %v", tg.Name, err)})
		} else {
			in.Tools = &f
		}
	}
	for _, rel := range tg.Skills {
		f, err := e.readProjectFile(rel)
		if err != nil {
			diags = append(diags, Diagnostic{Path: rel, Message: fmt.Sprintf("skill file for target %q: %v", tg.Name, err)})
			continue
		}
		in.Skills = append(in.Skills, f)
	}
	in.Health, in.Approach = loopHealth(proj)
	if f, ok := e.latestPreserved(); ok {
		in.Preserved = &f
	}
	if tg.Conversation != "" {
		diags = append(diags, e.conversationInput(ctx, cfg, tg, proj, &in)...)
	}

	p := prompt.Assemble(in)
	redactions, err := e.redactPrompt(p)
	if err != nil {
		diags = append(diags, Diagnostic{Path: config.FileName, Message: fmt.Sprintf("redaction: %v", err)})
	}
	b := tg.Budget
	if b == 0 {
		b = cfg.ContextWindow
	}
	counter, _ := e.Counter(cfg.Tokenizer)
	total := p.Fit(counter.Count, b)
	tr := &TargetReport{
		Name: tg.Name, Role: tg.Role, Budget: b, Tokens: total,
		Percent:    float64(total) * 100 / float64(b),
		Status:     cfg.Thresholds.Classify(total, b),
		Cuts:       append([]string{}, p.Cuts...),
		Redactions: append([]string{}, redactions...),
		prompt:     p, target: tg, cfg: cfg, proj: proj,
	}
	for _, s := range p.Sections {
		tr.Sections = append(tr.Sections, SectionReport{ID: s.ID, Heading: s.Heading, Tier: s.Tier.String(), Tokens: s.Tokens, Sources: s.Sources})
		if s.Tier == prompt.Stable {
			tr.StableTokens += s.Tokens
		}
	}
	if total > b {
		diags = append(diags, Diagnostic{Path: config.FileName, Message: fmt.Sprintf("target %q: the pinned sections alone take %d tokens, over the budget of %d", tg.Name, total, b)})
	}
	return tr, diags
}

// readProjectFile reads a project-relative file that must stay inside the
// project, cut to maxIncludedFile bytes.
func (e *Engine) readProjectFile(rel string) (prompt.File, error) {
	clean := filepath.ToSlash(filepath.Clean(rel))
	if !fs.ValidPath(clean) {
		return prompt.File{}, fmt.Errorf("path %q leaves the project", rel)
	}
	b, err := os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(clean)))
	if err != nil {
		return prompt.File{}, err
	}
	if len(b) > maxIncludedFile {
		b = append(b[:maxIncludedFile:maxIncludedFile], []byte("\n… (cut at 256 KiB)")...)
	}
	return prompt.File{Path: clean, Text: strings.TrimPrefix(string(b), "\uFEFF")}, nil
}

// loopHealth summarises the most recent loop for the health section and the
// recitation's approach part.
func loopHealth(proj *planning.Project) (health, approach []string) {
	if len(proj.Loops) == 0 {
		return nil, nil
	}
	l := proj.Loops[len(proj.Loops)-1]
	for _, cand := range proj.Loops {
		if cand.ID == proj.ActiveLoop {
			l = cand
		}
	}
	line := "Loop " + l.ID
	if l.Status != "" {
		line += ": " + l.Status
	}
	if n := len(l.Iterations); n > 0 {
		line += fmt.Sprintf(", iteration %d", l.Iterations[n-1].N)
		if l.MaxIterations > 0 {
			line += fmt.Sprintf(" of %d", l.MaxIterations)
		}
	}
	health = append(health, line)
	state := l.HealthState
	if n := len(l.Iterations); n > 0 && l.Iterations[n-1].Health != "" {
		state = l.Iterations[n-1].Health
	}
	if state != "" {
		health = append(health, "State: "+state)
	}
	if n := len(l.Breaker); n > 0 {
		r := l.Breaker[n-1]
		health = append(health, fmt.Sprintf("Circuit breaker: %s (stall %d, spin %d, output %s)", r.State, r.StallCount, r.SpinCount, r.OutputPct))
	} else if l.CircuitBreaker != nil && l.CircuitBreaker.State != "" {
		health = append(health, fmt.Sprintf("Circuit breaker: %s (stall %d)", l.CircuitBreaker.State, l.CircuitBreaker.StallCounter))
	}
	if n := len(l.Iterations); n > 0 && l.Iterations[n-1].Action != "" {
		approach = append(approach, "Last action: "+l.Iterations[n-1].Action)
	}
	for i := len(l.Approaches) - 1; i >= 0 && len(approach) < 4; i-- {
		a := l.Approaches[i]
		t := "Tried: " + a.Text
		if a.Result != "" {
			t += " — " + a.Result
		}
		approach = append(approach, t)
	}
	return health, approach
}

// PreservedFile is where preservation blocks are appended (DESIGN.md §2).
const PreservedFile = ".planning/context-preserved.md"

// latestPreserved returns the newest block of context-preserved.md: the
// text from its last "## Context Preservation Block" or "## Preserved Stop
// Signals" heading to the end (FORMATS.md §2.8).
func (e *Engine) latestPreserved() (prompt.File, bool) {
	b, err := os.ReadFile(filepath.Join(e.dir, PreservedFile))
	if err != nil {
		return prompt.File{}, false
	}
	text := strings.ReplaceAll(string(b), "\r\n", "\n")
	start := -1
	for _, h := range []string{"## Context Preservation Block", "## Preserved Stop Signals"} {
		if i := strings.LastIndex(text, "\n"+h); i >= 0 && i+1 > start {
			start = i + 1
		} else if strings.HasPrefix(text, h) && start < 0 {
			start = 0
		}
	}
	if start < 0 {
		return prompt.File{}, false
	}
	return prompt.File{Path: PreservedFile, Text: text[start:]}, true
}

package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/engine/scope"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
	"github.com/recite-dev/recite/templates"
)

// maxIncludedFile bounds a system, tools or skill file, in bytes; larger
// files are cut with a diagnostic.
const maxIncludedFile = 256 << 10

// assemble gathers one target's inputs and builds its prompt, fitted to the
// target's budget.
func (e *Engine) assemble(ctx context.Context, cfg *config.Config, tg *config.Target, proj *planning.Project) (*targetBuild, []Diagnostic) {
	var diags []Diagnostic
	pdir := filepath.Join(e.dir, PlanningDir)
	in := prompt.Input{Target: tg.Name, Role: tg.Role, Project: proj, PlanningDir: PlanningDir}
	// found are the redactions made while gathering (the files section,
	// cuts of long conversation texts), for secrets.Redactor.Prompt.
	var found []string

	// A project's own role template never comes from outside the planning
	// folder through a symbolic link (scope.FS).
	text, _, err := templates.Role(scope.FS(pdir, PlanningDir+"/", "the planning folder"), tg.Role)
	if err != nil {
		diags = append(diags, Diagnostic{Path: config.FileName, Line: tg.Line, Message: fmt.Sprintf("target %q: %v", tg.Name, err)})
	}
	in.RoleTemplate = text

	diags = append(diags, e.targetFiles(tg, &in)...)
	in.Health, in.Approach = e.promptHealth(ctx, cfg, proj)
	f, ok, pdiags := e.latestPreserved()
	diags = append(diags, pdiags...)
	if ok {
		in.Preserved = &f
	}
	var conv *conversation.Conversation
	if tg.Conversation != "" {
		c, cdiags := e.conversationInput(ctx, cfg, tg, proj, &in, &found)
		conv = c
		diags = append(diags, cdiags...)
	}
	addProjectErrors(proj, &in)
	diags = append(diags, e.scope.Sections(ctx, cfg, tg, proj, &in, e.redactor.FileRedactor(&found))...)

	route := routeDifficulty(tg, proj, &in)
	in.Demote = e.demote
	p := prompt.Assemble(in)
	// Redact before compressing, so that a cut made by compression (a
	// one-line form, an extract) never keeps part of a secret the whole
	// text would have had replaced, and a summarizer command never sees
	// one; and again after, for the text compression adds (skills, the
	// double-check section), which the redaction cache makes cheap for
	// everything else.
	redactions, err := e.redactor.Prompt(p, found)
	if err != nil {
		diags = append(diags, Diagnostic{Path: config.FileName, Message: fmt.Sprintf("redaction: %v", err)})
	}
	comp := e.compressPrompt(ctx, cfg, tg, proj, conv, &in, p, route)
	if more, err := e.redactor.Prompt(p, nil); err == nil {
		for _, r := range more {
			if !slices.Contains(redactions, r) {
				redactions = append(redactions, r)
			}
		}
	}
	b := tg.Budget
	if b == 0 {
		b = cfg.ContextWindow
	}
	counter, _ := e.Counter(cfg.Tokenizer)
	total := p.Fit(counter.Count, b)
	tr := &TargetReport{
		Name: tg.Name, Role: tg.Role, Budget: b, Tokens: total,
		Percent:     float64(total) * 100 / float64(b),
		Status:      cfg.Thresholds.Classify(total, b),
		Cuts:        append([]string{}, p.Cuts...),
		Redactions:  append([]string{}, redactions...),
		Compression: comp,
	}
	for _, s := range p.Sections {
		tr.Sections = append(tr.Sections, SectionReport{ID: s.ID, Heading: s.Heading, Tier: s.Tier.String(), Tokens: s.Tokens, Sources: s.Sources})
		if s.Tier == prompt.Stable {
			tr.StableTokens += s.Tokens
		}
	}
	if total > b {
		diags = append(diags, Diagnostic{Path: config.FileName, Line: tg.Line, Message: fmt.Sprintf("target %q: the pinned sections alone take %d tokens, over the budget of %d", tg.Name, total, b)})
	}
	return &targetBuild{report: tr, prompt: p, target: tg, cfg: cfg, proj: proj}, diags
}

// targetFiles reads the target's system files (AGENTS.md and CLAUDE.md
// when it names none; a missing default is no problem), its tools file and
// its skills into in; a file that cannot be read is a diagnostic.
func (e *Engine) targetFiles(tg *config.Target, in *prompt.Input) []Diagnostic {
	var diags []Diagnostic
	system := tg.System
	explicit := len(system) > 0
	if !explicit {
		system = scope.DefaultSystemFiles
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
	return diags
}

// maxProjectErrors bounds the errors recorded in planning files (the
// active loop's verbatim errors, open debug files) that the prompt carries.
const maxProjectErrors = 3

// addProjectErrors adds to in.Errors, before the conversation's, the error
// signals recorded in planning files: the active loop file's verbatim
// errors and the errors of open debug files (docs/formats.md#stop-signals), at
// most maxProjectErrors, each once (by normalised hash, also against the
// conversation's errors). Without them a project with no conversation
// would carry no recent error at all.
func addProjectErrors(proj *planning.Project, in *prompt.Input) {
	seen := map[string]bool{}
	for _, t := range in.Errors {
		seen[signals.Hash(t)] = true
	}
	var sigs []signals.Signal
	if l := scope.ActiveLoop(proj); l != nil {
		sigs = append(sigs, signals.FromLoop(l)...)
	}
	for _, d := range proj.Debug {
		sigs = append(sigs, signals.FromDebug(d)...)
	}
	var errs, srcs []string
	for _, s := range sigs {
		if s.Kind != signals.KindError || len(errs) == maxProjectErrors {
			continue
		}
		h := signals.Hash(s.Text)
		if seen[h] {
			continue
		}
		seen[h] = true
		src := s.Source
		if !strings.HasPrefix(src, PlanningDir+"/") {
			src = PlanningDir + "/" + src
		}
		errs = append(errs, strings.TrimSpace(s.Text))
		srcs = append(srcs, src)
	}
	in.Errors = append(errs, in.Errors...)
	in.ErrorSources = append(srcs, in.ErrorSources...)
}

// readProjectFile reads a project-relative file that must stay inside the
// project once its symbolic links are followed (scope.ReadFile: a link
// that leads out is a *scope.OutsideError naming it and its target), cut
// to maxIncludedFile bytes.
func (e *Engine) readProjectFile(rel string) (prompt.File, error) {
	clean := filepath.ToSlash(filepath.Clean(rel))
	if !fs.ValidPath(clean) {
		return prompt.File{}, fmt.Errorf("path %q leaves the project", rel)
	}
	b, err := scope.ReadFile(e.dir, clean, maxIncludedFile)
	if err != nil {
		return prompt.File{}, err
	}
	if len(b) > maxIncludedFile {
		b = append(b[:maxIncludedFile:maxIncludedFile], []byte("\n… (cut at 256 KiB)")...)
	}
	return prompt.File{Path: clean, Text: strings.TrimPrefix(string(b), "\uFEFF")}, nil
}

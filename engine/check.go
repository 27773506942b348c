package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/prompt"
)

// BodyProblem is one reason a provider would reject one prompt file.
type BodyProblem struct {
	// Target and Provider name the file; Path is its project-relative path.
	Target   string `json:"target"`
	Provider string `json:"provider"`
	Path     string `json:"path"`
	prompt.Problem
}

func (p BodyProblem) String() string {
	return p.Path + ": " + p.Problem.String()
}

// CheckBody validates body as target's request for provider, as
// prompt.Check does, against the limits of the target's model for that
// provider (its capabilities applied) with the configured tokenizer.
// Errors: *InputError for an unknown target or provider or a bad
// recite.yaml.
func (e *Engine) CheckBody(target, provider string, body []byte) ([]prompt.Problem, error) {
	cfg, _, err := config.Load(e.dir)
	if err != nil {
		return nil, &InputError{err}
	}
	tg, err := findTarget(cfg, target)
	if err != nil {
		return nil, err
	}
	if _, err := prompt.CapabilitiesOf(provider); err != nil {
		return nil, &InputError{err}
	}
	counter, err := e.Counter(cfg.Tokenizer)
	if err != nil {
		return nil, &InputError{err}
	}
	return prompt.Check(provider, body, prompt.CheckOptions{
		Count: counter.Count, Model: tg.ModelFor(provider), Override: tg.LimitOverride(provider),
	}), nil
}

// CheckBuild validates every prompt file a build report lists, reading
// each from disk (what a provider would be sent), and returns the problems
// of all of them, in report order; none when every body would be
// accepted.
func (e *Engine) CheckBuild(ctx context.Context, rep *Report) ([]BodyProblem, error) {
	var out []BodyProblem
	for _, t := range rep.Targets {
		for _, f := range t.Files {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			body, err := os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(f.Path)))
			if err != nil {
				return nil, err
			}
			probs, err := e.CheckBody(t.Name, f.Provider, body)
			if err != nil {
				return nil, err
			}
			for _, p := range probs {
				out = append(out, BodyProblem{Target: t.Name, Provider: f.Provider, Path: f.Path, Problem: p})
			}
		}
	}
	return out, nil
}

// findTarget returns the configured target named name, or an *InputError
// listing the configured ones.
func findTarget(cfg *config.Config, name string) (*config.Target, error) {
	var names []string
	for i := range cfg.Targets {
		if cfg.Targets[i].Name == name {
			return &cfg.Targets[i], nil
		}
		names = append(names, cfg.Targets[i].Name)
	}
	return nil, &InputError{fmt.Errorf("unknown target %q (configured: %v)", name, names)}
}

// renderNotes are the diagnostics of what rendering a target's prompt for
// provider had to change so the provider accepts it (prompt.Notes), placed
// at the target's conversation log when it has one.
func renderNotes(tr *TargetReport, provider string) []Diagnostic {
	var out []Diagnostic
	for _, n := range prompt.Notes(tr.prompt, provider, tr.target.RenderOptions(provider)) {
		d := Diagnostic{Path: config.FileName, Line: tr.target.Line, Message: fmt.Sprintf("target %q, provider %s: %s", tr.Name, provider, n.Message)}
		if tr.target.Conversation != "" {
			d.Path, d.Line = ConversationLog(tr.target.Conversation), 0
		}
		out = append(out, d)
	}
	return out
}

package engine

import (
	"context"
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
// provider (its capabilities applied) with the configured tokenizer. It
// returns no problem for a body the provider accepts. Errors: *InputError
// for an unknown target or provider or a bad recite.yaml.
func (e *Engine) CheckBody(target, provider string, body []byte) ([]prompt.Problem, error) {
	cfg, _, err := config.Load(e.dir)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	tg, err := cfg.Target(target)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	if _, err := cfg.Catalog().Lookup(provider); err != nil {
		return nil, &InputError{Err: err}
	}
	counter, err := e.Counter(cfg.Tokenizer)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	return prompt.Check(provider, body, tg.CheckOptions(provider, counter.Count)), nil
}

// CheckBuild validates every prompt file a build report lists, reading
// each from disk (what a provider would be sent), and returns the problems
// of all of them, in report order; none when every body would be
// accepted. Errors: those of CheckBody, a file that cannot be read, ctx's.
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

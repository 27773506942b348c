package engine

import (
	"cmp"
	"context"
	"io/fs"
	"path"
	"path/filepath"

	"github.com/recite-dev/recite/engine/compress"
	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/gitstore"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// IDDoubleCheck is the id of the section COMPLEX tasks get
// (compress.IDDoubleCheck). It sits at the end of the semi tier.
const IDDoubleCheck = compress.IDDoubleCheck

// CompressReport is a target's difficulty routing and context compression
// (compress.Report; docs/formats.md#difficulty-routing,
// docs/formats.md#compression).
type CompressReport = compress.Report

// routeDifficulty classifies the current task (compress.RouteTask) and
// puts the level in the recitation input.
func routeDifficulty(tg *config.Target, proj *planning.Project, in *prompt.Input) compress.Routing {
	r := compress.RouteTask(tg.Skills, proj)
	in.Difficulty = r.Level.String()
	return r
}

// compressPrompt applies recite.yaml's compression block to a freshly
// assembled prompt (compress.Run.Apply): the routed level's difficulty
// policy, a compression pass every compression.every iterations and the
// budget level, with the engine's tokenizer, redaction and git history.
func (e *Engine) compressPrompt(ctx context.Context, cfg *config.Config, tg *config.Target, proj *planning.Project, conv *conversation.Conversation, in *prompt.Input, p *prompt.Prompt, route compress.Routing) *CompressReport {
	pol := cfg.Compression.Difficulty.Moderate
	switch route.Level {
	case compress.Simple:
		pol = cfg.Compression.Difficulty.Simple
	case compress.Complex:
		pol = cfg.Compression.Difficulty.Complex
	}
	run := compress.Run{
		Dir: e.dir, Enabled: cfg.Compression.CompressionOn(), Every: cfg.Compression.Every, Summarizer: cfg.Compression.Summarizer,
		Policy:      compress.Policy{Omit: pol.Omit, DoubleCheck: pol.DoubleCheck != nil && *pol.DoubleCheck},
		Budget:      cmp.Or(tg.Budget, cfg.ContextWindow),
		Redact:      e.redactSkill,
		ProjectPath: e.projectPath,
		Commits:     func(items []gitstore.Item) map[string]string { return e.history.CommitsTouching(e.dir, items) },
		Settled:     in.Settled,
	}
	if counter, err := e.Counter(cfg.Tokenizer); err == nil {
		run.Count = compress.Counter(counter.Count)
	}
	return run.Apply(ctx, proj, conv, in, p, route)
}

// redactSkill redacts a skill file's text for compression's skill
// segments; before the redactor is ready (no prompt redacted yet) it is
// left as it is.
func (e *Engine) redactSkill(path, text string) string {
	if !e.redactor.Ready() {
		return text
	}
	out, _ := e.redactor.Redact(path, text)
	return out
}

// projectPath turns a file a tool call or record names into a clean
// project-relative, slash-separated path; "" when it is empty or outside
// the project.
func (e *Engine) projectPath(p string) string {
	if p == "" {
		return ""
	}
	if filepath.IsAbs(p) {
		rel, ok := e.relPath(p)
		if !ok {
			return ""
		}
		p = rel
	}
	p = path.Clean(filepath.ToSlash(p))
	if !fs.ValidPath(p) || p == "." {
		return ""
	}
	return p
}

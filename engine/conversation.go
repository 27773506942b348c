package engine

import (
	"context"
	"io"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/conversations"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/layers"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// coordinatorHost is the engine as the conversation coordinator sees it
// (conversations.Host).
type coordinatorHost struct{ e *Engine }

// Dir is the project root.
func (h coordinatorHost) Dir() string { return h.e.dir }

// Store is the redacting conversation store (Engine.OpenConversations).
func (h coordinatorHost) Store() (*conversation.Store, error) { return h.e.OpenConversations() }

// RedactLog is the logs' redactor (secrets.Redactor.Log).
func (h coordinatorHost) RedactLog(text string) (string, int) { return h.e.redactor.Log(text) }

// RedactText is Engine.Redact.
func (h coordinatorHost) RedactText(text string) string { return h.e.Redact(text) }

// Load reads recite.yaml and the planning tree as a build does.
func (h coordinatorHost) Load() (*config.Config, *planning.Project, error) {
	cfg, _, proj, err := h.e.load()
	return cfg, proj, err
}

// Build is a full Build; it returns the report's diagnostics.
func (h coordinatorHost) Build(ctx context.Context) ([]Diagnostic, error) {
	rep, err := h.e.Build(ctx)
	if err != nil {
		return nil, err
	}
	return rep.Diagnostics, nil
}

// Assemble is the prompt of target tg as a build assembles it.
func (h coordinatorHost) Assemble(ctx context.Context, cfg *config.Config, tg *config.Target, proj *planning.Project) (*prompt.Prompt, []Diagnostic) {
	tb, diags := h.e.assemble(ctx, cfg, tg, proj)
	return tb.prompt, diags
}

// Progress reports the bytes read from r as Progress of stage when a
// listener is set.
func (h coordinatorHost) Progress(r io.Reader, stage string, total int64) io.Reader {
	if h.e.progress == nil {
		return r
	}
	return &progressReader{r: r, e: h.e, stage: stage, total: total}
}

// conversationInput fills the conversation parts of tg's prompt input
// (conversations.Input), its cutter reporting the redactions of what it
// keeps to *found. It returns the conversation it read, for compression;
// nil, with a diagnostic, when it is missing or unreadable.
func (e *Engine) conversationInput(ctx context.Context, cfg *config.Config, tg *config.Target, proj *planning.Project, in *prompt.Input, found *[]string) (*conversation.Conversation, []Diagnostic) {
	return conversations.Input(ctx, coordinatorHost{e}, conversations.InputOptions{
		Config: cfg, Target: tg, Project: proj, Cut: e.newCutter(found), Count: e.countFunc(cfg)}, in)
}

// newCutter returns a Cutter that redacts with the engine's redactor and
// appends what it kept to *found, for redactPrompt; without a redactor it
// cuts without redacting (the final redaction of the prompt is all there
// is).
func (e *Engine) newCutter(found *[]string) layers.Cutter {
	if e.redactor.Init() != nil {
		return layers.Cutter{}
	}
	return layers.NewCutter(e.redactor.Redact, found)
}

// countFunc is the token count of the engine's counter for cfg's
// tokenizer, else about four bytes a token.
func (e *Engine) countFunc(cfg *config.Config) func(string) int {
	if counter, err := e.Counter(cfg.Tokenizer); err == nil {
		return counter.Count
	}
	return func(s string) int { return len(s) / 4 }
}

// relPath turns a path under the project into a project-relative,
// slash-separated path.
func (e *Engine) relPath(p string) (string, bool) { return layout.RelPath(e.dir, p) }

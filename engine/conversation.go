package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/history"
	"github.com/recite-dev/recite/engine/layers"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/engine/scope"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// conversationInput fills the conversation parts of a target's prompt
// input: the pruned history tail, the errors and stop signals
// (layers.Fill) and the coordinator's context layers (docs/formats.md#conversation-layers "Context
// Assembly": learnings, loop and role, epic and phase, history;
// layers.Context). It reads the conversation's horizon through the log's
// index (history.Horizon: the newest messages, what lies before them
// counted, the older stop and error records of the ledger), so its cost
// does not grow with the log. The cutter reports the redactions of what
// it keeps to *found. It returns the conversation it read, for
// compression. A missing or unreadable conversation is a diagnostic and a
// nil conversation: the prompt is built without it.
func (e *Engine) conversationInput(ctx context.Context, cfg *config.Config, tg *config.Target, proj *planning.Project, in *prompt.Input, found *[]string) (*conversation.Conversation, []Diagnostic) {
	id := tg.Conversation
	var diags []Diagnostic
	diag := func(format string, args ...any) {
		diags = append(diags, Diagnostic{Path: config.FileName, Line: tg.Line, Message: fmt.Sprintf("target %q: ", tg.Name) + fmt.Sprintf(format, args...)})
	}
	store, err := e.OpenConversations()
	if err != nil {
		diag("%v", err)
		return nil, diags
	}
	w, rdiags, err := store.Window(ctx, id, history.Horizon(max(cfg.History.Window, cfg.History.Keep)))
	for _, d := range rdiags {
		if rel, ok := e.relPath(d.Path); ok {
			d.Path = rel
		}
		diags = append(diags, d)
	}
	if err != nil {
		if errors.Is(err, conversation.ErrNotFound) {
			diag("conversation %q not found (create it with `recite conversation new %s`)", id, id)
		} else {
			diag("conversation %q: %v", id, err)
		}
		return nil, diags
	}
	c := w.Conversation()
	layers.Fill(ctx, layers.Conversation{Dir: e.dir, Log: c, Cut: e.newCutter(found), Count: e.countFunc(cfg)}, cfg, in, diag)
	ctxLayers, ldiags := layers.Context(e.dir, c, cfg, tg, proj, scope.ActiveLoop(proj))
	diags = append(diags, ldiags...)
	in.Extra = append(in.Extra, ctxLayers...)
	return c, diags
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

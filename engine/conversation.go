package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/history"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// maxConversationErrors is how many recent failed results enter the errors
// section.
const maxConversationErrors = 5

// maxErrorBytes bounds one error's text in the errors section.
const maxErrorBytes = 8 << 10

// conversationInput fills the conversation parts of a target's prompt
// input: the pruned history tail and the coordinator's context layers
// (seeds/000 "Context Assembly": learnings, loop and role, epic and phase,
// history).
//
// The history is the conversation's replayable messages (Replayable) pruned
// by the configured strategy (recite.yaml history:); a summary strategy
// whose summarizer fails falls back to the window strategy with a
// diagnostic. The errors section gets the verbatim text of the last five
// failed messages (tool results with is_error, and failed agent runs) of the
// whole log, pruned or not, so pruning never hides an error. A missing or
// unreadable conversation is a diagnostic: the prompt is built without it.
func (e *Engine) conversationInput(ctx context.Context, cfg *config.Config, tg *config.Target, proj *planning.Project, in *prompt.Input) []Diagnostic {
	id := tg.Conversation
	logPath := ConversationLog(id)
	var diags []Diagnostic
	diag := func(format string, args ...any) {
		diags = append(diags, Diagnostic{Path: config.FileName, Message: fmt.Sprintf("target %q: ", tg.Name) + fmt.Sprintf(format, args...)})
	}
	store, err := e.OpenConversations()
	if err != nil {
		diag("%v", err)
		return diags
	}
	c, rdiags, err := store.Read(id)
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
		return diags
	}

	var replay []conversation.Record
	for _, r := range c.Messages {
		if Replayable(r) {
			replay = append(replay, r)
		}
	}
	count := func(s string) int { return len(s) / 4 }
	if counter, err := e.Counter(cfg.Tokenizer); err == nil {
		count = counter.Count
	}
	strategy := e.historyStrategy(cfg, count)
	kept, err := strategy.Prune(ctx, replay)
	if err != nil {
		diag("history %s: %v; kept the last %d messages instead", cfg.History.Strategy, err, cfg.History.Window)
		kept, _ = history.Window{N: cfg.History.Window}.Prune(ctx, replay)
	}
	in.Messages = ToPromptMessages(kept)
	in.Conversation = logPath

	var errs, srcs []string
	for i := len(c.Messages) - 1; i >= 0 && len(errs) < maxConversationErrors; i-- {
		r := c.Messages[i]
		if !r.IsError || r.Internal || r.Content == "" {
			continue
		}
		text := r.Content
		if len(text) > maxErrorBytes {
			text = text[:maxErrorBytes] + "\n… (cut at 8 KiB)"
		}
		errs = append(errs, text)
		srcs = append(srcs, logPath+"#"+r.ID)
	}
	for i := len(errs) - 1; i >= 0; i-- {
		in.Errors = append(in.Errors, errs[i])
		in.ErrorSources = append(in.ErrorSources, srcs[i])
	}

	layers, ldiags := e.contextLayers(c, cfg, tg, proj)
	diags = append(diags, ldiags...)
	in.Extra = append(in.Extra, layers...)
	return diags
}

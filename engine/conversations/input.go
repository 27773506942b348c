package conversations

import (
	"context"
	"errors"
	"fmt"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/history"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/layers"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/engine/scope"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// InputOptions are what Input needs of a build besides its Host.
type InputOptions struct {
	// Config is the loaded recite.yaml; Target the target whose
	// conversation is read; Project the planning tree.
	Config  *config.Config
	Target  *config.Target
	Project *planning.Project
	// Cut cuts (and redacts) the messages kept; Count counts tokens for
	// the configured tokenizer.
	Cut   layers.Cutter
	Count func(string) int
}

// Input fills the conversation parts of a target's prompt input in: the
// pruned history tail, the errors and stop signals (layers.Fill) and the
// coordinator's context layers (docs/formats.md#conversation-layers
// "Context Assembly": learnings, loop and role, epic and phase, history;
// layers.Context). It reads the conversation's horizon through the log's
// index (history.Horizon: the newest messages, what lies before them
// counted, the older stop and error records of the ledger), so its cost
// does not grow with the log. It returns the conversation it read, for
// compression. A missing or unreadable conversation is a diagnostic (on
// the target's line of recite.yaml) and a nil conversation: the prompt is
// built without it.
func Input(ctx context.Context, h Host, opts InputOptions, in *prompt.Input) (*Conversation, []Diagnostic) {
	cfg, tg := opts.Config, opts.Target
	id := tg.Conversation
	var diags []Diagnostic
	diag := func(format string, args ...any) {
		diags = append(diags, Diagnostic{Path: config.FileName, Line: tg.Line, Message: fmt.Sprintf("target %q: ", tg.Name) + fmt.Sprintf(format, args...)})
	}
	store, err := h.Store()
	if err != nil {
		diag("%v", err)
		return nil, diags
	}
	w, rdiags, err := store.Window(ctx, id, history.Horizon(max(cfg.History.Window, cfg.History.Keep)))
	for _, d := range rdiags {
		if rel, ok := layout.RelPath(h.Dir(), d.Path); ok {
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
	layers.Fill(ctx, layers.Conversation{Dir: h.Dir(), Log: c, Cut: opts.Cut, Count: opts.Count, Tools: tg.ToolSet}, cfg, in, diag)
	ctxLayers, ldiags := layers.Context(h.Dir(), c, cfg, tg, opts.Project, scope.ActiveLoop(opts.Project))
	diags = append(diags, ldiags...)
	in.Extra = append(in.Extra, ctxLayers...)
	return c, diags
}

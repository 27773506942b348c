package layers

import (
	"context"
	"slices"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/history"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// Context builds the coordinator's three context layers for a
// conversation target (docs/formats.md#conversation-layers): learnings (stable), epic and phase
// (semi), loop and role (semi), for the project at dir whose active loop
// is active (nil: none). Empty layers are left out by prompt.Add.
func Context(dir string, c *conversation.Conversation, cfg *config.Config, tg *config.Target, proj *planning.Project, active *planning.Loop) ([]prompt.Section, []markdown.Diagnostic) {
	var diags []markdown.Diagnostic
	learn, d := Learnings(dir, c, proj)
	if d != nil {
		diags = append(diags, *d)
	}
	return []prompt.Section{learn, Epic(c, proj), Loop(c, tg, active, cfg.Agent.MaxIterations)}, diags
}

// Conversation is what Fill needs to fill a target's conversation parts.
type Conversation struct {
	// Dir is the project root, where a summarizer command runs.
	Dir string
	// Log is the conversation read from its log.
	Log *conversation.Conversation
	// Cut cuts long texts, redacting around each cut.
	Cut Cutter
	// Count counts tokens, for the tokens history strategy.
	Count func(string) int
	// Tools is the target's declared tool set (recite.yaml
	// targets[].tool_set); nil when it declares none.
	Tools []string
}

// Fill fills the conversation parts of a target's prompt input from the
// log: the pruned history tail, the errors and stop signals sections.
//
// The history is the conversation's replayable messages (Replayable),
// each cut to MaxMessageBytes (a rejected tool use, a stop signal, as the
// section cuts it), pruned by the configured strategy (recite.yaml
// history:); a summary strategy whose summarizer fails falls back to the
// window strategy with a diagnostic (diag formats it). The errors section
// gets the verbatim text of the last five distinct failed messages (tool
// results with is_error, and failed agent runs) of the whole log, pruned
// or not, so pruning never hides an error, and the stop signals of the
// whole log (Stops), which Fit never cuts. When the log holds the newest
// part of a longer conversation (history.Horizon), "the whole log" is that
// part and the older records of the index's ledger (Conversation.Signals:
// the newest records naming a stop word and the newest failed results).
func Fill(ctx context.Context, cv Conversation, cfg *config.Config, in *prompt.Input, diag func(format string, args ...any)) {
	c, cut := cv.Log, cv.Cut
	logPath := layout.ConversationLog(c.ID)
	sc := withSignals(c)
	var stopResults map[string]bool
	in.Stops, in.StopSources, stopResults = Stops(sc, logPath, cut)
	var replay []conversation.Record
	// A window of a longer log starts the history at a fixed point of the
	// log (history.Anchor), so the eviction marks do not move with the
	// window.
	skip := history.Anchor(c.Earlier.Messages)
	for i, r := range c.Messages {
		if i < skip {
			continue
		}
		if Replayable(r) {
			if stopResults[r.ID] {
				// A rejected tool use is a stop signal, which nothing may
				// cut later: it is cut now, as the section cuts it.
				r.Content = cut.CutError("conversation", r.ID, r.Content)
			} else {
				r.Content = cut.CapMessage(r.ID, r.Content)
			}
			replay = append(replay, r)
		}
	}
	strategy := HistoryStrategy(cv.Dir, cfg, cv.Count)
	kept, err := history.Run(ctx, strategy, replay)
	if err != nil {
		diag("history %s: %v; kept the last %d messages instead", cfg.History.Strategy, err, cfg.History.Window)
		high, low := cfg.History.Marks(cfg.History.Window)
		kept, _ = history.Run(ctx, history.Window{N: high, Low: low}, replay)
	}
	in.Messages = ToPromptMessages(kept.Messages)
	in.Conversation = logPath
	// The tools block changes only at an eviction: the declared tools, or
	// those the settled part of the history called
	// (docs/providers.md#a-stable-tools-block).
	in.FixedTools = true
	in.ToolSet = cv.Tools
	if in.ToolSet == nil {
		in.ToolSet = history.SettledTools(replay[:kept.Settled])
	}
	in.LowWater = cfg.History.LowWater
	if kept.Settled > 0 {
		in.Settled = replay[kept.Settled-1].ID
	}
	in.Errors, in.ErrorSources = Errors(sc, logPath, cut, stopResults)
}

// withSignals returns c with the older records of its ledger
// (Conversation.Signals) before its messages, in read order, for the
// searches of the whole log; c itself when it has none.
func withSignals(c *conversation.Conversation) *conversation.Conversation {
	if len(c.Signals) == 0 {
		return c
	}
	sc := *c
	sc.Messages = append(slices.Clone(c.Signals), c.Messages...)
	return &sc
}

// Errors returns the verbatim texts of the last MaxConversationErrors
// distinct failed messages of c (errorKey decides "distinct"; the newest
// occurrence is kept), oldest first, cut to maxErrorBytes, with their
// sources (LOG#ID). Internal messages and the stop signals among the
// failed tool results (stopResults) are left out.
func Errors(c *conversation.Conversation, logPath string, cut Cutter, stopResults map[string]bool) (errs, srcs []string) {
	var rev, revSrcs []string
	seen := map[string]bool{}
	for i := len(c.Messages) - 1; i >= 0 && len(rev) < MaxConversationErrors; i-- {
		r := c.Messages[i]
		if !r.IsError || r.Internal || r.Content == "" || stopResults[r.ID] {
			continue
		}
		text := cut.Quiet().CutError(prompt.IDErrors, logPath+"#"+r.ID, r.Content)
		// The same error enters once, as its newest occurrence: a loop
		// repeating one failure would otherwise fill the section with
		// copies and push older distinct errors out.
		k := errorKey(text)
		if seen[k] {
			continue
		}
		seen[k] = true
		cut.CutError(prompt.IDErrors, logPath+"#"+r.ID, r.Content) // reports what it kept
		rev = append(rev, text)
		revSrcs = append(revSrcs, logPath+"#"+r.ID)
	}
	for i := len(rev) - 1; i >= 0; i-- {
		errs = append(errs, rev[i])
		srcs = append(srcs, revSrcs[i])
	}
	return errs, srcs
}

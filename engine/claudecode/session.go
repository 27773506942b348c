package claudecode

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/recite-dev/recite/engine/internal/gitstore"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/signals"
)

// Leads of what SessionStart prints.
const (
	leadCompact        = "Stop signals the compaction summary lost (%s); recite re-injects them verbatim. Do not summarize them."
	leadCompactPartial = "Stop signals preserved before the compaction (recite ran out of time checking the summary); recite re-injects them verbatim. Do not summarize them."
	leadStart          = "recite: where this project stands (recitation from .planning/)."
	leadStartSignals   = "recite: where this project stands (recitation from .planning/, then the stop signals still open in the project's recent conversations and planning files)."
	leadStartBlock     = "recite: where this project stands (recitation from .planning/, then the stop signals still open: the latest preservation block of " + layout.PreservedFile + " and the project's recent conversations)."
	leadStartPartial   = "recite: the latest preservation block of " + layout.PreservedFile + "."
)

// sessionStart prints the context a session starts with. After a
// compaction (source compact): only the stop signals the summary lost
// (lostInCompaction). Otherwise (startup, clear, resume): the recitation,
// then one block of the stop signals still open — the latest
// preservation block's (its working state too) and those of the project's
// recent conversations and planning tree (Engine.OpenSignals), a signal
// resolved later left out — fitted by fitOutput.
func (h *claudeHook) sessionStart(ctx context.Context, res *result) error {
	blocks, err := h.e.ReadPreserved()
	if err != nil {
		res.notef("SessionStart: %v", err)
	}
	latest, haveBlock := signals.Latest(blocks)
	// A block written before recite redacted blocks may hold a secret;
	// the summary is checked against both forms (lostInCompaction).
	raw := latest
	latest = h.e.RedactBlock(latest)
	if h.ev.Source == "compact" {
		if !haveBlock {
			// The summary replaced the context: nothing is known held.
			h.noteDelivered(ctx, res, nil, true)
			return nil
		}
		// Out of time before the summary is checked: the whole block.
		h.partial.set(fitOutput(leadCompactPartial, "", latest, h.limit()))
		lost, how := h.lostInCompaction(ctx, raw)
		// After this event the context holds the block's signals: those
		// the summary kept, and the lost ones printed here.
		h.noteDelivered(ctx, res, latest.Signals, true)
		if len(lost) == 0 {
			return nil
		}
		res.out = fitOutput(fmt.Sprintf(leadCompact, how), "", signals.Block{Trigger: signals.TriggerCompaction, Signals: lost}, h.limit())
		return nil
	}
	if !haveBlock {
		latest = signals.Block{}
	} else {
		// Out of time before the recitation: the block alone.
		h.partial.set(fitOutput(leadStartPartial, "", latest, h.limit()))
	}
	known := slices.Clone(latest.Signals)
	for i := range known {
		// A block says when it was written, not when each error was seen:
		// before that.
		if known[i].LastSeen.IsZero() {
			known[i].LastSeen = latest.Timestamp
		}
	}
	open, diags, err := h.e.OpenSignals(ctx, known)
	for _, d := range diags {
		res.notef("SessionStart: %s", d)
	}
	if err != nil {
		res.notef("SessionStart: open stop signals: %v", err)
	} else {
		latest.Signals = open
	}
	if h.ev.Source == "resume" {
		// The resumed context holds what this session was given since
		// its last compaction and its own tool results: only the rest is
		// printed (docs/architecture.md#signals-once-per-context).
		latest.Signals = h.notHeld(latest.Signals)
		if len(latest.Signals) == 0 {
			haveBlock = false
			latest = signals.Block{}
		}
	}
	rec, err := h.recitation(ctx, res)
	if err != nil {
		res.notef("SessionStart: recitation: %v", err)
	}
	// The baseline of modified files, so the session's first command is
	// not charged with changes made before it.
	if h.conv != "" {
		err := h.locked(ctx, func() error { _, err := h.changedFiles(ctx); return err })
		if err != nil && !errors.Is(err, gitstore.ErrNoRepository) {
			res.notef("SessionStart: files modified: %v", err)
		}
	}
	lead := leadStart
	switch {
	case haveBlock:
		lead = leadStartBlock
	case len(latest.Signals) > 0:
		lead = leadStartSignals
	case rec == "":
		return nil
	}
	res.out = fitOutput(lead, rec, latest, h.limit())
	h.noteDelivered(ctx, res, printed(latest.Signals, res.out), h.ev.Source != "resume")
	return nil
}

// lostInCompaction returns the signals of the latest block the compaction
// summary lost, redacted, and how that is known. latest is the block as
// read: a signal counts as kept when the summary keeps its raw or its
// redacted form.
func (h *claudeHook) lostInCompaction(ctx context.Context, latest signals.Block) ([]signals.Signal, string) {
	if h.conv != "" {
		var st compactState
		if h.readState("compact", &st) && st.BlockTimestamp.Equal(latest.Timestamp) && st.BlockLine == latest.Line {
			return h.e.RedactSignals(st.Lost), "checked by recite at PostCompact"
		}
	}
	if summary, ok := h.transcriptSummary(ctx); ok {
		return h.e.LostSignals(summary, latest.Signals), "checked by recite against the transcript's summary"
	}
	return h.e.RedactSignals(latest.Signals), "the summary could not be read, so every preserved signal is repeated"
}

// recitation is the engine's recitation block (Engine.Recitation); the
// configuration's problems are notes on res.
func (h *claudeHook) recitation(ctx context.Context, res *result) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	rec, diags, err := h.e.Recitation(ctx)
	for _, d := range diags {
		res.notef("SessionStart: %s", d)
	}
	h.recited = rec
	return rec, err
}

// deliveredKind names the session's state file of the stop signals its
// context holds (.planning/.recite/hooks/ID.signals.json).
const deliveredKind = "signals"

// deliveredState is what the session's context holds of the stop
// signals since its last compaction: the keys (signalKey) of those a
// SessionStart printed or a compaction summary kept.
type deliveredState struct {
	Keys []string `json:"keys"`
}

// signalKey identifies a stop signal across sessions: its kind and hash.
func signalKey(s signals.Signal) string { return string(s.Kind) + ":" + s.Hash }

// notHeld returns the signals of sigs the resumed session's context does
// not hold: neither given to it since its last compaction (deliveredState)
// nor seen in its own conversation (a tool result of the session itself
// is in its context).
func (h *claudeHook) notHeld(sigs []signals.Signal) []signals.Signal {
	if h.conv == "" {
		return sigs
	}
	var st deliveredState
	h.readState(deliveredKind, &st)
	own := layout.ConversationLog(h.conv) + "#"
	var out []signals.Signal
	for _, s := range sigs {
		if slices.Contains(st.Keys, signalKey(s)) || strings.HasPrefix(s.Source, own) {
			continue
		}
		out = append(out, s)
	}
	return out
}

// printed returns the signals of sigs whose key line (else first line)
// out shows: what the fitted output gave the context.
func printed(sigs []signals.Signal, out string) []signals.Signal {
	var got []signals.Signal
	for _, s := range sigs {
		key := strings.TrimSpace(s.KeyLine)
		if key == "" {
			key, _, _ = strings.Cut(strings.TrimSpace(s.Text), "\n")
		}
		if key != "" && strings.Contains(out, key) {
			got = append(got, s)
		}
	}
	return got
}

// noteDelivered records that the session's context now holds sigs: in
// place of what it held (reset: a new context, or one a compaction
// summary replaced), or beside it (a resume).
func (h *claudeHook) noteDelivered(ctx context.Context, res *result, sigs []signals.Signal, reset bool) {
	if h.conv == "" {
		return
	}
	err := h.locked(ctx, func() error {
		var st deliveredState
		if !reset {
			h.readState(deliveredKind, &st)
		}
		for _, s := range sigs {
			if k := signalKey(s); !slices.Contains(st.Keys, k) {
				st.Keys = append(st.Keys, k)
			}
		}
		if st.Keys == nil {
			st.Keys = []string{}
		}
		return h.writeState(deliveredKind, st)
	})
	if err != nil {
		res.notef("SessionStart: signals given: %v", err)
	}
}

package claudecode

import (
	"context"
	"errors"
	"fmt"
	"slices"

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
			return nil
		}
		// Out of time before the summary is checked: the whole block.
		h.partial.set(fitOutput(leadCompactPartial, "", latest, h.limit()))
		lost, how := h.lostInCompaction(ctx, raw)
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
	if summary, ok := transcriptCompactSummary(ctx, h.ev.TranscriptPath); ok {
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

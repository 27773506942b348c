package signals

import (
	"testing"
	"time"
)

// TestWorkingStateRoundTrip checks that every Working State field written by
// RenderBlock, the current task included, is read back by ParseBlocks.
func TestWorkingStateRoundTrip(t *testing.T) {
	b := Block{
		Timestamp:     time.Date(2026, 2, 7, 10, 0, 0, 0, time.UTC),
		Trigger:       TriggerManual,
		Task:          "Phase 2 of 3: Stripe Sync · Plan 2-01 · Next: page through paid invoices",
		FilesModified: []string{"src/a.go", "b c.md"},
		LastChange:    "src/a.go:12",
		Hypothesis:    "the pool never connects",
		Confidence:    40,
	}
	blocks, diags := ParseBlocks("context-preserved.md", []byte(RenderBlock(b)))
	if len(diags) != 0 || len(blocks) != 1 {
		t.Fatalf("blocks %d, diags %v", len(blocks), diags)
	}
	got := blocks[0]
	if got.Task != b.Task || got.LastChange != b.LastChange || got.Hypothesis != b.Hypothesis || got.Confidence != b.Confidence {
		t.Errorf("working state = %+v, want %+v", got, b)
	}
	if len(got.FilesModified) != 2 || got.FilesModified[1] != "b c.md" {
		t.Errorf("files = %q", got.FilesModified)
	}
}

// TestEvaluateUnknownCounts: a loop's resume table has no Files Changed or
// Output Lines column (planning reports -1); such rows must neither reset
// nor count the stall counter, nor read as a 100% output decline.
func TestEvaluateUnknownCounts(t *testing.T) {
	its := []IterationRecord{
		{N: 1, FilesChanged: 3, OutputLines: 150},
		{N: 2, FilesChanged: 2, OutputLines: 138},
		{N: 3, FilesChanged: 1, OutputLines: 139},
		{N: 4, FilesChanged: 0, OutputLines: 61},
		{N: 5, FilesChanged: 0, OutputLines: 40},
		{N: 6, FilesChanged: -1, OutputLines: -1},
		{N: 7, FilesChanged: -1, OutputLines: -1},
	}
	h := Evaluate(its, DefaultThresholds())
	if h.StallCount != 2 {
		t.Errorf("stall = %d, want 2 (unknown rows skipped)", h.StallCount)
	}
	// Baseline (150+138+139)/3 = 142.33; last known 40 → 71%.
	if h.DeclinePct != 71 || h.Breaker != BreakerTripped || h.State != HealthDegraded {
		t.Errorf("decline %d%% breaker %s state %s, want 71%% TRIPPED DEGRADED", h.DeclinePct, h.Breaker, h.State)
	}
	// An unknown row after a change keeps the change visible.
	h = Evaluate([]IterationRecord{{N: 1, FilesChanged: 0}, {N: 2, FilesChanged: 0}, {N: 3, FilesChanged: 0}, {N: 4, FilesChanged: 2}, {N: 5, FilesChanged: -1}}, DefaultThresholds())
	if h.StallCount != 0 {
		t.Errorf("stall after a change = %d, want 0", h.StallCount)
	}
}

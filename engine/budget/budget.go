// Package budget counts tokens with a real BPE tokenizer and measures a
// prompt against its token budget.
//
// Counts come from github.com/tiktoken-go/tokenizer (OpenAI's o200k_base by
// default, or cl100k_base), not from a characters/4 estimate, which is off by
// −24% to +20% on the content recite handles (docs/providers.md#token-counting). Claude and
// Gemini use tokenizers of their own, so for them the counts are a close
// proxy, not exact.
//
// A Counter caches counts by content hash, so an unchanged section is never
// re-tokenised: in memory for the life of the process and, when given a
// folder (the engine passes .planning/.recite), on disk across processes
// (see docs/formats.md#token-count-cache). Under that cache, it keeps the
// counts of the pieces the tokenizer's pre-tokenizer splits texts into (BPE
// merges within a piece, so a text's count is the sum of its pieces'
// counts; docs/providers.md#token-counting), so a text edited into pieces
// seen before is counted without the tokenizer. It builds its codec (which
// compiles a split regexp and initialises an 8 MB vocabulary) only when a
// text must actually be tokenised, so a build whose counts all come from
// the caches never builds one.
package budget

import "fmt"

// Status is a prompt's standing against its token budget.
type Status string

// The statuses, by increasing severity (docs/architecture.md#words).
const (
	OK       Status = "OK"
	Warning  Status = "WARNING"
	Critical Status = "CRITICAL"
)

// Thresholds are fractions of the budget at which the status changes.
// The defaults are 0.70 and 0.85 (fire-flow's context budget checks).
type Thresholds struct {
	// Warning is the fraction of a target's budget (above 0, at most 1)
	// at which its status turns WARNING (default 0.70).
	Warning float64 `yaml:"warning" json:"warning"`
	// Critical is the fraction of the budget (at least Warning, at most
	// 1) at which the status turns CRITICAL (default 0.85).
	Critical float64 `yaml:"critical" json:"critical"`
}

// DefaultThresholds returns WARNING at 70% and CRITICAL at 85%.
func DefaultThresholds() Thresholds { return Thresholds{Warning: 0.70, Critical: 0.85} }

// Validate reports thresholds outside 0 < warning <= critical <= 1.
func (t Thresholds) Validate() error {
	if !(t.Warning > 0 && t.Warning <= t.Critical && t.Critical <= 1) {
		return fmt.Errorf("thresholds must satisfy 0 < warning <= critical <= 1, got warning %.2f, critical %.2f", t.Warning, t.Critical)
	}
	return nil
}

// Classify returns the status of used tokens against a budget of window
// tokens.
func (t Thresholds) Classify(used, window int) Status {
	if window <= 0 {
		return Critical
	}
	f := float64(used) / float64(window)
	switch {
	case f >= t.Critical:
		return Critical
	case f >= t.Warning:
		return Warning
	default:
		return OK
	}
}

package config

import "github.com/recite-dev/recite/engine/history"

// History configures conversation pruning (engine/history).
type History struct {
	// Strategy is window (default), tokens, summary or importance.
	Strategy string `yaml:"strategy"`
	// Window is the most messages the window strategy keeps (default
	// DefaultWindow): its high-water mark, with HighWater.
	Window int `yaml:"window"`
	// Tokens is the token budget of the tokens strategy.
	Tokens int `yaml:"tokens"`
	// Keep is the K of the importance strategy (default 200) and the
	// number of recent messages kept verbatim by the summary strategy
	// (default 100): their high-water marks, with HighWater.
	Keep int `yaml:"keep"`
	// Summarizer is a command (stdin to stdout) for the summary strategy;
	// "" uses the built-in extractive summary.
	Summarizer string `yaml:"summarizer"`
	// HighWater is the share of the strategy's size (window, tokens or
	// keep) at which the kept messages are evicted (default 1.0): the
	// high-water mark of cache-aware eviction.
	HighWater float64 `yaml:"high_water"`
	// LowWater is the share of the high-water mark an eviction keeps
	// (default 0.5); 1 evicts one message at a time, the sliding window
	// that rewrites the prompt cache on every turn.
	LowWater float64 `yaml:"low_water"`
}

// DefaultWindow is history.window when unset: the window strategy's
// high-water mark in messages (history.DefaultWindow).
const DefaultWindow = history.DefaultWindow

// Default marks of cache-aware eviction (docs/formats.md#cache-aware-eviction).
const (
	DefaultHighWater = 1.0
	DefaultLowWater  = 0.5
)

// Marks returns the high- and low-water marks for a strategy of the given
// size (messages or tokens): HighWater of size, at least 1, and LowWater
// of that, below it; a share out of (0, 1] takes its default.
func (h History) Marks(size int) (high, low int) {
	hw := h.HighWater
	if hw <= 0 || hw > 1 {
		hw = DefaultHighWater
	}
	high = max(1, int(float64(size)*hw+0.5))
	lw := h.LowWater
	if lw <= 0 || lw > 1 {
		lw = DefaultLowWater
	}
	return high, max(0, min(int(float64(high)*lw), high-1))
}

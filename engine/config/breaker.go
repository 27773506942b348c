package config

import "github.com/recite-dev/recite/engine/signals"

// CircuitBreaker is the `circuit_breaker` block of recite.yaml: the
// loop-health thresholds of docs/formats.md#circuit-breaker. Preset picks fire-flow's
// defaults (stall 3/5, spin 3/5, output decline 50%/70%, baseline 3
// iterations), its `--aggressive` variant or `/fire-debug`'s relaxed stall
// (see signals.Preset); each threshold key set to a positive number
// overrides the preset's value:
//
//	circuit_breaker:
//	  preset: default          # default | aggressive | debug
//	  stall_warning: 3         # iterations without a changed file
//	  stall_break: 5
//	  spin_warning: 3          # occurrences of the same normalised error
//	  spin_break: 5
//	  decline_warning_pct: 50  # output lines below the baseline, percent
//	  decline_break_pct: 70
//	  baseline_iterations: 3
type CircuitBreaker struct {
	// Preset is default (when empty), aggressive or debug.
	Preset string `yaml:"preset" json:"preset"`
	// Thresholds override the preset; zero keeps the preset's value.
	signals.Thresholds `yaml:",inline"`
}

// fill sets defaults for zero values: the default preset.
func (x *CircuitBreaker) fill() {
	if x.Preset == "" {
		x.Preset = "default"
	}
}

// validate reports a WARNING threshold above its BREAK threshold, at the
// line of `circuit_breaker` (the preset and each value's range are checked
// where they are written: rules).
func (x *CircuitBreaker) validate(fail failFunc) {
	eff := x.Effective()
	for _, c := range []struct {
		name      string
		warn, brk int
	}{
		{"stall", eff.StallWarning, eff.StallBreak},
		{"spin", eff.SpinWarning, eff.SpinBreak},
		{"decline", eff.DeclineWarningPct, eff.DeclineBreakPct},
	} {
		if c.warn > c.brk {
			fail("circuit_breaker", "circuit_breaker: %s warning threshold %d is above its break threshold %d", c.name, c.warn, c.brk)
		}
	}
}

// Effective returns the thresholds in force: the preset's, with every
// positive field of the block overriding it. An unknown preset (rejected by
// Parse) falls back to the defaults.
func (x CircuitBreaker) Effective() signals.Thresholds {
	th, _ := signals.Preset(x.Preset)
	return th.Overlay(x.Thresholds)
}

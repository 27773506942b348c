package config

import "github.com/recite-dev/recite/engine/signals"

// CircuitBreaker is the `circuit_breaker` block of recite.yaml: the
// loop-health thresholds of FORMATS.md §2.13. Preset picks fire-flow's
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

// validate reports an unknown preset, a negative threshold or a WARNING
// threshold above its BREAK threshold, at the line of `circuit_breaker`.
func (x *CircuitBreaker) validate(fail failFunc) error {
	if _, ok := signals.Preset(x.Preset); !ok {
		return fail("circuit_breaker", "circuit_breaker.preset %q: want default, aggressive or debug", x.Preset)
	}
	th := x.Thresholds
	fields := []struct {
		key string
		v   int
		pct bool
	}{
		{"stall_warning", th.StallWarning, false}, {"stall_break", th.StallBreak, false},
		{"spin_warning", th.SpinWarning, false}, {"spin_break", th.SpinBreak, false},
		{"decline_warning_pct", th.DeclineWarningPct, true}, {"decline_break_pct", th.DeclineBreakPct, true},
		{"baseline_iterations", th.BaselineIterations, false},
	}
	for _, f := range fields {
		if f.v < 0 {
			return fail("circuit_breaker", "circuit_breaker.%s must not be negative (got %d)", f.key, f.v)
		}
	}
	for _, f := range fields {
		if f.pct && f.v > 100 {
			return fail("circuit_breaker", "circuit_breaker.%s is a percentage (got %d)", f.key, f.v)
		}
	}
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
			return fail("circuit_breaker", "circuit_breaker: %s warning threshold %d is above its break threshold %d", c.name, c.warn, c.brk)
		}
	}
	return nil
}

// Effective returns the thresholds in force: the preset's, with every
// positive field of the block overriding it. An unknown preset (rejected by
// Parse) falls back to the defaults.
func (x CircuitBreaker) Effective() signals.Thresholds {
	th, _ := signals.Preset(x.Preset)
	return th.Overlay(x.Thresholds)
}

package config

import (
	"errors"
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine/signals"
)

func TestCircuitBreakerBlock(t *testing.T) {
	def := signals.DefaultThresholds()
	aggr, _ := signals.Preset("aggressive")
	dbg, _ := signals.Preset("debug")
	withSpin := def
	withSpin.SpinWarning, withSpin.SpinBreak = 4, 6
	aggrStall := aggr
	aggrStall.StallBreak = 4
	tests := []struct {
		name string
		yaml string
		want signals.Thresholds
	}{
		{"absent", "", def},
		{"default preset", "circuit_breaker:\n  preset: default\n", def},
		{"aggressive", "circuit_breaker:\n  preset: aggressive\n", aggr},
		{"debug", "circuit_breaker:\n  preset: debug\n", dbg},
		{"override on default", "circuit_breaker:\n  spin_warning: 4\n  spin_break: 6\n", withSpin},
		{"override on a preset", "circuit_breaker:\n  preset: aggressive\n  stall_break: 4\n", aggrStall},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse("recite.yaml", []byte("context_window: 1000\n"+tt.yaml))
			if err != nil {
				t.Fatal(err)
			}
			if got := c.CircuitBreaker.Effective(); got != tt.want {
				t.Errorf("Effective() = %+v, want %+v", got, tt.want)
			}
		})
	}
}

func TestCircuitBreakerErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
		line             int
	}{
		{"unknown preset", "context_window: 1000\ncircuit_breaker:\n  preset: turbo\n", `circuit_breaker.preset: expected default, aggressive or debug, got "turbo"`, 3},
		{"unknown key", "circuit_breaker:\n  stall_warn: 3\n", `unknown key "stall_warn"`, 2},
		{"negative", "tokenizer: o200k_base\n\ncircuit_breaker:\n  spin_break: -1\n", "circuit_breaker.spin_break: expected a whole number of occurrences, 0 or more, got -1 (example: spin_break: 5)", 4},
		{"warning above break", "circuit_breaker:\n  stall_warning: 6\n", "stall warning threshold 6 is above its break threshold 5", 1},
		{"percent", "circuit_breaker:\n  decline_break_pct: 170\n", "circuit_breaker.decline_break_pct: expected a whole number of percent from 0 to 100, got 170", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("recite.yaml", []byte(tt.yaml))
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if !strings.Contains(ce.Msg, tt.want) || ce.Line != tt.line {
				t.Errorf("err = %v (line %d), want %q at line %d", err, ce.Line, tt.want, tt.line)
			}
		})
	}
}

// TestTemplateBreakerBlock uncomments the circuit_breaker block of the
// init template (templates/init/recite.yaml) and checks that it parses to
// the defaults it documents.
func TestTemplateBreakerBlock(t *testing.T) {
	src := templateBlock(t, "circuit_breaker")
	c, err := Parse("recite.yaml", []byte(src))
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if c.CircuitBreaker.Effective() != signals.DefaultThresholds() || c.CircuitBreaker.Preset != "default" {
		t.Errorf("%+v", c.CircuitBreaker)
	}
}

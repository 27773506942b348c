package config

import (
	"strings"
	"testing"
)

// TestHooksBlock: hooks.recite_every defaults to DefaultReciteEvery, 0
// turns it off, and a value that is not a whole number of prompts, or a
// negative one, is an error at the value's line.
func TestHooksBlock(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		every     int
		err       string
	}{
		{name: "default", src: "context_window: 1000\n", every: DefaultReciteEvery},
		{name: "empty block", src: "hooks: {}\n", every: DefaultReciteEvery},
		{name: "set", src: "hooks:\n  recite_every: 3\n", every: 3},
		{name: "off", src: "hooks:\n  recite_every: 0\n", every: 0},
		{name: "every prompt", src: "hooks:\n  recite_every: 1\n", every: 1},
		{name: "negative", src: "tokenizer: o200k_base\nhooks:\n  recite_every: -2\n", err: "recite.yaml:3: hooks.recite_every: expected a whole number of prompts, 0 or more (0 turns the recitation at prompts off), got -2 (example: recite_every: 5)"},
		{name: "word", src: "hooks:\n  recite_every: often\n", err: "recite.yaml:2: hooks.recite_every: expected a whole number of prompts, 0 or more (0 turns the recitation at prompts off), got \"often\" (example: recite_every: 5)"},
		{name: "fraction", src: "hooks:\n\n  recite_every: 2.5\n", err: "recite.yaml:3: hooks.recite_every: expected a whole number of prompts, 0 or more (0 turns the recitation at prompts off), got 2.5"},
		{name: "list", src: "hooks:\n  recite_every: [1]\n", err: "recite.yaml:2: hooks.recite_every"},
		{name: "unknown key", src: "hooks:\n  recite_evry: 2\n", err: `recite.yaml:2: unknown key "recite_evry"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse("recite.yaml", []byte(tc.src))
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want prefix %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Hooks.Every(); got != tc.every {
				t.Errorf("recite_every %d, want %d", got, tc.every)
			}
		})
	}
	if got := Default().Hooks.Every(); got != DefaultReciteEvery {
		t.Errorf("Default recite_every %d, want %d", got, DefaultReciteEvery)
	}
}

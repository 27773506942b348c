package config

import (
	"strings"
	"testing"
)

func TestCompressionDefaults(t *testing.T) {
	c := Default().Compression
	if !c.CompressionOn() || c.Every != 3 || c.Summarizer != "" {
		t.Errorf("defaults: %+v", c)
	}
	if got := strings.Join(c.Difficulty.Simple.Omit, ","); got != "learnings,directives,rewards" {
		t.Errorf("simple omits %q", got)
	}
	if *c.Difficulty.Simple.DoubleCheck || *c.Difficulty.Moderate.DoubleCheck || !*c.Difficulty.Complex.DoubleCheck {
		t.Error("only COMPLEX adds the double-check by default")
	}
}

func TestCompressionParse(t *testing.T) {
	tests := []struct {
		name, yaml, err string
		check           func(t *testing.T, c Compression)
	}{
		{name: "custom", yaml: "compression:\n  enabled: false\n  every: 5\n  summarizer: ./sum.sh\n  difficulty:\n    simple:\n      omit: []\n    complex:\n      omit: [file-tree]\n      double_check: false\n",
			check: func(t *testing.T, c Compression) {
				if c.CompressionOn() || c.Every != 5 || c.Summarizer != "./sum.sh" {
					t.Errorf("%+v", c)
				}
				if len(c.Difficulty.Simple.Omit) != 0 || c.Difficulty.Complex.Omit[0] != "file-tree" || *c.Difficulty.Complex.DoubleCheck {
					t.Errorf("policies %+v", c.Difficulty)
				}
			}},
		{name: "negative every", yaml: "context_window: 1000\ncompression:\n  every: -1\n", err: `.planning/recite.yaml:3: compression.every: expected a positive whole number of iterations, got -1 (example: every: 3)`},
		{name: "omit the recitation", yaml: "compression:\n  difficulty:\n    simple:\n      omit: [recitation]\n", err: `.planning/recite.yaml:4: compression.difficulty.simple.omit[0]: expected learnings, directives, rewards, epic, loop, file-tree, files or skills, got "recitation"`},
		{name: "unknown key", yaml: "compression:\n  evry: 3\n", err: `.planning/recite.yaml:2: unknown key "evry" in compression: did you mean every?`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse(FileName, []byte(tt.yaml))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c.Compression)
		})
	}
}

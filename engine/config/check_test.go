package config

import (
	"bytes"
	"errors"
	"testing"
)

// TestParseErrorLines: every recite.yaml error carries the line of the
// problem (tabs, binary content, invalid UTF-8, parser errors, which
// yaml.v3 numbers from 0 or leaves out), and negative durations, zero
// intervals and negative sizes are rejected at the key's line.
func TestParseErrorLines(t *testing.T) {
	for _, tc := range []struct {
		name, src string
		line      int
		msg       string
	}{
		// Lines yaml.v3 gets wrong or leaves out.
		{"tab indenting a list", "targets:\n\t- name: x\n", 2, "found character that cannot start any token"},
		{"tab on line 1", "\tcontext_window: 1\n", 1, "found character that cannot start any token"},
		{"tab in a later line", "x: 1\ncontext_window: 1\n\thistory: 2\n", 3, "found a tab character that violates indentation"},
		{"NUL byte", "context_window: 1000\ntokenizer: o200k_base\n\x00\x01binary\n", 3, "control characters are not allowed"},
		{"escape sequence", "\x1b[0mcontext_window: 1\n", 1, "control characters are not allowed"},
		{"invalid UTF-8", "context_window: 1\n\xff\n", 2, "invalid leading UTF-8 octet"},
		{"UTF-16", "\xff\xfe\n", 1, "incomplete UTF-16 character"},
		{"flow sequence", "context_window: 1\ntargets: [a\n", 2, "did not find expected ',' or ']'"},
		{"flow sequence deeper", "context_window: 1\n\ntargets:\n  - name: [x\n", 4, "did not find expected ',' or ']'"},
		{"under-indented key", "context_window: 1\nhistory:\n  window: 3\n keep: 2\n", 4, "did not find expected key"},
		{"value on line 1", "a: b: c\n", 1, "mapping values are not allowed in this context"},
		{"duplicate key", "context_window: 1\ncontext_window: 2\n", 2, `mapping key "context_window" already defined at line 1`},
		// Negative durations and zero intervals, at the key's line.
		{"negative timeout", "agent:\n  command: x\n  timeout: -5s\n", 3, `agent.timeout: expected a positive duration such as 30s, 10m or 1h, got "-5s" (example: timeout: 10m)`},
		{"zero timeout", "agent:\n  timeout: 0s\n", 2, `agent.timeout: expected a positive duration such as 30s, 10m or 1h, got "0s" (example: timeout: 10m)`},
		{"zero commit interval", "watch:\n  quiet: 10ms\n  commit_interval: 0s\n", 3, `watch.commit_interval: expected a positive duration such as 30s, 10m or 1h, got "0s"`},
		{"negative commit interval", "watch:\n  quiet: 10ms\n  commit_interval: -1m\n", 3, `watch.commit_interval: expected a positive duration such as 30s, 10m or 1h, got "-1m"`},
		{"zero quiet", "watch:\n  quiet: 0\n", 2, "watch.quiet: expected a positive duration such as 30s, 10m or 1h, got 0 (example: quiet: 50ms)"},
		{"zero max_wait", "watch:\n\n  max_wait: 0ms\n", 3, `watch.max_wait: expected a positive duration such as 30s, 10m or 1h, got "0ms"`},
		{"zero every", "compression:\n  every: 0\n", 2, "compression.every: expected a positive whole number of iterations, got 0 (example: every: 3)"},
		// Negative sizes, at the key's line.
		{"negative window", "history:\n  strategy: window\n  window: -2\n", 3, "history.window: expected a whole number of messages, 0 or more, got -2 (example: window: 20)"},
		{"negative tokens", "history:\n  tokens: -2\n", 2, "history.tokens: expected a whole number of tokens, 0 or more, got -2"},
		{"negative keep", "history:\n  keep: -1\n", 2, "history.keep: expected a whole number of messages, 0 or more, got -1"},
		{"negative file lines", "files:\n  file_max_lines: -3\n", 2, "files.file_max_lines: expected a whole number of lines, at least 10, got -3"},
		{"tree depth below -1", "files:\n  tree_depth: -2\n", 2, "files.tree_depth: expected a whole number of directory levels up to 20, or -1 for no file tree, got -2"},
		{"max files below -1", "files:\n  max_files: -5\n", 2, "files.max_files: expected a whole number of files, 0 or more, or -1 for no files section, got -5"},
		{"negative max iterations", "agent:\n  max_iterations: -1\n", 2, "agent.max_iterations: expected a whole number of iterations, 0 or more, got -1"},
		{"negative threshold", "circuit_breaker:\n  preset: default\n  stall_break: -4\n", 3, "circuit_breaker.stall_break: expected a whole number of iterations, 0 or more, got -4"},
		{"zero max_context", "targets:\n  - name: a\n  - name: b\n    capabilities:\n      ollama:\n        max_context: 0\n", 6, "targets[1].capabilities.ollama.max_context: expected a positive whole number of tokens, got 0 (example: max_context: 32768)"},
		{"zero max_output", "targets:\n  - name: a\n    capabilities:\n      anthropic: {max_output: 0}\n", 4, "targets[0].capabilities.anthropic.max_output: expected a positive whole number of tokens, got 0"},
		{"negative min_cacheable", "targets:\n  - name: a\n    capabilities:\n      anthropic:\n        min_cacheable: -1\n", 5, "targets[0].capabilities.anthropic.min_cacheable: expected a whole number of tokens, 0 or more, got -1"},
		{"negative budget", "targets:\n  - name: a\n    budget: -1\n", 3, "targets[0].budget: expected a whole number of tokens, 0 or more, got -1 (example: budget: 50000)"},
		{"negative context window", "tokenizer: o200k_base\ncontext_window: -5\n", 2, "context_window: expected a whole number of tokens, 0 or more, got -5 (example: context_window: 200000)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("recite.yaml", []byte(tc.src))
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if ce.Line != tc.line || len(ce.Msg) < len(tc.msg) || ce.Msg[:len(tc.msg)] != tc.msg {
				t.Errorf("err = %q (line %d), want line %d and %q…", err, ce.Line, tc.line, tc.msg)
			}
		})
	}
}

// TestParseValuesAccepted: the values the range checks let through, and
// that -1 still turns the file tree and the files section off.
func TestParseValuesAccepted(t *testing.T) {
	for _, src := range []string{
		"agent:\n  timeout: 1ns\nwatch:\n  quiet: 1ms\n  max_wait: 1ms\n  commit_interval: 1s\n",
		"files:\n  tree_depth: -1\n  max_files: -1\n",
		"history:\n  window: 0\n  tokens: 0\n  keep: 0\n",
		"targets:\n  - name: a\n    budget: 0\n    capabilities:\n      ollama:\n        max_context: 1\n",
		"compression:\n  every: 1\ncircuit_breaker:\n  stall_warning: 0\n",
	} {
		if _, err := Parse("recite.yaml", []byte(src)); err != nil {
			t.Errorf("%q: %v", src, err)
		}
	}
	c, err := Parse("recite.yaml", []byte("files:\n  tree_depth: -1\n  max_files: -1\n"))
	if err != nil || c.Files.TreeDepth != -1 || c.Files.MaxFiles != -1 {
		t.Errorf("tree_depth and max_files -1: %+v, %v", c, err)
	}
}

// FuzzParseErrorLine: whatever recite.yaml holds, an error is an *Error
// whose line is within the file.
func FuzzParseErrorLine(f *testing.F) {
	for _, s := range []string{
		"context_window: 1000\ntargets:\n  - name: a\n", "targets: [\n", "\tcontext_window: 1\n",
		"x: 1\n\tf: 2\n", "a: 1\n\x00\n", "\xff\xfe", "a: \xff\n", "agent:\n  timeout: -5s\n",
		"watch:\n  commit_interval: 0s\n", "compression:\n  every: 0\n", "history:\n  window: -2\n",
		"targets:\n  - name: a\n    capabilities:\n      ollama: {max_context: 0}\n", "{agent: {max_iterations: -1}}",
		"files:\n  tree_depth: -2\n", "---\na: 1\n---\nb: 2\n", "- a\n", "thresholds:\n  warning: 0.9\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		_, err := Parse("recite.yaml", src)
		if err == nil {
			return
		}
		var ce *Error
		if !errors.As(err, &ce) {
			t.Fatalf("%q: error %T %v is not *Error", src, err, err)
		}
		if lines := bytes.Count(src, []byte{'\n'}) + 1; ce.Line < 1 || ce.Line > lines {
			t.Fatalf("%q: %v: line %d outside 1..%d", src, err, ce.Line, lines)
		}
	})
}

package config

import (
	"bytes"
	"errors"
	"regexp"
	"strings"
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
		{"zero quiet", "watch:\n  quiet: 0\n", 2, "watch.quiet: expected a positive duration such as 30s, 10m or 1h, got 0 (example: quiet: 20ms)"},
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

// TestCheckEveryProblem: Check returns every problem in line order, each
// with its key, and Parse the first one with a count of the others; the
// good values around the bad ones still decode.
func TestCheckEveryProblem(t *testing.T) {
	src := "contex_window: 1000\nthresholds:\n  warning: high\ntargets:\n  - name: a\n    budget: 500\n    providers: [markdown, antropic]\n  - name: a\nhistory:\n  strategie: tokens\n"
	c, errs := Check("recite.yaml", []byte(src))
	want := []struct {
		line     int
		key, msg string
	}{
		{1, "contex_window", `unknown key "contex_window": did you mean context_window?`},
		{3, "thresholds.warning", `thresholds.warning: expected a number between 0 and 1, got "high" (example: warning: 0.70)`},
		{7, "targets[0].providers[1]", `targets[0].providers[1]: expected markdown, anthropic, openai, gemini, ollama, text, deepseek, openrouter, huggingface or replicate, got "antropic": did you mean anthropic?`},
		{8, "targets[1].name", `duplicate target name "a" (the first is at line 5)`},
		{10, "history.strategie", `unknown key "strategie" in history: did you mean strategy?`},
	}
	if len(errs) != len(want) {
		t.Fatalf("%d problems, want %d: %v", len(errs), len(want), errs)
	}
	for i, w := range want {
		if e := errs[i]; e.Line != w.line || e.Key != w.key || e.Msg != w.msg || e.Path != "recite.yaml" {
			t.Errorf("problem %d = %+v, want %+v", i, *e, w)
		}
	}
	if c == nil || c.Targets[0].Budget != 500 || strings.Join(c.Targets[0].Providers, ",") != "markdown" || c.Thresholds.Critical != 0.85 {
		t.Errorf("the good values did not decode: %+v", c)
	}
	if c.KeyLine("targets[0].budget") != 6 || c.KeyLine("targets[1].model") != 8 || c.KeyLine("agent.timeout") != 0 {
		t.Errorf("KeyLine: %d %d %d", c.KeyLine("targets[0].budget"), c.KeyLine("targets[1].model"), c.KeyLine("agent.timeout"))
	}
	_, err := Parse("recite.yaml", []byte(src))
	wantErr := "recite.yaml:1: unknown key \"contex_window\": did you mean context_window?\nrecite.yaml: 4 more problems; `recite config check` lists them all"
	if err == nil || err.Error() != wantErr {
		t.Errorf("Parse: %v\nwant %s", err, wantErr)
	}
	if _, err := Parse("recite.yaml", []byte("contex_window: 1\n")); err == nil || strings.Contains(err.Error(), "more problem") {
		t.Errorf("one problem: %v", err)
	}
}

// TestCheckMessages: the message of each kind of problem.
func TestCheckMessages(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{"- a\n", `recite.yaml:1: expected a mapping of recite's keys (context_window, tokenizer, thresholds, …), got a list`},
		{"bogus: 1\n", `recite.yaml:1: unknown key "bogus" (the keys here: context_window, tokenizer, thresholds, targets, agent, history, circuit_breaker, files, compression, watch, conversations, models, hooks, providers)`},
		{"role: x\n", `recite.yaml:1: unknown key "role": it belongs under targets[]`},
		{"history:\n  models: {}\n", `recite.yaml:2: unknown key "models" in history: it belongs under targets[] or at the top level`},
		{"Context_Window: 1\n", `recite.yaml:1: unknown key "Context_Window": did you mean context_window?`},
		{"circuit: {}\n", `recite.yaml:1: unknown key "circuit": did you mean circuit_breaker?`},
		{"thresholds: high\n", `recite.yaml:1: thresholds: expected a mapping (warning, critical), got "high" (example: thresholds: {warning: 0.70, critical: 0.85})`},
		{"targets: {name: a}\n", `recite.yaml:1: targets: expected a list, got a mapping (example: targets: [{name: agent, role: implementer}])`},
		{"targets: [{name: a, system: AGENTS.md}]\n", `recite.yaml:1: targets[0].system: expected a list, got "AGENTS.md" (example: system: [AGENTS.md, CLAUDE.md])`},
		{"targets: [{name: a, system: [[x]]}]\n", `recite.yaml:1: targets[0].system[0]: expected a string, got a list (example: system: [AGENTS.md, CLAUDE.md])`},
		{"targets: [{name: a, tools: 5}]\n", `recite.yaml:1: targets[0].tools: expected a string, got 5 (quote it to mean the text: "5") (example: tools: docs/tools.md)`},
		{"targets: [{name: a, prefill: yes}]\n", `recite.yaml:1: targets[0].prefill: expected true or false, got "yes" (example: prefill: false)`},
		{"targets: [{name: a, budget: 1.5}]\n", `recite.yaml:1: targets[0].budget: expected a whole number of tokens, 0 or more, got 1.5 (example: budget: 50000)`},
		{"tokenizer:\n", `recite.yaml:1: tokenizer: expected o200k_base or cl100k_base, got nothing (example: tokenizer: o200k_base)`},
		{"agent: {timeout: 10}\n", `recite.yaml:1: agent.timeout: expected a positive duration such as 30s, 10m or 1h, got 10 (example: timeout: 10m)`},
		{"targets: [{name: a, capabilities: {olama: {}}}]\n", `recite.yaml:1: targets[0].capabilities: unknown provider "olama": did you mean ollama?`},
		{"targets: [{name: a, capabilities: {claude: {}}}]\n", `recite.yaml:1: targets[0].capabilities: unknown provider "claude" (want markdown, anthropic, openai, gemini, ollama, text, deepseek, openrouter, huggingface or replicate)`},
		{"targets: [{role: x}]\n", `recite.yaml:1: a target needs a name (example: name: agent)`},
		{"targets: [{name: a, include: [/etc/passwd]}]\n", `recite.yaml:1: targets[0].include[0]: path "/etc/passwd" must be relative to the project and stay inside it`},
		{"a: &x 1\n<<: {tokenizer: p50k}\n", `recite.yaml:1: unknown key "a"`},
	} {
		_, err := Parse("recite.yaml", []byte(tc.src))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%q:\n got %v\nwant %s", tc.src, err, tc.want)
		}
	}
}

// TestClosest: "did you mean" picks the nearest key within a few edits,
// or a key the word is a prefix of, and nothing far off.
func TestClosest(t *testing.T) {
	keys := []string{"context_window", "tokenizer", "thresholds", "targets", "circuit_breaker", "history", "watch"}
	for word, want := range map[string]string{
		"contex_window": "context_window", "context-window": "context_window", "CONTEXT_WINDOW": "context_window",
		"tokeniser": "tokenizer", "target": "targets", "treshold": "thresholds", "circuit": "circuit_breaker",
		"histroy": "history", "wacth": "watch", "window": "", "bogus": "", "x": "", "hist": "history",
	} {
		if got := closest(word, keys); got != want {
			t.Errorf("closest(%q) = %q, want %q", word, got, want)
		}
	}
}

// yamlWording matches yaml.v3's decoding errors ("cannot unmarshal !!str
// `high` into float64"), and quoted the quoted text of a message (what the
// file holds, which may itself contain "!!str").
var (
	yamlWording = regexp.MustCompile(`cannot unmarshal|!!(str|int|float|bool|null|seq|map|timestamp|binary)\b`)
	quoted      = regexp.MustCompile(`"(?:[^"\\]|\\.)*"`)
)

// FuzzCheck: Check never panics, returns its problems in line order with
// lines inside the file, never in yaml.v3's decoding words ("cannot
// unmarshal !!str `high` into float64"), and Parse's error is Check's
// first problem.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"contex_window: 1\nthresholds: {warning: high}\n", "targets: [{name: a}, {name: a}]\n", "a: &x {b: 1}\nfiles: *x\n",
		"<<: {tokenizer: x}\n", "thresholds: [1]\nagent: {timeout: 5}\nfiles: {tree_depth: x}\n", "targets:\n  - <<: {name: a}\n    budget: -1\n", "files: {task_types: {testing: [x], b: [\"[\"]}}\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		_, errs := Check("recite.yaml", src)
		lines := bytes.Count(src, []byte{'\n'}) + 1
		for i, e := range errs {
			if e.Line < 0 || e.Line > lines || i > 0 && e.Line < errs[i-1].Line {
				t.Fatalf("%q: problem %d %v: line %d out of order or outside 1..%d", src, i, e, e.Line, lines)
			}
			if yamlWording.MatchString(quoted.ReplaceAllString(e.Msg, `""`)) {
				t.Fatalf("%q: problem %d %q is yaml.v3's wording, not what the key takes", src, i, e.Msg)
			}
		}
		_, err := Parse("recite.yaml", src)
		var ce *Error
		switch {
		case len(errs) == 0 && err != nil, len(errs) > 0 && !errors.As(err, &ce):
			t.Fatalf("%q: Parse %v, Check %v", src, err, errs)
		case len(errs) > 0 && (ce.Msg != errs[0].Msg || ce.Line != errs[0].Line || ce.More != len(errs)-1):
			t.Fatalf("%q: Parse %v, Check's first %v", src, ce, errs[0])
		}
	})
}

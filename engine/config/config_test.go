package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/templates"
)

func TestDefault(t *testing.T) {
	c := Default()
	if c.ContextWindow != 200000 || c.Tokenizer != "o200k_base" || len(c.Targets) != 1 {
		t.Fatalf("unexpected default: %+v", c)
	}
	tg := c.Targets[0]
	if tg.Name != "agent" || tg.Role != "implementer" || strings.Join(tg.Providers, ",") != "markdown,anthropic,openai" {
		t.Fatalf("default target %+v", tg)
	}
	if c.Thresholds.Warning != 0.70 || c.Thresholds.Critical != 0.85 {
		t.Fatalf("thresholds %+v", c.Thresholds)
	}
}

func TestParse(t *testing.T) {
	src := "context_window: 128000\ntokenizer: cl100k_base\nthresholds:\n  warning: 0.6\n  critical: 0.8\ntargets:\n  - name: dev\n    role: reviewer\n    providers: [gemini, text]\n    budget: 50000\nagent:\n  command: cat\n  timeout: 30s\n"
	c, err := Parse("recite.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if c.ContextWindow != 128000 || c.Tokenizer != "cl100k_base" || c.Thresholds.Warning != 0.6 {
		t.Fatalf("%+v", c)
	}
	if c.Targets[0].Budget != 50000 || c.Targets[0].OpenAISystemRole != "" || c.Targets[0].MaxTokens != DefaultMaxTokens {
		t.Fatalf("%+v", c.Targets[0])
	}
	if time.Duration(c.Agent.Timeout) != 30*time.Second {
		t.Fatalf("timeout %v", c.Agent.Timeout)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"unknown top key", "context_window: 1000\nwindow: 3\n", `recite.yaml:2: unknown key "window": it belongs under history`},
		{"unknown target key", "targets:\n  - name: a\n    rol: x\n", `recite.yaml:3: unknown key "rol" in targets[0]: did you mean role?`},
		{"bad provider", "targets:\n  - name: a\n    providers: [claude]\n", `recite.yaml:3: targets[0].providers[0]: expected markdown, anthropic, openai, gemini, ollama, text, deepseek, openrouter, huggingface or replicate, got "claude"`},
		{"bad name", "targets:\n  - name: ../x\n", `recite.yaml:2: targets[0].name: expected a name of up to 64 letters, digits, '.', '_' or '-', starting with a letter or digit, got "../x" (example: name: agent)`},
		{"duplicate", "targets:\n  - name: a\n  - name: a\n", `recite.yaml:3: duplicate target name "a" (the first is at line 2)`},
		{"bad tokenizer", "tokenizer: p50k\n", `recite.yaml:1: tokenizer: expected o200k_base or cl100k_base, got "p50k"`},
		{"bad yaml", "targets: [\n", `recite.yaml:`},
		{"wrong type", "context_window: lots\n", `recite.yaml:1: context_window: expected a whole number of tokens, 0 or more, got "lots" (example: context_window: 200000)`},
		{"escaping path", "targets:\n  - name: a\n    system: [../secret.md]\n", `recite.yaml:3: targets[0].system[0]: path "../secret.md" must be relative to the project and stay inside it`},
		{"bad thresholds", "thresholds:\n  warning: 0.9\n  critical: 0.5\n", `recite.yaml:1: thresholds must satisfy`},
		{"bad duration", "agent:\n  timeout: soon\n", `recite.yaml:2: agent.timeout: expected a positive duration such as 30s, 10m or 1h, got "soon" (example: timeout: 10m)`},
		{"bad strategy", "history:\n  strategy: magic\n", `recite.yaml:2: history.strategy: expected window, tokens, summary or importance, got "magic"`},
		{"negative max_tokens", "targets:\n  - name: a\n    max_tokens: -1\n", `recite.yaml:3: targets[0].max_tokens: expected a whole number of tokens, 0 or more, got -1 (example: max_tokens: 4096)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("recite.yaml", []byte(tc.src))
			if err == nil {
				t.Fatal("no error")
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v is not *Error", err, err)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("error %q, want prefix %q", err, tc.want)
			}
		})
	}
}

func TestEmptyAndMissing(t *testing.T) {
	c, err := Parse("recite.yaml", []byte("# only a comment\n"))
	if err != nil || len(c.Targets) != 1 {
		t.Fatalf("empty file: %v %+v", err, c)
	}
	dir := t.TempDir()
	c, found, err := Load(dir)
	if err != nil || found || c.Targets[0].Name != "agent" {
		t.Fatalf("missing file: %v %v", err, found)
	}
	os.MkdirAll(filepath.Join(dir, ".planning"), 0o755)
	os.WriteFile(filepath.Join(dir, FileName), []byte("bogus: 1\n"), 0o644)
	if _, _, err := Load(dir); err == nil || !strings.Contains(err.Error(), ".planning/recite.yaml:1:") {
		t.Fatalf("want positioned error, got %v", err)
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("context_window: 1000\ntargets:\n  - name: a\n"))
	f.Add([]byte("targets: [\n"))
	f.Add([]byte("\uFEFFtokenizer: cl100k_base\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		c, err := Parse("f.yaml", src)
		if err == nil && (c == nil || len(c.Targets) == 0) {
			t.Fatal("no error but no targets")
		}
	})
}

// templateBlock returns the commented `# KEY:` block of the recite.yaml that
// `recite init` writes, uncommented, or fails t when there is none.
func templateBlock(t *testing.T, key string) string {
	t.Helper()
	text, err := templates.Init("recite.yaml", "gsd")
	if err != nil {
		t.Fatal(err)
	}
	var src strings.Builder
	in := false
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "# "+key+":") {
			in = true
		}
		if in {
			if !strings.HasPrefix(l, "# ") {
				break
			}
			src.WriteString(strings.TrimPrefix(l, "# ") + "\n")
		}
	}
	if !in {
		t.Fatalf("the init template has no commented %s block", key)
	}
	return src.String()
}

// BenchmarkParse parses the recite.yaml `recite init` writes, as every
// build, watch render and hook event does.
func BenchmarkParse(b *testing.B) {
	src, err := templates.Init("recite.yaml", "gsd")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Parse(FileName, []byte(src)); err != nil {
			b.Fatal(err)
		}
	}
}

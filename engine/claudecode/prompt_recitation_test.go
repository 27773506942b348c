package claudecode_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine/budget"
	"github.com/recite-dev/recite/engine/claudecode"
	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/internal/sharedtest"
)

// promptOutput is Claude Code's documented JSON output of a
// UserPromptSubmit hook that adds context
// (https://code.claude.com/docs/en/hooks, "UserPromptSubmit decision
// control"), decoded strictly: any other field, or another event name, is
// an error.
func promptOutput(t *testing.T, out string) string {
	t.Helper()
	if out == "" {
		return ""
	}
	if !strings.HasPrefix(out, "{") || strings.Count(out, "\n") != 1 {
		t.Fatalf("stdout is not one JSON object on one line (Claude Code parses stdout as JSON only when it starts with {):\n%s", out)
	}
	var v struct {
		HookSpecificOutput *struct {
			HookEventName     string  `json:"hookEventName"`
			AdditionalContext *string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("stdout is not the documented hook JSON: %v\n%s", err, out)
	}
	o := v.HookSpecificOutput
	if o == nil || o.HookEventName != "UserPromptSubmit" || o.AdditionalContext == nil {
		t.Fatalf("hookSpecificOutput %+v, want hookEventName UserPromptSubmit and additionalContext", o)
	}
	return *o.AdditionalContext
}

// prompts runs n UserPromptSubmit events and reports which of them (1-based
// positions) returned the recitation.
func prompts(t *testing.T, dir string, n int) []int {
	t.Helper()
	var got []int
	for i := range n {
		out, errOut := hook(t, dir, "", evPrompt, claudecode.Options{})
		if ctx := promptOutput(t, out); ctx != "" {
			got = append(got, i+1)
		}
		if errOut != "" {
			t.Errorf("prompt %d stderr: %s", i+1, errOut)
		}
	}
	return got
}

func setReciteEvery(t *testing.T, dir, yaml string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, ".planning", "recite.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPromptRecitation: UserPromptSubmit returns the recitation as
// additionalContext in Claude Code's JSON when the session was not given
// it, when it changed, and every hooks.recite_every prompts; never with 0.
func TestPromptRecitation(t *testing.T) {
	t.Run("first prompt of a session with no SessionStart", func(t *testing.T) {
		dir := enginetest.HookProject(t)
		out, _ := hook(t, dir, "", evPrompt, claudecode.Options{})
		ctx := promptOutput(t, out)
		for _, want := range []string{"recite: where this project stands now", "## Recitation", "### Task", "- Next: Page through paid invoices with the Stripe auto-pager", "### Blockers"} {
			if !strings.Contains(ctx, want) {
				t.Errorf("additionalContext lacks %q:\n%s", want, ctx)
			}
		}
		// The block's body under its heading: at most
		// prompt.RecitationMaxLines (docs/formats.md#recitation-block).
		if _, block, ok := strings.Cut(ctx, "## Recitation\n"); ok {
			if lines := strings.Count(strings.TrimSpace(block), "\n") + 1; lines > prompt.RecitationMaxLines {
				t.Errorf("recitation block of %d lines, want at most %d", lines, prompt.RecitationMaxLines)
			}
		}
		if got := claudecode.Utf16Len(ctx); got > claudecode.HookMaxOutput {
			t.Errorf("additionalContext of %d UTF-16 units, over Claude Code's %d", got, claudecode.HookMaxOutput)
		}
	})
	t.Run("every N prompts after SessionStart, and when it changed", func(t *testing.T) {
		dir := enginetest.HookProject(t)
		setReciteEvery(t, dir, "hooks:\n  recite_every: 3\n")
		hook(t, dir, "", evStartup, claudecode.Options{})
		if got := prompts(t, dir, 7); !slices.Equal(got, []int{3, 6}) {
			t.Errorf("recitation at prompts %v, want [3 6] (SessionStart gave it; then every third)", got)
		}
		p := filepath.Join(dir, ".planning", "BLOCKERS.md")
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		b = bytes.Replace(b, []byte("Integration tests cannot reach Postgres"), []byte("Integration tests cannot reach the database"), 1)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		out, _ := hook(t, dir, "", evPrompt, claudecode.Options{})
		if ctx := promptOutput(t, out); !strings.Contains(ctx, "cannot reach the database") {
			t.Errorf("a changed recitation was not injected: %q", ctx)
		}
		if got := prompts(t, dir, 3); !slices.Equal(got, []int{3}) {
			t.Errorf("after the change, recitation at prompts %v, want [3]", got)
		}
	})
	t.Run("after a compaction the next prompt has it", func(t *testing.T) {
		dir := enginetest.HookProject(t)
		setReciteEvery(t, dir, "hooks:\n  recite_every: 5\n")
		hook(t, dir, "", evStartup, claudecode.Options{})
		if got := prompts(t, dir, 2); len(got) != 0 {
			t.Errorf("recitation at prompts %v, want none", got)
		}
		hook(t, dir, "", evCompact, claudecode.Options{})
		if got := prompts(t, dir, 2); !slices.Equal(got, []int{1}) {
			t.Errorf("after the compaction, recitation at prompts %v, want [1]", got)
		}
	})
	t.Run("recite_every 0 turns it off", func(t *testing.T) {
		dir := enginetest.HookProject(t)
		setReciteEvery(t, dir, "hooks:\n  recite_every: 0\n")
		if got := prompts(t, dir, 4); len(got) != 0 {
			t.Errorf("recitation at prompts %v, want none", got)
		}
	})
	t.Run("sessions are counted apart", func(t *testing.T) {
		dir := enginetest.HookProject(t)
		hook(t, dir, "", evStartup, claudecode.Options{})
		other := strings.Replace(evPrompt, `"abc123"`, `"other-session"`, 1)
		out, _ := hook(t, dir, "", other, claudecode.Options{})
		if promptOutput(t, out) == "" {
			t.Error("another session's first prompt got no recitation")
		}
		if got := prompts(t, dir, 1); len(got) != 0 {
			t.Errorf("the first session's prompt got the recitation again: %v", got)
		}
	})
}

// BenchmarkPromptRecitationTokens measures what the per-prompt recitation
// costs a session of each bundled example: SessionStart, then 20 prompts
// with the default hooks.recite_every and the plan unchanged. It reports
// the tokens of the additionalContext (o200k_base, the default
// tokenizer), the injections, and the tokens added per prompt (tokens ×
// injections / prompts); the README quotes these figures.
func BenchmarkPromptRecitationTokens(b *testing.B) {
	counter, err := budget.NewCounter("o200k_base")
	if err != nil {
		b.Fatal(err)
	}
	const n = 20
	for _, name := range []string{"fire", "gsd"} {
		b.Run(name, func(b *testing.B) {
			var tokens, injections int
			for b.Loop() {
				dir := enginetest.CopyTree(b, filepath.Join(sharedtest.ModuleRoot(), "examples", name))
				hook(b, dir, "", evStartup, claudecode.Options{})
				tokens, injections = 0, 0
				for range n {
					out, _ := hook(b, dir, "", evPrompt, claudecode.Options{})
					if out == "" {
						continue
					}
					var v struct {
						Out struct {
							Context string `json:"additionalContext"`
						} `json:"hookSpecificOutput"`
					}
					if err := json.Unmarshal([]byte(out), &v); err != nil {
						b.Fatal(err)
					}
					tokens, injections = counter.Count(v.Out.Context), injections+1
				}
			}
			if injections != n/config.DefaultReciteEvery {
				b.Errorf("%d injections in %d prompts, want %d", injections, n, n/config.DefaultReciteEvery)
			}
			b.ReportMetric(float64(tokens), "tokens/injection")
			b.ReportMetric(float64(injections), "injections")
			b.ReportMetric(float64(tokens*injections)/n, "tokens/prompt")
		})
	}
}

package economics

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMinCacheable(t *testing.T) {
	tests := []struct {
		provider, model string
		want            int
	}{
		{"anthropic", "", 1024},
		{"anthropic", "claude-sonnet-4-5", 1024},
		{"anthropic", "claude-opus-4-1", 1024},
		{"anthropic", "claude-3-5-haiku-latest", 2048},
		{"anthropic", "claude-haiku-4-5", 4096},
		{"anthropic", "claude-haiku-4.5", 4096},
		{"anthropic", "claude-opus-4-6", 4096},
		{"anthropic", "claude-opus-4-7", 2048},
		{"anthropic", "claude-opus-5", 512},
		{"openai", "gpt-4o", 1024},
		{"gemini", "", 4096}, // gemini-3.8-flash
		{"gemini", "gemini-2.5-flash", 2048},
		{"gemini", "gemini-3-pro", 4096},
		{"ollama", "llama3", 0},
		{"markdown", "", 0},
	}
	for _, tt := range tests {
		if got := MinCacheable(tt.provider, tt.model); got != tt.want {
			t.Errorf("MinCacheable(%s, %q) = %d, want %d", tt.provider, tt.model, got, tt.want)
		}
	}
}

func TestRenderHistoryBounded(t *testing.T) {
	dir := t.TempDir()
	for i := 0; i < MaxRenders+7; i++ {
		if err := AppendRenders(dir, []RenderRecord{{Time: "t", Target: fmt.Sprintf("t%d", i), Provider: "anthropic"}}); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := RenderHistory(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != MaxRenders || recs[0].Target != "t7" || recs[len(recs)-1].Target != fmt.Sprintf("t%d", MaxRenders+6) {
		t.Errorf("history %d records from %s, want the last %d", len(recs), recs[0].Target, MaxRenders)
	}
	// A torn line costs one record, not the history.
	p := filepath.Join(dir, filepath.FromSlash(RendersFile))
	b, _ := os.ReadFile(p)
	os.WriteFile(p, append(b, []byte(`{"time":"x","target":"torn`)...), 0o644)
	if recs, err := RenderHistory(dir); err != nil || len(recs) != MaxRenders {
		t.Errorf("after a torn line: %d records, %v", len(recs), err)
	}
}

func FuzzParseRenders(f *testing.F) {
	f.Add([]byte(`{"time":"2026-01-01T00:00:00Z","target":"agent","provider":"anthropic","bytes":10,"tokens":3}` + "\n"))
	f.Add([]byte("{}\n\n{\"target\":1}\nnot json\n"))
	f.Add([]byte(strings.Repeat("x", 70000)))
	f.Fuzz(func(t *testing.T, b []byte) {
		recs := ParseRenders(b)
		for _, r := range recs {
			if r.Target == "" {
				t.Fatal("record without a target")
			}
		}
	})
}

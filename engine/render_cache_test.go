package engine

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recite-dev/recite/internal/sharedtest"
)

// TestRenderCache: a rebuild renders only the bodies whose prompt changed,
// and a cached body is byte-identical to a fresh render.
func TestRenderCache(t *testing.T) {
	dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	e := New(dir)
	ctx := context.Background()
	if _, err := e.Build(ctx); err != nil {
		t.Fatal(err)
	}
	first := e.renderCalls
	if first == 0 {
		t.Fatal("the first build rendered nothing")
	}
	if _, err := e.Build(ctx); err != nil {
		t.Fatal(err)
	}
	if n := e.renderCalls - first; n != 0 {
		t.Errorf("an unchanged rebuild rendered %d bodies, want 0", n)
	}
	state := filepath.Join(dir, ".planning", "STATE.md")
	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(state, []byte(strings.Replace(string(b), "Stopped at: Completed", "Stopped at: (edited) Completed", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	before := e.renderCalls
	if _, err := e.Build(ctx); err != nil {
		t.Fatal(err)
	}
	if n := e.renderCalls - before; n != first {
		t.Errorf("a STATE.md edit rendered %d bodies, want %d (every provider of the target)", n, first)
	}
	for _, prov := range []string{"markdown", "anthropic", "openai"} {
		cached, err := e.Render(ctx, "agent", prov)
		if err != nil {
			t.Fatal(err)
		}
		fresh, err := New(dir).Render(ctx, "agent", prov)
		if err != nil {
			t.Fatal(err)
		}
		if string(cached) != string(fresh) {
			t.Errorf("%s: cached body differs from a fresh render", prov)
		}
	}
}

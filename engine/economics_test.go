package engine

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/recite-dev/recite/internal/sharedtest"
)

// builtThenEdited copies the fire-flow example with one target writing
// providers, builds it, then edits the state file (CONSCIENCE.md, semi
// tier) without rebuilding.
func builtThenEdited(t *testing.T, providers string) *Engine {
	t.Helper()
	dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "fire"))
	cfg := "targets:\n  - name: agent\n    providers: [" + providers + "]\n"
	if err := os.WriteFile(filepath.Join(dir, ".planning", "recite.yaml"), []byte(cfg), 0o644); err != nil {
		t.Fatal(err)
	}
	e := New(dir)
	if _, err := e.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	// "Stopped at" is in the state snapshot (semi tier); the last activity
	// is recited after the conversation and would not move the semi block.
	if err := replaceIn(dir, ".planning/CONSCIENCE.md", "**Stopped at:** ", "**Stopped at:** edited; "); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestCacheEconomics builds the fire-flow example twice around one edit of
// the state file (semi tier) and checks the predicted cached tokens: for
// Anthropic the stable tier only (the edit moved the semi block), for
// OpenAI the unchanged prefix; and that each build that changed a file
// appended one record to the bounded render history.
func TestCacheEconomics(t *testing.T) {
	e := builtThenEdited(t, "markdown, anthropic, openai, gemini")
	ctx := context.Background()
	rep, err := e.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tr := rep.Targets[0]
	got := map[string]*CacheEconomics{}
	for _, f := range tr.Files {
		got[f.Provider] = f.Cache
	}
	a := got["anthropic"]
	if a == nil || a.Caching != "breakpoints" || a.Breakpoints != 2 || a.MinCacheable != 1024 {
		t.Fatalf("anthropic economics %+v", a)
	}
	if a.CachedTokens != tr.StableTokens {
		t.Errorf("anthropic cached %d tokens, want the stable tier's %d", a.CachedTokens, tr.StableTokens)
	}
	if a.PrefixBytes <= 0 || a.PrefixBytes >= tr.Files[1].Bytes {
		t.Errorf("anthropic prefix %d of %d bytes, want a partial prefix", a.PrefixBytes, tr.Files[1].Bytes)
	}
	if o := got["openai"]; o.Caching != "automatic" || o.CachedTokens != o.PrefixTokens || o.CachedTokens < 1024 {
		t.Errorf("openai economics %+v", o)
	}
	if g := got["gemini"]; g.Caching != "implicit" || g.MinCacheable != 4096 {
		t.Errorf("gemini economics %+v", g)
	}
	if m := got["markdown"]; m.Caching != "none" || m.CachedTokens != 0 {
		t.Errorf("markdown economics %+v", m)
	}
	if len(tr.Renders) != 4 {
		t.Errorf("status shows %d renders, want the 4 of the first build", len(tr.Renders))
	}
	// A second build records 4 more; an unchanged build records none.
	if _, err := e.Build(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Build(ctx); err != nil {
		t.Fatal(err)
	}
	recs, err := e.RenderHistory()
	if err != nil || len(recs) != 8 {
		t.Fatalf("history has %d records (%v), want 8", len(recs), err)
	}
	if r := recs[5]; r.Provider != "anthropic" || r.PrefixBytes != a.PrefixBytes || r.CachedTokens != a.CachedTokens || r.Time == "" {
		t.Errorf("record %+v does not match the status %+v", r, a)
	}
}

// TestStatusAfterBuildComparesPreviousRender: right after a build the
// render equals the file on disk, so status reports the build's own
// prefix against the render before it (from the render history), not a
// meaningless 100%.
func TestStatusAfterBuildComparesPreviousRender(t *testing.T) {
	e := builtThenEdited(t, "markdown, anthropic")
	ctx := context.Background()
	before, err := e.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Build(ctx); err != nil {
		t.Fatal(err)
	}
	after, err := e.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for i, f := range after.Targets[0].Files {
		want := before.Targets[0].Files[i]
		if f.PrefixBytes >= f.Bytes || f.PrefixBytes != want.PrefixBytes {
			t.Errorf("%s: status after the build shows prefix %d of %d bytes, want %d (the build against the render before it)", f.Provider, f.PrefixBytes, f.Bytes, want.PrefixBytes)
		}
		if f.Cache == nil || f.Cache.Against != "history" || before.Targets[0].Files[i].Cache.Against != "disk" {
			t.Errorf("%s: against %+v", f.Provider, f.Cache)
		}
	}
}

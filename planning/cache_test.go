package planning

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// TestLoadCachedEqualsLoad: a cached load gives the same model as a fresh
// one, re-parses only what changed, and forgets deleted files.
func TestLoadCachedEqualsLoad(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ROADMAP.md", "# Roadmap\n\n- [x] **Phase 1: One** - a\n- [ ] **Phase 2: Two** - b\n")
	write("STATE.md", "# State\n\n## Current Position\n\nPhase: 2 of 2 (Two)\nStatus: Executing\n")
	write("phases/02-two/02-01-PLAN.md", "# Plan\n\n- [ ] first\n- [ ] second\n")
	c := NewCache()
	for round := 0; round < 3; round++ {
		switch round {
		case 1:
			write("STATE.md", "# State\n\n## Current Position\n\nPhase: 2 of 2 (Two)\nStatus: Verifying\n")
		case 2:
			os.Remove(filepath.Join(dir, "phases/02-two/02-01-PLAN.md"))
		}
		cached, err := LoadCached(os.DirFS(dir), c)
		if err != nil {
			t.Fatal(err)
		}
		fresh, _ := Load(os.DirFS(dir))
		a, _ := json.Marshal(cached.Summary())
		b, _ := json.Marshal(fresh.Summary())
		if string(a) != string(b) {
			t.Fatalf("round %d: cached load differs\ncached %s\nfresh  %s", round, a, b)
		}
	}
	hits, misses := c.Stats()
	if hits == 0 || misses < 4 {
		t.Fatalf("hits %d misses %d", hits, misses)
	}
	if _, ok := c.docs["phases/02-two/02-01-PLAN.md"]; ok {
		t.Fatal("deleted file still cached")
	}
}

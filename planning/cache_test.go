package planning

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
	"time"

	"github.com/recite-dev/recite/internal/sharedtest"
)

// summaryJSON is the model as the golden tests see it.
func summaryJSON(t testing.TB, p *Project) string {
	t.Helper()
	b, err := json.Marshal(p.Summary())
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLoadCachedEqualsLoad: a cached load gives the same model as a fresh
// one after each kind of change (an edit, a same-size edit in the same
// mtime tick, a file deleted, a file added, a plan completed), re-parses
// only what changed, and forgets deleted files.
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
	write("STATE.md", "# State\n\n## Current Position\n\nPhase: 2 of 2 (Two)\nStatus: Executing\n\n## Decisions\n\n- [Phase 1]: one\n")
	write("phases/02-two/02-01-PLAN.md", "# Plan\n\n- [ ] first\n- [ ] second\n")
	c := NewCache()
	rounds := []struct {
		name string
		edit func()
	}{
		{"first load", func() {}},
		{"nothing changed", func() {}},
		{"status changed", func() {
			write("STATE.md", "# State\n\n## Current Position\n\nPhase: 2 of 2 (Two)\nStatus: Verifying\n\n## Decisions\n\n- [Phase 1]: one\n")
		}},
		{"same size, same mtime", func() {
			p := filepath.Join(dir, "STATE.md")
			fi, _ := os.Stat(p)
			write("STATE.md", "# State\n\n## Current Position\n\nPhase: 2 of 2 (Two)\nStatus: Verifyinx\n\n## Decisions\n\n- [Phase 1]: one\n")
			os.Chtimes(p, fi.ModTime(), fi.ModTime())
		}},
		{"decision added", func() {
			write("STATE.md", "# State\n\n## Current Position\n\nPhase: 2 of 2 (Two)\nStatus: Verifying\n\n## Decisions\n\n- [Phase 1]: one\n- [Phase 2]: two\n")
		}},
		{"summary added", func() { write("phases/02-two/02-01-SUMMARY.md", "# Summary\n") }},
		{"plan deleted", func() { os.Remove(filepath.Join(dir, "phases/02-two/02-01-PLAN.md")) }},
	}
	for _, r := range rounds {
		r.edit()
		cached, err := LoadCached(os.DirFS(dir), c)
		if err != nil {
			t.Fatal(err)
		}
		fresh, _ := Load(os.DirFS(dir))
		if a, b := summaryJSON(t, cached), summaryJSON(t, fresh); a != b {
			t.Fatalf("%s: cached load differs\ncached %s\nfresh  %s", r.name, a, b)
		}
	}
	hits, misses := c.Stats()
	if hits == 0 || misses < 5 {
		t.Fatalf("hits %d misses %d", hits, misses)
	}
	if _, ok := c.entries[cacheKey{path: "phases/02-two/02-01-PLAN.md"}]; ok {
		t.Fatal("deleted file still cached")
	}
}

// TestLoadCachedStatSkip: files whose stat is unchanged and older than the
// racy window are not read again; a same-size edit that keeps the mtime is
// seen when it falls in the racy window (the file was read in the same
// timestamp tick), and would not be otherwise, which is why the window
// exists. fstest.MapFS gives full control over sizes and times.
func TestLoadCachedStatSkip(t *testing.T) {
	mtime := time.Date(2026, 1, 2, 3, 4, 5, 600_000_000, time.UTC)
	tree := func(status string) fstest.MapFS {
		return fstest.MapFS{
			"ROADMAP.md":                  {Data: []byte("# Roadmap\n\n- [ ] **Phase 1: One** - a\n"), ModTime: mtime},
			"STATE.md":                    {Data: []byte("# State\n\n## Current Position\n\nPhase: 1 of 1 (One)\nStatus: " + status + "\n"), ModTime: mtime},
			"phases/01-one/01-01-PLAN.md": {Data: []byte("# Plan\n\n- [ ] first\n"), ModTime: mtime},
		}
	}
	for _, tc := range []struct {
		name string
		// readAt is how long after the files' mtime the first load reads.
		readAt time.Duration
		// seen: the second load sees the same-size edit.
		seen bool
	}{
		{"read in the same tick", 5 * time.Millisecond, true},
		{"read within the racy window", racyWindow / 2, true},
		{"read long after", time.Hour, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewCache()
			c.now = func() time.Time { return mtime.Add(tc.readAt) }
			if _, err := LoadCached(tree("Planning"), c); err != nil {
				t.Fatal(err)
			}
			edited := tree("Executes") // same size, same mtime
			got, _ := LoadCached(edited, c)
			want, _ := Load(edited)
			same := summaryJSON(t, got) == summaryJSON(t, want)
			if same != tc.seen {
				t.Fatalf("edit seen = %v, want %v (state %q)", same, tc.seen, got.State.Status)
			}
			if !tc.seen && c.Unread() != 3 {
				t.Fatalf("unread %d, want 3 (every file reused on its stat)", c.Unread())
			}
			if tc.seen && c.Unread() != 0 {
				t.Fatalf("unread %d, want 0 (racy entries are read again)", c.Unread())
			}
		})
	}
}

// TestLoadCachedFolders: with every stat trusted (a clock an hour ahead),
// files added, removed and renamed in a folder are seen, because they
// change the folder's stat, and the model stays that of a fresh Load.
func TestLoadCachedFolders(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("ROADMAP.md", "# Roadmap\n\n- [ ] **Phase 1: One** - a\n- [ ] **Phase 2: Two** - b\n")
	write("phases/01-one/01-01-PLAN.md", "# Plan\n\n- [ ] first\n")
	c := NewCache()
	c.now = func() time.Time { return time.Now().Add(time.Hour) }
	for _, step := range []struct {
		name string
		do   func()
	}{
		{"first load", func() {}},
		{"summary added", func() { write("phases/01-one/01-01-SUMMARY.md", "# Done\n") }},
		{"plan added in a new folder", func() { write("phases/02-two/02-01-PLAN.md", "# Plan\n\n- [ ] x\n") }},
		{"summary removed", func() { os.Remove(filepath.Join(dir, "phases/01-one/01-01-SUMMARY.md")) }},
		{"folder renamed", func() {
			os.Rename(filepath.Join(dir, "phases/02-two"), filepath.Join(dir, "phases/03-three"))
		}},
	} {
		step.do()
		cached, err := LoadCached(os.DirFS(dir), c)
		if err != nil {
			t.Fatal(err)
		}
		fresh, _ := Load(os.DirFS(dir))
		if a, b := summaryJSON(t, cached), summaryJSON(t, fresh); a != b {
			t.Fatalf("%s: cached load differs\ncached %s\nfresh  %s", step.name, a, b)
		}
	}
	if len(c.dirs) == 0 || c.dirs["phases/02-two"] != nil {
		t.Fatalf("folder cache: %d entries, renamed folder kept: %v", len(c.dirs), c.dirs["phases/02-two"] != nil)
	}
}

// TestLoadCachedRealTrees: on every real tree, a second cached load (every
// file reused on its stat) and a load after an edit of the state file give
// the model of a fresh Load.
func TestLoadCachedRealTrees(t *testing.T) {
	for _, tr := range sharedtest.Trees(t) {
		t.Run(tr.Name, func(t *testing.T) {
			src := os.DirFS(filepath.Join(tr.Root, ".planning"))
			c := NewCache()
			c.now = func() time.Time { return time.Now().Add(time.Hour) }
			for round := 0; round < 2; round++ {
				cached, err := LoadCached(src, c)
				if err != nil {
					t.Fatal(err)
				}
				fresh, _ := Load(src)
				if a, b := summaryJSON(t, cached), summaryJSON(t, fresh); a != b {
					t.Fatalf("round %d: cached load differs", round)
				}
			}
			if c.Unread() == 0 {
				t.Fatal("second load read every file again")
			}
		})
	}
}

// TestLoadCachedStateEdits replays edits of norish's 340 KB STATE.md (the
// sections re-read by markdown.Reparse) against fresh loads.
func TestLoadCachedStateEdits(t *testing.T) {
	dir := copyPlanning(t, filepath.Join(sharedtest.Realdata(t), "23492__norish", ".planning"))
	state := filepath.Join(dir, "STATE.md")
	orig, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	c := NewCache()
	edits := []func(s string) string{
		func(s string) string { return strings.Replace(s, "Last activity:", "Last activity: (1)", 1) },
		func(s string) string {
			return strings.Replace(s, "### Decisions\n", "### Decisions\n\n- [Phase 42]: a new one\n", 1)
		},
		func(s string) string {
			return strings.Replace(s, "## Current Position", "## Current Position\n\n```\n", 1)
		},
		func(s string) string { return s + "\n## Blockers\n\n- a blocker\n" },
		func(s string) string { return strings.Replace(s, "Status:", "Status: Paused;", 1) },
	}
	cur := string(orig)
	for i, ed := range edits {
		cur = ed(cur)
		if err := os.WriteFile(state, []byte(cur), 0o644); err != nil {
			t.Fatal(err)
		}
		cached, _ := LoadCached(os.DirFS(dir), c)
		fresh, _ := Load(os.DirFS(dir))
		if a, b := summaryJSON(t, cached), summaryJSON(t, fresh); a != b {
			t.Fatalf("edit %d: cached load differs", i)
		}
	}
}

// copyPlanning copies a planning tree into a temp folder.
func copyPlanning(t testing.TB, src string) string {
	t.Helper()
	dst := t.TempDir()
	if err := sharedtest.CopyTree(src, dst); err != nil {
		t.Fatalf("cannot copy %s: %v", src, err)
	}
	return dst
}

// BenchmarkLoadCachedWarm loads norish's planning tree after one line of its
// 340 KB STATE.md changed, through a cache that holds the previous load
// (the watch path); BenchmarkLoadCold is a load with no cache.
func BenchmarkLoadCachedWarm(b *testing.B) {
	dir := copyPlanning(b, filepath.Join(sharedtest.Realdata(b), "23492__norish", ".planning"))
	time.Sleep(3 * racyWindow) // the copy's files are older than the window, as in a real tree
	state := filepath.Join(dir, "STATE.md")
	orig, _ := os.ReadFile(state)
	c := NewCache()
	LoadCached(os.DirFS(dir), c)
	i := 0
	for b.Loop() {
		i++
		os.WriteFile(state, []byte(strings.Replace(string(orig), "Last activity:", fmt.Sprintf("Last activity: (%d)", i), 1)), 0o644)
		if _, err := LoadCached(os.DirFS(dir), c); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLoadCold loads norish's planning tree without a cache.
func BenchmarkLoadCold(b *testing.B) {
	dir := filepath.Join(sharedtest.Realdata(b), "23492__norish", ".planning")
	for b.Loop() {
		if _, err := Load(os.DirFS(dir)); err != nil {
			b.Fatal(err)
		}
	}
}

package engine

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestWatchRebuildsOnlyFedTargets: a change rebuilds the targets it feeds
// and no others. Two targets read different system files; an in-place
// edit of one rebuilds that target only, an edit of a file no target
// reads rebuilds none, an edit under .planning/ and a save through a
// temporary file (a new entry in a folder the file tree lists) rebuild
// both; after each, the prompt files equal a fresh build's.
func TestWatchRebuildsOnlyFedTargets(t *testing.T) {
	dir := gsdProject(t, "")
	mustWrite(t, filepath.Join(dir, ".planning", "recite.yaml"), "targets:\n  - name: a\n    system: [docs/A.md]\n  - name: b\n    system: [docs/B.md]\n")
	mustWrite(t, filepath.Join(dir, "docs", "A.md"), "# A\n\nfirst\n")
	mustWrite(t, filepath.Join(dir, "docs", "B.md"), "# B\n\nfirst\n")
	mustWrite(t, filepath.Join(dir, "src", "main.go"), "package main\n")
	// The file tree is trusted only when the folders and ignore files it
	// was read from are past its racy window: date the project back, as a
	// real tree is.
	old := time.Now().Add(-time.Hour)
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil {
			_ = os.Chtimes(p, old, old)
		}
		return nil
	})

	var mu sync.Mutex
	var built []string
	ctx, cancel := context.WithCancel(context.Background())
	h := &watchRun{t: t, dir: dir, events: make(chan WatchEvent, 4096), cancel: cancel, done: make(chan error, 1)}
	e := New(dir, WithProgress(func(p Progress) {
		if name, ok := strings.CutPrefix(p.Stage, "building target "); ok {
			mu.Lock()
			built = append(built, name)
			mu.Unlock()
		}
	}))
	go func() {
		h.done <- e.Watch(ctx, countOpts, func(ev WatchEvent) {
			if ev.Kind == EventRender {
				h.renders.Add(1)
			}
			h.events <- ev
		})
	}()
	t.Cleanup(h.stop)
	if ev := h.next("the initial render"); ev.Trigger != "start" || ev.Error != "" {
		t.Fatalf("first event %+v, want the start render", ev)
	}
	h.settle("start")
	step := func(label string, edit func(), want []string) {
		t.Helper()
		mu.Lock()
		built = nil
		mu.Unlock()
		edit()
		h.converge(label)
		mu.Lock()
		got := slices.Compact(slices.Sorted(slices.Values(built)))
		mu.Unlock()
		if !slices.Equal(got, want) {
			t.Errorf("%s: built targets %v, want %v", label, got, want)
		}
	}
	inPlace := func(rel, text string) func() {
		return func() {
			f, err := os.OpenFile(filepath.Join(dir, rel), os.O_WRONLY|os.O_TRUNC, 0)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := f.WriteString(text); err != nil {
				t.Fatal(err)
			}
			if err := f.Close(); err != nil {
				t.Fatal(err)
			}
		}
	}
	step("A.md in place", inPlace("docs/A.md", "# A\n\nsecond\n"), []string{"a"})
	step("B.md in place", inPlace("docs/B.md", "# B\n\nsecond\n"), []string{"b"})
	step("main.go in place", inPlace("src/main.go", "package main\n\nfunc main() {}\n"), nil)
	step("PROJECT.md", func() {
		p := filepath.Join(dir, ".planning", "PROJECT.md")
		mustWrite(t, p, mustRead(t, p)+projectLine(1))
	}, []string{"a", "b"})
	step("A.md through a temporary file", func() {
		tmp := filepath.Join(dir, "docs", ".A.md.tmp")
		mustWrite(t, tmp, "# A\n\nthird\n")
		mustRename(t, tmp, filepath.Join(dir, "docs", "A.md"))
	}, []string{"a", "b"})
}

package watch

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestSymlinkedRoot: .planning is a symbolic link to a tree kept elsewhere
// (docs/architecture.md#watch-rules). Edits through the link, in subfolders,
// new folders written at once, and the target moved away and back are all
// reported under .planning's own path.
func TestSymlinkedRoot(t *testing.T) {
	project := t.TempDir()
	real := filepath.Join(t.TempDir(), "w2real")
	mkdir(t, filepath.Join(real, "phases", "01"))
	write(t, filepath.Join(real, "PROJECT.md"), "v1")
	write(t, filepath.Join(real, "phases", "01", "PLAN.md"), "v1")
	// A link cycle below the root must not make the walk loop; links below
	// the root are not followed.
	if err := os.Symlink("..", filepath.Join(real, "phases", "loop")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, filepath.Join(project, ".planning")); err != nil {
		t.Fatal(err)
	}
	h := newHarnessIn(t, project, nil)
	h.start()
	pl := filepath.Join(project, ".planning")

	// sed -i through the link: a temp file renamed over PROJECT.md.
	write(t, filepath.Join(pl, "sedAb3xYz"), "v2")
	rename(t, filepath.Join(pl, "sedAb3xYz"), filepath.Join(pl, "PROJECT.md"))
	h.waitContent(".planning/PROJECT.md", "v2")

	// An in-place write in an existing subfolder.
	write(t, filepath.Join(pl, "phases", "01", "PLAN.md"), "v2")
	h.waitContent(".planning/phases/01/PLAN.md", "v2")

	// A new phase folder written at once.
	mkdir(t, filepath.Join(pl, "phases", "02", "tasks"))
	write(t, filepath.Join(pl, "phases", "02", "tasks", "TASK.md"), "new")
	h.waitContent(".planning/phases/02/tasks/TASK.md", "new")
	write(t, filepath.Join(pl, "phases", "02", "tasks", "TASK.md"), "edited")
	h.waitContent(".planning/phases/02/tasks/TASK.md", "edited")

	// The target moved away and back (mv .planning's real folder): watched
	// again afterwards.
	rename(t, real, real+".away")
	rename(t, real+".away", real)
	h.waitFor("the target's return", func() bool {
		for _, b := range h.batches {
			if slices.Contains(b.Paths, pl) {
				return true
			}
		}
		return false
	})
	write(t, filepath.Join(pl, "PROJECT.md"), "v3")
	h.waitContent(".planning/PROJECT.md", "v3")
	write(t, filepath.Join(pl, "phases", "01", "PLAN.md"), "v3")
	h.waitContent(".planning/phases/01/PLAN.md", "v3")

	for _, p := range h.seen() {
		if !strings.HasPrefix(p, ".planning") {
			t.Errorf("path %q reported outside .planning (want the link's own path)", p)
		}
	}
}

// TestSymlinkRetargeted: the .planning link replaced by one to another
// tree is followed at once.
func TestSymlinkRetargeted(t *testing.T) {
	project := t.TempDir()
	a, b := filepath.Join(t.TempDir(), "a"), filepath.Join(t.TempDir(), "b")
	mkdir(t, filepath.Join(a, "sub"))
	mkdir(t, filepath.Join(b, "sub"))
	write(t, filepath.Join(b, "sub", "PLAN.md"), "b1")
	pl := filepath.Join(project, ".planning")
	if err := os.Symlink(a, pl); err != nil {
		t.Fatal(err)
	}
	h := newHarnessIn(t, project, nil)
	h.start()
	// ln -sfn b .planning: a new link renamed over the old one.
	if err := os.Symlink(b, pl+".new"); err != nil {
		t.Fatal(err)
	}
	rename(t, pl+".new", pl)
	h.waitFor("the new target", func() bool {
		for _, bt := range h.batches {
			if slices.Contains(bt.Paths, filepath.Join(pl, "sub", "PLAN.md")) {
				return true
			}
		}
		return false
	})
	write(t, filepath.Join(pl, "sub", "PLAN.md"), "b2")
	h.waitContent(".planning/sub/PLAN.md", "b2")
}

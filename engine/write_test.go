package engine

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/recite-dev/recite/internal/sharedtest"
)

// TestLastGoodCopyIsItsOwnFile edits a prompt file in place (as an editor
// or an agent may) after a build, after an unchanged rebuild and after a
// copy left as a hard link by an older recite: the last good copy in
// .recite/last/ never shares the prompt file's inode and keeps the bytes
// of the render.
func TestLastGoodCopyIsItsOwnFile(t *testing.T) {
	dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	md := filepath.Join(dir, ".planning", "prompts", "agent.md")
	last := filepath.Join(dir, LastGoodDir, "agent.md")
	check := func(step string) {
		t.Helper()
		good, err := os.ReadFile(md)
		if err != nil {
			t.Fatal(err)
		}
		if sameFile(md, last) {
			t.Fatalf("%s: %s and %s share an inode", step, md, last)
		}
		f, err := os.OpenFile(md, os.O_WRONLY|os.O_TRUNC, 0)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := f.WriteString("edited in place\n"); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(last); err != nil || !bytes.Equal(b, good) {
			t.Fatalf("%s: an edit of the prompt file changed the last good copy (%v):\n%.200s", step, err, b)
		}
		// Put the render back for the next step.
		if err := os.WriteFile(md, good, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := New(dir).Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("first build")
	if _, err := New(dir).Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("unchanged rebuild")
	// An older recite made the copy a hard link: an unchanged rebuild
	// splits them.
	if err := os.Remove(last); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(md, last); err != nil {
		t.Skipf("hard links unavailable: %v", err)
	}
	if _, err := New(dir).Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	check("rebuild over a hard-linked copy")
}

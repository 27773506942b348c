package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
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
		if b, err := readLastGood(last); err != nil || !bytes.Equal(b, good) {
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

// sameFile reports whether a and b are links to one file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// TestLastGoodChecksum: a copy reads back as written; a torn copy (cut
// short, or a byte of the render changed), one without the header (an
// older recite's plain copy) and one whose header names another length are
// not used.
func TestLastGoodChecksum(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "agent.md")
	body := []byte("# Agent\n\nThe render.\n")
	if err := writeLastGood(p, body); err != nil {
		t.Fatal(err)
	}
	if got, err := readLastGood(p); err != nil || !bytes.Equal(got, body) {
		t.Fatalf("read back %q, %v; want %q", got, err, body)
	}
	good, _ := os.ReadFile(p)
	flipped := bytes.Clone(good)
	flipped[len(flipped)-3] ^= 1
	for name, data := range map[string][]byte{
		"cut short":     good[:len(good)-4],
		"byte changed":  flipped,
		"plain copy":    body,
		"empty":         nil,
		"longer header": bytes.Replace(good, fmt.Appendf(nil, " %d\n", len(body)), fmt.Appendf(nil, " %d\n", len(body)+1), 1),
	} {
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		if got, err := readLastGood(p); !errors.Is(err, errLastGood) {
			t.Errorf("%s: read %q, %v; want errLastGood", name, got, err)
		}
	}
	if _, err := readLastGood(filepath.Join(dir, "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing copy: %v, want fs.ErrNotExist", err)
	}
}

// TestTornLastGoodIsNotRestored: with STATE.md malformed and the prompt
// file deleted, a last good copy torn by a crash is never put back as the
// prompt file.
func TestTornLastGoodIsNotRestored(t *testing.T) {
	dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	if _, err := New(dir).Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	md := filepath.Join(dir, ".planning", "prompts", "agent.md")
	last := filepath.Join(dir, LastGoodDir, "agent.md")
	copyBytes, _ := os.ReadFile(last)
	torn := copyBytes[:len(copyBytes)/2]
	if err := os.WriteFile(last, torn, 0o644); err != nil {
		t.Fatal(err)
	}
	state := filepath.Join(dir, ".planning", "STATE.md")
	b, _ := os.ReadFile(state)
	os.WriteFile(state, append([]byte("---\ntitle: Fix: the bug\n"), b[4:]...), 0o644)
	os.Remove(md)
	if _, err := New(dir).Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(md)
	if _, body, _ := bytes.Cut(torn, []byte("\n")); len(body) > 0 && bytes.Equal(got, body) {
		t.Fatal("the torn last good copy was restored as the prompt file")
	}
}

package fsutil

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"testing/fstest"
)

// TestDirFS: DirFS passes the fstest checks on a tree of valid names,
// reads, lists and stats a file whose name is not UTF-8 (which os.DirFS
// refuses), and refuses names that would leave the folder.
func TestDirFS(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.md", "phases/01-x/01-01-PLAN.md", "phases/01-x/notes.md"} {
		p := filepath.Join(dir, filepath.FromSlash(f))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("# "+f+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := fstest.TestFS(DirFS(dir), "a.md", "phases/01-x/01-01-PLAN.md"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"../x", "/etc/passwd", "a/../../x", "", "a//b", "./a.md"} {
		if _, err := DirFS(dir).Open(bad); !errors.Is(err, fs.ErrInvalid) {
			t.Errorf("Open(%q) = %v, want fs.ErrInvalid", bad, err)
		}
	}
	if runtime.GOOS == "windows" || runtime.GOOS == "darwin" {
		return // their file systems refuse or rewrite names that are not UTF-8
	}
	name := "bad\xffname.md"
	if err := os.WriteFile(filepath.Join(dir, name), []byte("# odd\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := fs.ReadFile(os.DirFS(dir), name); err == nil {
		t.Log("os.DirFS reads names that are not UTF-8 now")
	}
	fsys := DirFS(dir)
	b, err := fs.ReadFile(fsys, name)
	if err != nil || string(b) != "# odd\n" {
		t.Fatalf("ReadFile = %q, %v", b, err)
	}
	if _, err := fs.Stat(fsys, name); err != nil {
		t.Error(err)
	}
	ents, err := fs.ReadDir(fsys, ".")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range ents {
		found = found || e.Name() == name
	}
	if !found {
		t.Errorf("ReadDir does not list %q", name)
	}
	if _, err := fsys.Open("missing.md"); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Open(missing) = %v", err)
	} else if pe := (*fs.PathError)(nil); !errors.As(err, &pe) || pe.Path != "missing.md" {
		t.Errorf("error names %v, want the relative name", err)
	}
}

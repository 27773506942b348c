package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileReplaces(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	if err := WriteFile(p, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFile(p, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(p)
	if err != nil || string(b) != "two" {
		t.Fatalf("read %q, %v; want two", b, err)
	}
	fi, _ := os.Stat(p)
	if fi.Mode().Perm()&0o044 == 0 {
		t.Errorf("mode %v: an existing file should keep its mode", fi.Mode())
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Errorf("folder holds %d entries, want only a.txt (no temporary file left)", len(ents))
	}
}

func TestWriteFileMissingFolder(t *testing.T) {
	p := filepath.Join(t.TempDir(), "no", "a.txt")
	if err := WriteFile(p, []byte("x"), 0o644); err == nil {
		t.Fatal("write into a missing folder succeeded")
	}
}

// TestWriteFileNoSync: the file holds the new bytes with the given mode,
// an existing file is replaced, and no temporary file is left behind.
func TestWriteFileNoSync(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "renders.jsonl")
	for _, body := range []string{"first\n", "second, longer\n"} {
		if err := WriteFileNoSync(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != body {
			t.Fatalf("read %q, %v; want %q", got, err, body)
		}
	}
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, %v; want 0644", fi.Mode(), err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the folder, want 1 (a temporary file left)", len(ents))
	}
	if err := WriteFileNoSync(filepath.Join(dir, "missing", "x"), nil, 0o644); err == nil {
		t.Error("a missing folder gave no error")
	}
}

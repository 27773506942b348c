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

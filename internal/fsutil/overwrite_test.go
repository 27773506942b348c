package fsutil

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"
)

// TestOverwrite: the file holds exactly the new bytes, shorter or longer
// than the old, with the given mode; on Unix it is the same file (written
// in place, no new inode); a missing file is created.
func TestOverwrite(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cache.bin")
	var first os.FileInfo
	for i, body := range []string{"a first, long body\n", "short\n", "", "longer than any before it\n"} {
		if err := OverwriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != body {
			t.Fatalf("write %d: read %q, %v; want %q", i, got, err, body)
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o644 {
			t.Errorf("write %d: mode %v, want 0644", i, fi.Mode())
		}
		if i == 0 {
			first = fi
		} else if runtime.GOOS != "windows" && !os.SameFile(first, fi) {
			t.Errorf("write %d: a new file replaced the old one; want it written in place", i)
		}
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("%d files in the folder, want 1 (a temporary file left)", len(ents))
	}
	if err := OverwriteFile(filepath.Join(dir, "missing", "x"), nil, 0o644); err == nil {
		t.Error("a missing folder gave no error")
	}
}

// TestOverwriteLinks: a symbolic link at the path is replaced by a file of
// its own, never followed (its target, which may be outside the project,
// keeps its bytes), and so is a file with another hard link.
func TestOverwriteLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	sym := filepath.Join(dir, "sym.bin")
	if err := os.Symlink(outside, sym); err != nil {
		t.Fatal(err)
	}
	hard := filepath.Join(dir, "hard.bin")
	other := filepath.Join(dir, "other")
	if err := os.WriteFile(other, []byte("keep me"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(other, hard); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{sym, hard} {
		if err := OverwriteFile(p, []byte("new"), 0o644); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(p); string(got) != "new" {
			t.Errorf("%s holds %q, want new", filepath.Base(p), got)
		}
		if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
			t.Errorf("%s is %v, %v; want a regular file", filepath.Base(p), fi.Mode(), err)
		}
	}
	for _, p := range []string{outside, other} {
		if got, _ := os.ReadFile(p); string(got) != "keep me" {
			t.Errorf("%s holds %q: the write went through a link", p, got)
		}
	}
}

// BenchmarkOverwrite compares a cache file's save in place (Overwrite)
// with a new file renamed over it (WriteNoSync), for a 20 KB file; the
// difference is the filesystem's cost of a new inode and of freeing the
// old one's blocks.
func BenchmarkOverwrite(b *testing.B) {
	data := make([]byte, 20<<10)
	for _, tc := range []struct {
		name  string
		write func(string, []byte, os.FileMode) error
	}{{"in-place", OverwriteFile}, {"rename", WriteFileNoSync}} {
		b.Run(tc.name, func(b *testing.B) {
			p := filepath.Join(b.TempDir(), "cache.bin")
			for b.Loop() {
				if err := tc.write(p, data, 0o644); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestOverwriteFIFO: a named pipe at the path (no reader) does not hang
// the write; it is replaced by a file of its own.
func TestOverwriteFIFO(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no named pipes in the file system on Windows")
	}
	p := filepath.Join(t.TempDir(), "cache.bin")
	if err := mkfifo(p); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	if err := OverwriteFile(p, []byte("new"), 0o644); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("%v, %v; want a regular file", fi.Mode(), err)
	}
}

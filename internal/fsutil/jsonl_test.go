package fsutil

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

type rec struct {
	N int `json:"n"`
}

// TestJSONLRing: records are appended as lines, up to twice the ring's
// size; the append past that rewrites the file with the newest max; a torn
// last line costs only itself (the next append starts a line of its own);
// torn and rejected lines are skipped on reading.
func TestJSONLRing(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sub", "ring.jsonl")
	got, err := ReadJSONL[rec](p, nil)
	if err != nil || got != nil {
		t.Fatalf("missing file: %v, %v", got, err)
	}
	lines := func() string {
		b, _ := os.ReadFile(p)
		return string(b)
	}
	for i := 1; i <= 6; i++ {
		if err := AppendJSONLRing(p, []rec{{i}}, 3); err != nil {
			t.Fatal(err)
		}
	}
	if got := strings.Count(lines(), "\n"); got != 6 {
		t.Fatalf("%d lines after 6 appends to a ring of 3, want 6 (twice the ring before a rewrite)", got)
	}
	if err := AppendJSONLRing(p, []rec{{7}}, 3); err != nil {
		t.Fatal(err)
	}
	if want := "{\"n\":5}\n{\"n\":6}\n{\"n\":7}\n"; lines() != want {
		t.Fatalf("file %q after the 7th append, want %q (the newest 3)", lines(), want)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"n":`) // a crash mid-line
	f.Close()
	if err := AppendJSONLRing(p, []rec{{8}, {0}}, 3); err != nil {
		t.Fatal(err)
	}
	got, err = ReadJSONL(p, func(r rec) bool { return r.N > 0 })
	if err != nil || len(got) != 4 || got[0].N != 5 || got[3].N != 8 {
		t.Fatalf("read %v, %v; want 5 6 7 8 (the torn and the rejected lines skipped)", got, err)
	}
	if n := Newest(got, 3); len(n) != 3 || n[0].N != 6 {
		t.Errorf("Newest(3) = %v, want 6 7 8", n)
	}
	if err := AppendJSONLRing[rec](p, nil, 3); err != nil || strings.Count(lines(), "\n") != 6 {
		t.Errorf("appending nothing: %v, file %q", err, lines())
	}
}

// TestJSONLRingLinks: a ring that is a symbolic link is never appended
// through (its target, which may be outside the project, keeps its bytes):
// the link is replaced by a ring of its own.
func TestJSONLRingLinks(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symbolic links need privileges on Windows")
	}
	outside := filepath.Join(t.TempDir(), "outside")
	if err := os.WriteFile(outside, []byte("keep me\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "renders.jsonl")
	if err := os.Symlink(outside, p); err != nil {
		t.Fatal(err)
	}
	if err := AppendJSONLRing(p, []rec{{1}}, 3); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(outside); string(got) != "keep me\n" {
		t.Errorf("the link's target holds %q: the append went through the link", got)
	}
	if fi, err := os.Lstat(p); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("%v, %v; want the link replaced by a regular file", fi.Mode(), err)
	}
	if got, err := ReadJSONL[rec](p, nil); err != nil || len(got) != 1 || got[0].N != 1 {
		t.Errorf("ring holds %v, %v; want the one record", got, err)
	}
}

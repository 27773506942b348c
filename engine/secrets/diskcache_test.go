package secrets

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/recite-dev/recite/engine/internal/redact"
)

// countingRedactor returns a Redactor of dir keeping its verdicts in the
// project's CleanCacheFile, and a function that reports how many texts it
// scanned with the rules (those no verdict answered).
func countingRedactor(t *testing.T, dir string) (*Redactor, func() int) {
	t.Helper()
	r := New(dir)
	r.UseCacheFile(filepath.Join(dir, CleanCacheFile))
	if err := r.Init(); err != nil {
		t.Fatal(err)
	}
	return r, func() int {
		r.cache.mu.Lock()
		defer r.cache.mu.Unlock()
		n := 0
		for _, gen := range []map[[32]byte]redacted{r.cache.done, r.cache.previous} {
			for k := range gen {
				if !r.cache.disk[cleanKeyOf(k)] {
					n++
				}
			}
		}
		return n
	}
}

// TestCleanVerdictsAcrossProcesses: a new Redactor of the project answers
// the texts a previous one found clean from the file, without scanning
// them; a text holding a secret is scanned again every time and never
// stored; a changed text is scanned; nothing new writes nothing.
func TestCleanVerdictsAcrossProcesses(t *testing.T) {
	dir := t.TempDir()
	const secret = "token = ghp_R2x9Kq7LmZ4vT8bN3cY6wP1sD5fH0jGaQ9"
	texts := []string{"# Plan\n\nShip the password reset page.", "Use the API key from the vault.", secret}
	r1, _ := countingRedactor(t, dir)
	var first []string
	for _, s := range texts {
		out, _ := r1.Redact("PLAN.md", s)
		first = append(first, out)
	}
	if first[2] == secret {
		t.Fatal("the secret was not redacted")
	}
	if err := r1.SaveCache(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, CleanCacheFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte("ghp_")) || bytes.Contains(data, []byte("password")) {
		t.Fatal("the cache file holds text")
	}
	keys, err := decodeClean(redact.Fingerprint(), data)
	if err != nil || len(keys) != 2 {
		t.Fatalf("file holds %d verdicts (%v), want the 2 clean texts", len(keys), err)
	}

	r2, scanned := countingRedactor(t, dir)
	for i, s := range texts {
		if out, _ := r2.Redact("PLAN.md", s); out != first[i] {
			t.Errorf("text %d: %q, want %q", i, out, first[i])
		}
	}
	if n := scanned(); n != 1 {
		t.Errorf("a new process scanned %d texts, want 1 (the one holding a secret)", n)
	}
	if _, fs := r2.Redact("PLAN.md", secret); len(fs) != 1 {
		t.Errorf("findings of the secret: %v", fs)
	}
	r2.Redact("PLAN.md", texts[0]+" Today.")
	if n := scanned(); n != 2 {
		t.Errorf("after a changed text, %d scanned, want 2", n)
	}
	r2.Redact("OTHER.md", texts[1]) // same text, other path: other rules may apply
	if n := scanned(); n != 3 {
		t.Errorf("the same text under another path: %d scanned, want 3", n)
	}

	before, _ := os.Stat(path)
	r3, _ := countingRedactor(t, dir)
	r3.Redact("PLAN.md", texts[0])
	if err := r3.SaveCache(); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(path); !os.SameFile(before, after) {
		t.Error("a save with no new verdict rewrote the file")
	}
}

// TestCleanCacheDamaged: a torn, flipped, foreign-version or other-rules
// file is ignored (every text scanned) and replaced at the next save.
func TestCleanCacheDamaged(t *testing.T) {
	fp := redact.Fingerprint()
	good := encodeClean(fp, []cleanKey{cleanKeyOf(keyOf("PLAN.md", "hello"))})
	other := fp
	other[0] ^= 1
	flip := func(i int) []byte { b := bytes.Clone(good); b[i] ^= 0x10; return b }
	for name, data := range map[string][]byte{
		"torn":          good[:len(good)-3],
		"empty":         {},
		"flipped key":   flip(len(good) - 8),
		"flipped crc":   flip(len(good) - 1),
		"other version": append([]byte("RRCL\x02\x00\x00\x00"), good[8:]...),
		"other rules":   encodeClean(other, []cleanKey{cleanKeyOf(keyOf("PLAN.md", "hello"))}),
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := decodeClean(fp, data); !errors.Is(err, errBadClean) {
				t.Fatalf("decode: %v, want errBadClean", err)
			}
			dir := t.TempDir()
			path := filepath.Join(dir, CleanCacheFile)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			r, scanned := countingRedactor(t, dir)
			r.Redact("PLAN.md", "hello")
			if scanned() != 1 {
				t.Fatal("a damaged file answered a text")
			}
			if err := r.SaveCache(); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			if _, err := decodeClean(fp, got); err != nil {
				t.Fatalf("not replaced by a good file: %v", err)
			}
		})
	}
}

// TestCleanCacheBounded: the file holds at most maxDiskClean verdicts.
func TestCleanCacheBounded(t *testing.T) {
	dir := t.TempDir()
	for round := range 3 {
		r, _ := countingRedactor(t, dir)
		for i := range 2 * maxEntries {
			r.Redact("a.md", string(rune('a'+round))+" line "+string(rune(i)))
		}
		if err := r.SaveCache(); err != nil {
			t.Fatal(err)
		}
	}
	data, err := os.ReadFile(filepath.Join(dir, CleanCacheFile))
	if err != nil {
		t.Fatal(err)
	}
	keys, err := decodeClean(redact.Fingerprint(), data)
	if err != nil || len(keys) != maxDiskClean {
		t.Fatalf("%d verdicts (%v), want %d", len(keys), err, maxDiskClean)
	}
}

// FuzzDecodeClean: the decoder never panics and every error wraps
// errBadClean.
func FuzzDecodeClean(f *testing.F) {
	fp := redact.Fingerprint()
	f.Add(encodeClean(fp, []cleanKey{{1}, {2}}))
	f.Add([]byte("RRCL"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if _, err := decodeClean(fp, data); err != nil && !errors.Is(err, errBadClean) {
			t.Fatalf("error %v does not wrap errBadClean", err)
		}
	})
}

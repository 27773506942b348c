package engine

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/planning"
)

// agePlanning sets every file's modification time of dir's planning tree an
// hour back, as in a tree edited long ago: the parsed-file cache then
// trusts an unchanged stat (no racy window) without a clock in the test.
func agePlanning(t *testing.T, dir string) {
	t.Helper()
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(filepath.Join(dir, ".planning"), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		return os.Chtimes(p, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// cacheFiles are the on-disk caches a build of the GSD example saves.
func cacheFiles(dir string) []string {
	rd := filepath.Join(dir, CacheDir)
	tc, _ := filepath.Glob(filepath.Join(rd, "token-counts-*.bin"))
	return append([]string{filepath.Join(rd, planning.DiskCacheFile)}, tc...)
}

// buildFresh builds dir with a new Engine, as a new process does, and
// returns the Anthropic body, the files parsed and the texts counted.
func buildFresh(t *testing.T, dir string, opts ...Option) (body string, parsed, counted int) {
	t.Helper()
	e := New(dir, opts...)
	if _, err := e.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, PromptsDir, "agent.anthropic.json"))
	if err != nil {
		t.Fatal(err)
	}
	_, parsed = e.parsed.Stats()
	if e.counter != nil {
		_, counted = e.counter.Stats()
	}
	return string(b), parsed, counted
}

// TestDiskCachesAcrossEngines: a build by a new Engine after a one-line
// edit parses only the edited file and counts only the texts that changed;
// torn or corrupted cache files are discarded (the build is the same as a
// cold one) and replaced; --no-cache neither reads nor writes them.
func TestDiskCachesAcrossEngines(t *testing.T) {
	dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	agePlanning(t, dir)
	_, coldParsed, coldCounted := buildFresh(t, dir)
	files := cacheFiles(dir)
	if len(files) != 2 {
		t.Fatalf("cache files after a build: %v, want the parsed files and one token-count file", files)
	}
	for _, f := range files {
		if _, err := os.Stat(f); err != nil {
			t.Fatalf("not saved: %v", err)
		}
	}
	if err := replaceIn(dir, ".planning/STATE.md", "last_activity: 2026-03-04", "last_activity: 2026-03-05"); err != nil {
		t.Fatal(err)
	}
	base := files[0]
	journal := filepath.Join(dir, CacheDir, planning.DiskJournalFile)
	baseInfo, _ := os.Stat(base)
	warm, parsed, counted := buildFresh(t, dir)
	if parsed != 1 || counted >= coldCounted/2 {
		t.Errorf("warm start after a one-line edit parsed %d files (cold %d) and counted %d texts (cold %d); want 1 file and few texts", parsed, coldParsed, counted, coldCounted)
	}
	// The edit went to the journal; the base was left as it was.
	if fi, err := os.Stat(base); err != nil || !os.SameFile(fi, baseInfo) || !fi.ModTime().Equal(baseInfo.ModTime()) {
		t.Errorf("a one-line edit rewrote the parsed files' base (%v)", err)
	}
	if _, err := os.Stat(journal); err != nil {
		t.Errorf("a one-line edit saved no journal: %v", err)
	}
	if _, parsed, _ := buildFresh(t, dir); parsed != 0 {
		t.Errorf("a build over the base and the journal parsed %d files, want 0", parsed)
	}
	// A damaged journal alone: the base is used, the edited file parsed
	// again, and the journal replaced.
	if err := os.WriteFile(journal, []byte("RPFC torn"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, parsed, _ := buildFresh(t, dir); got != warm || parsed != 1 {
		t.Errorf("over a damaged journal: parsed %d files, want the edited one; same body: %v", parsed, got == warm)
	}
	if _, parsed, _ := buildFresh(t, dir); parsed != 0 {
		t.Errorf("after replacing a damaged journal the next build parsed %d files, want 0", parsed)
	}

	damage := map[string]func([]byte) []byte{
		"truncated": func(b []byte) []byte { return b[:len(b)/2] },
		"flipped":   func(b []byte) []byte { b[len(b)/3] ^= 0x40; return b },
		"empty":     func([]byte) []byte { return nil },
	}
	for name, f := range damage {
		t.Run(name, func(t *testing.T) {
			for _, p := range files {
				b, err := os.ReadFile(p)
				if err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, f(b), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, parsed, counted := buildFresh(t, dir)
			if got != warm {
				t.Errorf("the body built over %s caches differs from the one built over good caches", name)
			}
			if parsed < coldParsed || counted < coldCounted/2 {
				t.Errorf("over %s caches parsed %d files (cold %d), counted %d texts (cold %d): a damaged cache was trusted", name, parsed, coldParsed, counted, coldCounted)
			}
			if _, parsed, _ := buildFresh(t, dir); parsed != 0 {
				t.Errorf("after replacing %s caches the next build parsed %d files, want 0", name, parsed)
			}
		})
	}

	for _, p := range append(files, journal) {
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
	}
	if got, _, _ := buildFresh(t, dir, WithNoCache(true)); got != warm {
		t.Error("--no-cache built another body")
	}
	for _, p := range append(files, journal) {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("--no-cache wrote %s", strings.TrimPrefix(p, dir))
		}
	}
}

package planning

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/internal/sharedtest"
)

// diskTree copies the example GSD tree's .planning folder into a temp dir
// and dates every file an hour back, as a tree edited earlier is, so an
// unchanged stat is trusted.
func diskTree(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), ".planning")
	if err := sharedtest.CopyTree(filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd", ".planning"), dir); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Hour)
	_ = filepath.Walk(dir, func(p string, _ os.FileInfo, err error) error {
		if err == nil {
			_ = os.Chtimes(p, old, old)
		}
		return err
	})
	return dir
}

// newProcess is a cache as a new process has it: seeded from the file at
// path, with ok saying whether it was.
func newProcess(path string) (*Cache, bool) {
	c := NewCache()
	return c, c.LoadFile(path)
}

// TestDiskCacheWarmStart: a cache saved by one process seeds the next,
// which loads the same model without parsing any file, and after a
// one-line edit parses only that file; --no-cache's bypass (no LoadFile)
// parses everything.
func TestDiskCacheWarmStart(t *testing.T) {
	dir := diskTree(t)
	path := filepath.Join(t.TempDir(), "recite", DiskCacheFile)
	fresh := func() string {
		p, err := Load(os.DirFS(dir))
		if err != nil {
			t.Fatal(err)
		}
		return summaryJSON(t, p)
	}
	c, ok := newProcess(path)
	if ok {
		t.Fatal("a missing file seeded the cache")
	}
	// Read a second after the files last changed (their ctime is now):
	// past the racy window, so the next process trusts their stat.
	c.now = func() time.Time { return time.Now().Add(time.Second) }
	first, err := LoadCached(os.DirFS(dir), c)
	if err != nil {
		t.Fatal(err)
	}
	_, parsed := c.Stats()
	if err := c.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	st1, _ := os.Stat(path)
	if err := c.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	if st2, _ := os.Stat(path); !st2.ModTime().Equal(st1.ModTime()) {
		t.Error("a cache with nothing new was written again")
	}

	c2, ok := newProcess(path)
	if !ok {
		t.Fatal("the saved file did not seed a new cache")
	}
	got, err := LoadCached(os.DirFS(dir), c2)
	if err != nil {
		t.Fatal(err)
	}
	if a, b := summaryJSON(t, got), summaryJSON(t, first); a != b {
		t.Fatalf("warm model differs\nwarm %s\ncold %s", a, b)
	}
	if _, misses := c2.Stats(); misses != 0 || c2.Unread() == 0 {
		t.Errorf("warm start parsed %d files (cold: %d), read none from disk: %v", misses, parsed, c2.Unread())
	}

	// A one-line edit: only STATE.md is parsed again.
	state := filepath.Join(dir, "STATE.md")
	b, _ := os.ReadFile(state)
	if err := os.WriteFile(state, []byte(strings.Replace(string(b), "Last activity: ", "Last activity: edited; ", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := c2.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	c3, _ := newProcess(path)
	got, _ = LoadCached(os.DirFS(dir), c3)
	if a, b := summaryJSON(t, got), fresh(); a != b {
		t.Fatalf("model after the edit differs\nwarm  %s\nfresh %s", a, b)
	}
	if _, misses := c3.Stats(); misses != 1 {
		t.Errorf("after a one-line edit the warm start parsed %d files, want 1", misses)
	}

	// The same bytes under a new stat (touch): read and hashed, not parsed.
	now := time.Now().Add(-time.Minute)
	_ = os.Chtimes(filepath.Join(dir, "ROADMAP.md"), now, now)
	if err := c3.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	c4, _ := newProcess(path)
	got, _ = LoadCached(os.DirFS(dir), c4)
	if a, b := summaryJSON(t, got), fresh(); a != b || func() bool { _, m := c4.Stats(); return m != 0 }() {
		t.Errorf("a touched file was parsed again or changed the model")
	}
}

// TestDiskCacheDamaged: a torn, bit-flipped, truncated or foreign cache
// file seeds nothing, the load parses every file and gives the model of a
// fresh load, and the next save replaces the file.
func TestDiskCacheDamaged(t *testing.T) {
	dir := diskTree(t)
	path := filepath.Join(t.TempDir(), DiskCacheFile)
	c := NewCache()
	want, _ := LoadCached(os.DirFS(dir), c)
	if err := c.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	flip := func(b []byte, at int) []byte { b = append([]byte{}, b...); b[at] ^= 0x10; return b }
	for name, bad := range map[string][]byte{
		"torn":         good[:len(good)/2],
		"empty":        {},
		"flipped body": flip(good, len(good)/3),
		"flipped crc":  flip(good, len(good)-1),
		"version":      flip(good, 4),
		"not a cache":  []byte("# hello\n"),
	} {
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		c, ok := newProcess(path)
		if ok {
			t.Errorf("%s: the damaged file seeded the cache", name)
		}
		got, _ := LoadCached(os.DirFS(dir), c)
		if summaryJSON(t, got) != summaryJSON(t, want) {
			t.Errorf("%s: the model differs", name)
		}
		if _, misses := c.Stats(); misses == 0 {
			t.Errorf("%s: nothing parsed", name)
		}
		if err := c.SaveFile(path); err != nil {
			t.Fatal(err)
		}
		if _, ok := newProcess(path); !ok {
			t.Errorf("%s: the next save did not replace the damaged file", name)
		}
	}
}

// TestDiskCacheBounded: at most maxDiskEntries entries are saved.
func TestDiskCacheBounded(t *testing.T) {
	keys := make([]cacheKey, maxDiskEntries+5)
	ents := make([]*cacheEntry, len(keys))
	for i := range keys {
		keys[i] = cacheKey{path: "f" + strings.Repeat("x", i%7) + string(rune('a'+i%26))}
		ents[i] = &cacheEntry{data: []byte("x")}
	}
	got, err := decodeDiskCache(encodeDiskCache(keys, ents))
	if err != nil || len(got.entries) != maxDiskEntries {
		t.Errorf("%d entries saved (%v), want %d", len(got.entries), err, maxDiskEntries)
	}
}

// TestDiskCacheRealTrees: every real planning tree loads from a warm
// cache to the model of a fresh load, parsing nothing.
func TestDiskCacheRealTrees(t *testing.T) {
	for _, tr := range sharedtest.Trees(t) {
		t.Run(tr.Name, func(t *testing.T) {
			fsys := os.DirFS(filepath.Join(tr.Root, ".planning"))
			path := filepath.Join(t.TempDir(), DiskCacheFile)
			c := NewCache()
			want, _ := LoadCached(fsys, c)
			if err := c.SaveFile(path); err != nil {
				t.Fatal(err)
			}
			c2, ok := newProcess(path)
			if !ok {
				t.Fatal("not seeded")
			}
			got, _ := LoadCached(fsys, c2)
			if summaryJSON(t, got) != summaryJSON(t, want) {
				t.Error("the warm model differs")
			}
			if _, misses := c2.Stats(); misses != 0 {
				t.Errorf("%d files parsed on a warm start", misses)
			}
		})
	}
}

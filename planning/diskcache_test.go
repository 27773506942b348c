package planning

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/markdown"
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
			realTreeJournal(t, tr.Root)
		})
	}
}

// realTreeJournal: on a copy of a real tree, a one-line edit of STATE.md
// after a warm start parses that file alone and, on a tree whose base is
// large enough for it to matter (256 KiB), saves only the journal; the
// next process parses nothing.
func realTreeJournal(t *testing.T, root string) {
	dir := filepath.Join(t.TempDir(), ".planning")
	if err := sharedtest.CopyTree(filepath.Join(root, ".planning"), dir); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, "STATE.md"))
	if err != nil || !strings.Contains(string(b), "\n") {
		t.Log("no STATE.md to edit: the journal is not checked")
		return
	}
	path := filepath.Join(t.TempDir(), DiskCacheFile)
	warmBase(t, dir, path)
	baseID, _ := idOf(t, path)
	fi, _ := os.Stat(path)
	line := strings.SplitAfter(string(b), "\n")[0]
	editLine(t, dir, "STATE.md", line, strings.TrimSuffix(line, "\n")+" (edited)\n")
	c, p, _, parsed := loadProcess(t, dir, path)
	if parsed != 1 || summaryJSON(t, p) != freshModel(t, dir) {
		t.Fatalf("one-line edit: parsed %d files, want 1, or the model differs", parsed)
	}
	if err := c.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	if fi.Size() >= 256<<10 {
		if id, _ := idOf(t, path); id != baseID {
			t.Errorf("a one-line edit rewrote the %d-byte base", fi.Size())
		}
		if got := entryPaths(readDiskFile(t, journalPath(path))); len(got) != 1 || got[0] != "STATE.md" {
			t.Errorf("journal holds %v, want STATE.md", got)
		}
	}
	if _, p, _, parsed := loadProcess(t, dir, path); parsed != 0 || summaryJSON(t, p) != freshModel(t, dir) {
		t.Errorf("after the edit a new process parsed %d files, want 0, or the model differs", parsed)
	}
}

// fileID is what tells that a file was written again: a rename of a new
// file over it changes its inode, an in-place write its modification time.
type fileID struct {
	ino   uint64
	mtime time.Time
}

func idOf(t *testing.T, path string) (fileID, bool) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		return fileID{}, false
	}
	return fileID{ino: statOf(fi).ino, mtime: fi.ModTime()}, true
}

// readDiskFile decodes the cache file at path.
func readDiskFile(t *testing.T, path string) diskFile {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f, err := decodeDiskCache(b)
	if err != nil {
		t.Fatalf("%s: %v", filepath.Base(path), err)
	}
	return f
}

func entryPaths(f diskFile) []string {
	var out []string
	for _, de := range f.entries {
		out = append(out, de.key.path)
	}
	return out
}

// editLine changes one line of the file at dir/name.
func editLine(t *testing.T, dir, name, old, new string) {
	t.Helper()
	p := filepath.Join(dir, name)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s holds no %q", name, old)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// warmBase loads dir into a new cache saved at path (a base, no journal),
// reading past the racy window so the next process trusts the stats.
func warmBase(t *testing.T, dir, path string) {
	t.Helper()
	c := NewCache()
	c.now = func() time.Time { return time.Now().Add(time.Second) }
	if _, err := LoadCached(os.DirFS(dir), c); err != nil {
		t.Fatal(err)
	}
	if err := c.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(journalPath(path)); err == nil {
		t.Fatal("a first save wrote a journal")
	}
}

// loadProcess is a new process's load of dir: seeded from path (ok), with
// the files it parsed.
func loadProcess(t *testing.T, dir, path string) (c *Cache, p *Project, ok bool, parsed int) {
	t.Helper()
	c, ok = newProcess(path)
	c.now = func() time.Time { return time.Now().Add(time.Second) }
	p, err := LoadCached(os.DirFS(dir), c)
	if err != nil {
		t.Fatal(err)
	}
	_, parsed = c.Stats()
	return c, p, ok, parsed
}

func freshModel(t *testing.T, dir string) string {
	t.Helper()
	p, err := Load(os.DirFS(dir))
	if err != nil {
		t.Fatal(err)
	}
	return summaryJSON(t, p)
}

// TestDiskCacheJournal: after a warm start a one-line edit parses one file
// and its save writes only the journal, holding just that entry; an edit
// of another file in the next process keeps both there; a save with
// nothing new writes nothing; a new process parses nothing; past a quarter
// of the base the base is rewritten and the journal removed.
func TestDiskCacheJournal(t *testing.T) {
	dir := diskTree(t)
	path := filepath.Join(t.TempDir(), "recite", DiskCacheFile)
	jpath := journalPath(path)
	if filepath.Base(jpath) != DiskJournalFile {
		t.Fatalf("journal %s, want %s", filepath.Base(jpath), DiskJournalFile)
	}
	warmBase(t, dir, path)
	baseID, _ := idOf(t, path)
	base := readDiskFile(t, path)

	editLine(t, dir, "STATE.md", "Last activity: ", "Last activity: edited; ")
	c, p, ok, parsed := loadProcess(t, dir, path)
	if !ok || parsed != 1 {
		t.Fatalf("warm start after one edit: seeded %v, parsed %d files, want 1", ok, parsed)
	}
	if summaryJSON(t, p) != freshModel(t, dir) {
		t.Fatal("the model after the edit differs from a fresh load")
	}
	if err := c.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	if id, _ := idOf(t, path); id != baseID {
		t.Error("a save after a one-line edit rewrote the base")
	}
	j := readDiskFile(t, jpath)
	if got := entryPaths(j); j.kind != kindJournal || j.base != base.crc || len(got) != 1 || got[0] != "STATE.md" {
		t.Errorf("journal kind %d of base %08x holds %v, want kind %d of %08x holding STATE.md", j.kind, j.base, got, kindJournal, base.crc)
	}

	editLine(t, dir, "ROADMAP.md", "# Roadmap", "# Roadmap (edited)")
	c, p, _, parsed = loadProcess(t, dir, path)
	if parsed != 1 || summaryJSON(t, p) != freshModel(t, dir) {
		t.Fatalf("second edit: parsed %d files, want 1, or the model differs", parsed)
	}
	if err := c.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	if id, _ := idOf(t, path); id != baseID {
		t.Error("a save after a second edit rewrote the base")
	}
	if got := entryPaths(readDiskFile(t, jpath)); strings.Join(got, " ") != "ROADMAP.md STATE.md" {
		t.Errorf("journal after two edits holds %v, want ROADMAP.md and STATE.md", got)
	}

	// Nothing new: nothing written, in a process that loaded the journal
	// and in one that saved it.
	journalID, _ := idOf(t, jpath)
	before, _ := os.ReadDir(filepath.Dir(path))
	if err := c.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	c, p, _, parsed = loadProcess(t, dir, path)
	if parsed != 0 || summaryJSON(t, p) != freshModel(t, dir) {
		t.Errorf("a new process after two edits parsed %d files, want 0, or the model differs", parsed)
	}
	if err := c.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadDir(filepath.Dir(path))
	if a, _ := idOf(t, path); a != baseID || len(after) != len(before) {
		t.Error("a save with nothing new wrote the base or left a file")
	}
	if a, _ := idOf(t, jpath); a != journalID {
		t.Error("a save with nothing new wrote the journal")
	}

	// Every file edited: the journal would pass a quarter of the base.
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") {
			b, _ := os.ReadFile(p)
			err = os.WriteFile(p, append(b, "\nEdited.\n"...), 0o644)
		}
		return err
	})
	c, _, _, parsed = loadProcess(t, dir, path)
	if err := c.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	if id, _ := idOf(t, path); id == baseID {
		t.Errorf("%d files changed and the base was not rewritten", parsed)
	}
	if _, err := os.Stat(jpath); err == nil {
		t.Error("the base was rewritten and the journal kept")
	}
	if f := readDiskFile(t, path); len(f.entries) != len(base.entries) {
		t.Errorf("rewritten base holds %d entries, want %d", len(f.entries), len(base.entries))
	}
	if _, p, _, parsed := loadProcess(t, dir, path); parsed != 0 || summaryJSON(t, p) != freshModel(t, dir) {
		t.Errorf("after the base was rewritten a new process parsed %d files, want 0, or the model differs", parsed)
	}
}

// TestDiskCacheJournalDropped: a file removed from the tree leaves the
// journal at the next save, and stays harmless in the base.
func TestDiskCacheJournalDropped(t *testing.T) {
	dir := diskTree(t)
	path := filepath.Join(t.TempDir(), DiskCacheFile)
	warmBase(t, dir, path)
	if err := os.WriteFile(filepath.Join(dir, "phases", "notes.md"), []byte("# Notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, _, _, _ := loadProcess(t, dir, path)
	_ = c.SaveFile(path)
	hadNew := strings.Contains(strings.Join(entryPaths(readDiskFile(t, journalPath(path))), " "), "notes.md")
	if err := os.Remove(filepath.Join(dir, "phases", "notes.md")); err != nil {
		t.Fatal(err)
	}
	c, p, _, parsed := loadProcess(t, dir, path)
	if parsed != 0 || summaryJSON(t, p) != freshModel(t, dir) {
		t.Errorf("after a removal parsed %d files or the model differs", parsed)
	}
	_ = c.SaveFile(path)
	if !hadNew {
		t.Fatal("a new planning file was not saved in the journal")
	}
	if _, err := os.Stat(journalPath(path)); err == nil {
		t.Errorf("the removed file's entry stayed in the journal: %v", entryPaths(readDiskFile(t, journalPath(path))))
	}
}

// rebase returns a copy of a journal naming another base, its CRC made
// good again.
func rebase(b []byte) []byte {
	b = append([]byte{}, b...)
	binary.LittleEndian.PutUint32(b[16:], binary.LittleEndian.Uint32(b[16:])+1)
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.Checksum(b[:len(b)-4], castagnoli))
	return b
}

// TestDiskCacheJournalDamaged: a torn, bit-flipped, foreign or
// out-of-date journal is ignored alone (the base still seeds the cache:
// only the edited file is parsed) and replaced by the next save; a damaged
// base is ignored with its journal.
func TestDiskCacheJournalDamaged(t *testing.T) {
	dir := diskTree(t)
	path := filepath.Join(t.TempDir(), DiskCacheFile)
	jpath := journalPath(path)
	warmBase(t, dir, path)
	goodBase, _ := os.ReadFile(path)
	editLine(t, dir, "STATE.md", "Last activity: ", "Last activity: edited; ")
	c, _, _, _ := loadProcess(t, dir, path)
	if err := c.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(jpath)
	want := freshModel(t, dir)
	flip := func(b []byte, at int) []byte { b = append([]byte{}, b...); b[at] ^= 0x10; return b }
	for name, bad := range map[string][]byte{
		"torn":         good[:len(good)/2],
		"empty":        {},
		"flipped body": flip(good, len(good)/3),
		"flipped crc":  flip(good, len(good)-1),
		"version":      flip(good, 4),
		"other base":   rebase(good),
		"a base":       goodBase,
	} {
		if err := os.WriteFile(jpath, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		c, p, ok, parsed := loadProcess(t, dir, path)
		if !ok || parsed != 1 || summaryJSON(t, p) != want {
			t.Errorf("%s journal: seeded %v, parsed %d files (want the base used, 1 file parsed), or the model differs", name, ok, parsed)
		}
		if err := c.SaveFile(path); err != nil {
			t.Fatal(err)
		}
		if j := readDiskFile(t, jpath); j.base != readDiskFile(t, path).crc {
			t.Errorf("%s journal: not replaced", name)
		}
		if _, _, _, parsed := loadProcess(t, dir, path); parsed != 0 {
			t.Errorf("%s journal: after the replacement a new process parsed %d files", name, parsed)
		}
	}

	// The base damaged, the journal good: neither seeds the cache.
	_ = os.WriteFile(jpath, good, 0o644)
	_ = os.WriteFile(path, flip(goodBase, len(goodBase)/2), 0o644)
	c, p, ok, parsed := loadProcess(t, dir, path)
	if ok || parsed < 2 || summaryJSON(t, p) != want {
		t.Errorf("damaged base: seeded %v, parsed %d files, or the model differs", ok, parsed)
	}
	if err := c.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(jpath); err == nil {
		t.Error("the journal of a damaged base was kept")
	}
	if _, _, ok, parsed := loadProcess(t, dir, path); !ok || parsed != 0 {
		t.Errorf("after replacing a damaged base: seeded %v, parsed %d files", ok, parsed)
	}
}

// rawEntries are n entries of raw bytes, sorted, with their keys.
func rawEntries(prefix string, n int) ([]cacheKey, []*cacheEntry) {
	keys := make([]cacheKey, n)
	ents := make([]*cacheEntry, n)
	for i := range keys {
		keys[i] = cacheKey{path: fmt.Sprintf("%s%05d", prefix, i)}
		ents[i] = &cacheEntry{data: []byte("x")}
	}
	return keys, ents
}

// TestDiskCacheJournalBounded: the bounds hold for the base and the
// journal together: a journal that would pass maxDiskEntries with the
// base makes a full rewrite instead, and a load ignores such a journal.
func TestDiskCacheJournalBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), DiskCacheFile)
	c := NewCache()
	keys, ents := rawEntries("base/", maxDiskEntries-3)
	for i, k := range keys {
		c.entries[k] = ents[i]
	}
	if err := c.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	baseID, _ := idOf(t, path)
	// Two new entries fit beside the base: a journal.
	keys, ents = rawEntries("new/", 5)
	for i := range 2 {
		c.entries[keys[i]] = ents[i]
	}
	c.dirty = true
	if err := c.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	if id, _ := idOf(t, path); id != baseID || len(readDiskFile(t, journalPath(path)).entries) != 2 {
		t.Fatal("two new entries beside the base were not saved in a journal alone")
	}
	// Five do not: the base is rewritten, to the bound.
	for i := range keys {
		c.entries[keys[i]] = ents[i]
	}
	c.dirty = true
	if err := c.SaveFile(path); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(journalPath(path)); err == nil {
		t.Error("a journal past the bounds was kept")
	}
	if n := len(readDiskFile(t, path).entries); n != maxDiskEntries {
		t.Errorf("rewritten base holds %d entries, want %d", n, maxDiskEntries)
	}

	// A journal that passes the bound with its base is ignored.
	bk, be := rawEntries("base/", maxDiskEntries-1)
	recs, _, _ := encodeRecords(bk, be, maxDiskEntries, maxDiskBytes)
	var b strings.Builder
	crc, _ := writeDiskFile(&b, kindBase, 0, recs)
	_ = os.WriteFile(path, []byte(b.String()), 0o644)
	recs, _, _ = encodeRecords(keys, ents, maxDiskEntries, maxDiskBytes)
	b.Reset()
	_, _ = writeDiskFile(&b, kindJournal, crc, recs)
	_ = os.WriteFile(journalPath(path), []byte(b.String()), 0o644)
	c2, ok := newProcess(path)
	if !ok || len(c2.entries) != maxDiskEntries-1 {
		t.Errorf("base and journal past the bound: seeded %v with %d entries, want the base's %d", ok, len(c2.entries), maxDiskEntries-1)
	}
}

// FuzzDecodeDiskCache: no input makes the decoder panic, and every
// rejection wraps errDiskCache.
func FuzzDecodeDiskCache(f *testing.F) {
	keys := []cacheKey{{path: "ROADMAP.md"}, {path: "STATE.md", fmOnly: true}, {path: "bin.dat"}, {path: "config.json"}}
	ents := []*cacheEntry{
		{doc: markdown.Parse("ROADMAP.md", []byte("# Roadmap\n\n## Phase 1\n\n- [ ] a task\n")), data: []byte("# Roadmap\n")},
		{doc: markdown.Parse("STATE.md", []byte("---\nstatus: x\n---\n")), diags: []Diagnostic{{Path: "STATE.md", Line: 2, Message: "invalid UTF-8"}}},
		{skipped: true},
		{data: []byte(`{"a":1}`), readAt: time.Unix(1, 2)},
	}
	recs, _, _ := encodeRecords(keys, ents, maxDiskEntries, maxDiskBytes)
	var b strings.Builder
	crc, _ := writeDiskFile(&b, kindBase, 0, recs)
	f.Add([]byte(b.String()))
	b.Reset()
	_, _ = writeDiskFile(&b, kindJournal, crc, recs[:2])
	f.Add([]byte(b.String()))
	f.Add([]byte(diskMagic))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := decodeDiskCache(data)
		if err != nil && !errors.Is(err, errDiskCache) {
			t.Fatalf("error %v does not wrap errDiskCache", err)
		}
	})
}

// TestDiskCacheLazyDocuments: a new process decodes the documents its load
// uses, not the front matter it reads for diagnostics alone, nor entries it
// does not use; a document whose bytes do not decode (under a good CRC) is
// parsed again from its file, and the model is a fresh load's.
func TestDiskCacheLazyDocuments(t *testing.T) {
	dir := diskTree(t)
	path := filepath.Join(t.TempDir(), DiskCacheFile)
	warmBase(t, dir, path)
	want := freshModel(t, dir)

	c, p, ok, parsed := loadProcess(t, dir, path)
	if !ok || parsed != 0 || summaryJSON(t, p) != want {
		t.Fatalf("warm load: seeded %v, %d parsed, model equal %v", ok, parsed, summaryJSON(t, p) == want)
	}
	var decoded, lazy int
	for k, e := range c.entries {
		switch {
		case e.doc != nil && k.fmOnly:
			t.Errorf("%s: front matter read for its diagnostics was decoded", k.path)
		case e.doc != nil:
			decoded++
		case e.undecoded:
			lazy++
		}
	}
	if decoded == 0 || lazy == 0 {
		t.Errorf("%d documents decoded, %d left undecoded", decoded, lazy)
	}

	// Damage the document of ROADMAP.md in the base, and re-seal it.
	f := readDiskFile(t, path)
	var keys []cacheKey
	var ents []*cacheEntry
	for _, de := range f.entries {
		if de.key.path == "ROADMAP.md" && !de.key.fmOnly {
			de.entry.blob = "\x00not a document"
		}
		keys, ents = append(keys, de.key), append(ents, de.entry)
	}
	if err := os.WriteFile(path, encodeDiskCache(keys, ents), 0o644); err != nil {
		t.Fatal(err)
	}
	_, p, ok, parsed = loadProcess(t, dir, path)
	if !ok || parsed != 1 || summaryJSON(t, p) != want {
		t.Errorf("a document that does not decode: seeded %v, %d parsed (want 1), model equal %v", ok, parsed, summaryJSON(t, p) == want)
	}
}

package planning

import (
	"io/fs"
	"sync"
	"time"

	"github.com/recite-dev/recite/markdown"
)

// Cache keeps what a load read and derived from each file between loads,
// so that a rebuild after one edit re-reads only the file that changed
// (issue "recite build", measures: warm rebuild ≤ 10% of a cold one). It
// is safe for concurrent use. Entries for files not seen in the latest load
// are dropped, so the cache never outgrows the tree.
//
// A file is not read again when its stat (size, modification and change
// time, inode, mode) is the one recorded and the entry is not racy: its
// timestamps lie at least racyWindow before the moment its bytes were
// read, so any later write would carry a later timestamp (the "racy git"
// problem: a write within the same timestamp tick as the read leaves the
// stat unchanged). A racy entry, or a file whose stat changed, is read and
// compared with the bytes kept from the previous read; unchanged bytes
// reuse the parsed document, changed ones are re-read by markdown's
// Reparse, which re-parses only the top-level section that changed.
type Cache struct {
	mu      sync.Mutex
	entries map[cacheKey]*cacheEntry
	seen    map[cacheKey]bool
	// dirs are folder listings, reused while the folder's stat holds.
	dirs     map[string]*dirEntry
	seenDirs map[string]bool
	reader   *markdown.Reader
	hits     int
	misses   int
	skips    int
	// derivations counts the runs of derive's functions (tests).
	derivations int
	// dirty is set when an entry was added, refreshed or dropped since the
	// cache was seeded from or saved to its file (diskcache.go); saved once
	// it was. base is the parsed-file cache's base file as last loaded or
	// written.
	dirty, saved bool
	base         diskBase
	// now is the clock, replaceable in tests.
	now func() time.Time
	// model is the key of the derived results' model (derivedModel).
	model string
}

type cacheKey struct {
	path   string
	fmOnly bool
}

// cacheEntry is one file as last read.
type cacheEntry struct {
	stat   fileStat
	readAt time.Time
	// data is the bytes read (after the UTF-8 repair; only the front
	// matter for front-matter-only reads), compared with the next read.
	data []byte
	// diags are the reading problems (invalid UTF-8, binary content);
	// skipped is set when the file was binary.
	diags   []Diagnostic
	skipped bool
	// doc is the parsed document: nil for a raw or skipped read, and for
	// an entry seeded from the parsed-file cache until it is used
	// (undecoded: blob holds its binary form; Cache.document decodes it).
	// docDiags are the document's own diagnostics (doc.Diagnostics), kept
	// apart so that a read of the front matter for its diagnostics alone
	// decodes nothing.
	doc       *markdown.Document
	undecoded bool
	docDiags  []Diagnostic
	// derived holds results computed from doc (see derive); saved those
	// of them kept in the parsed-file cache, in their saved form, under
	// the model savedModel (derivedcache.go).
	derived    map[string]any
	saved      map[string]string
	savedModel string
	// sum is the SHA-256 of the bytes read, once computed (hasSum); an
	// entry seeded from the parsed-file cache has it instead of data.
	sum    [32]byte
	hasSum bool
	// blob is the entry's payload in the parsed-file cache (the document's
	// binary form, or the bytes of a raw read), encoded once (hasBlob).
	blob    string
	hasBlob bool
	// disk says where the parsed-file cache holds the entry as it is (in
	// its base, its journal, or not at all).
	disk diskState
}

// dirEntry is one folder's listing as last read.
type dirEntry struct {
	stat   fileStat
	readAt time.Time
	list   []fs.DirEntry
}

// fileStat is what a stat tells about a file's content without reading it.
type fileStat struct {
	size         int64
	mtime, ctime int64 // Unix nanoseconds; ctime 0 where unknown
	ino, dev     uint64
	mode         fs.FileMode
}

// racyWindow is how long after a file's last timestamp its stat is not
// trusted: Linux stamps files from a coarse clock (up to one jiffy, 10 ms at
// HZ=100, behind the wall clock), so 100 ms covers it; stamps without a
// sub-second part come from a filesystem with whole (FAT: two) seconds, and
// get racyWindowCoarse.
const (
	racyWindow       = 100 * time.Millisecond
	racyWindowCoarse = 2 * time.Second
)

func statOf(info fs.FileInfo) fileStat {
	st := fileStat{size: info.Size(), mode: info.Mode()}
	if !info.ModTime().IsZero() {
		st.mtime = info.ModTime().UnixNano()
	}
	sysStat(info, &st)
	return st
}

// trusted reports whether an entry read at readAt with stat st can be
// reused on seeing cur without reading the file.
func (st fileStat) trusted(cur fileStat, readAt time.Time) bool {
	if st != cur || st.mtime == 0 || readAt.IsZero() {
		return false
	}
	last := max(st.mtime, st.ctime)
	window := racyWindow
	if st.mtime%int64(time.Second) == 0 {
		window = racyWindowCoarse
	}
	return last < readAt.Add(-window).UnixNano()
}

// NewCache returns an empty cache.
func NewCache() *Cache {
	return &Cache{entries: map[cacheKey]*cacheEntry{}, seen: map[cacheKey]bool{}, dirs: map[string]*dirEntry{}, seenDirs: map[string]bool{},
		reader: markdown.NewReader(), now: time.Now, model: derivedModel()}
}

// Stats reports how many parses were served from the cache (hits, including
// files not read at all) and how many ran the parser (misses) since the
// cache was made.
func (c *Cache) Stats() (hits, misses int) {
	if c == nil {
		return 0, 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.hits, c.misses
}

// Unread reports how many times a file was reused on its stat alone,
// without being read.
func (c *Cache) Unread() int {
	if c == nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.skips
}

// fresh returns the entry for k when the file's stat proves it unchanged
// (and, for a raw read, the entry holds the bytes).
func (c *Cache) fresh(k cacheKey, st fileStat, raw bool) *cacheEntry {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seen[k] = true
	e, ok := c.entries[k]
	if !ok || !e.stat.trusted(st, e.readAt) || raw && e.data == nil {
		return nil
	}
	c.hits++
	c.skips++
	return e
}

// clock returns the time to record as the moment of a read; it is taken
// before the read starts.
func (c *Cache) clock() time.Time {
	if c == nil {
		return time.Time{}
	}
	return c.now()
}

// store records the bytes read for k (taken at readAt, with stat st) and
// returns the entry, parsing data as markdown unless raw: from the cache
// when the bytes are unchanged, by Reparse of the previous document when
// they changed. A nil cache only parses.
func (c *Cache) store(k cacheKey, st fileStat, readAt time.Time, data []byte, diags []Diagnostic, skipped, raw bool) *cacheEntry {
	if c == nil {
		e := &cacheEntry{diags: diags, skipped: skipped, data: data}
		if !skipped && !raw {
			e.setDoc(markdown.Parse(k.path, data))
		}
		return e
	}
	c.mu.Lock()
	c.seen[k] = true
	old := c.entries[k]
	if old != nil && old.skipped == skipped && old.sameBytes(data) && (raw || skipped || old.hasDoc()) {
		// The same bytes read again: worth saving only under a new stat,
		// so a build over an unchanged tree leaves the parsed-file cache
		// as it was (an entry saved racy is read and hashed again by the
		// next process, not parsed).
		if old.stat != st {
			c.dirty, old.disk = true, notOnDisk
		}
		old.stat, old.readAt = st, readAt
		if old.data == nil {
			old.data = data // seeded from the parsed-file cache: only the hash was kept
		}
		c.hits++
		c.mu.Unlock()
		return old
	}
	c.misses++
	c.mu.Unlock()
	e := &cacheEntry{stat: st, readAt: readAt, data: data, diags: diags, skipped: skipped}
	var prev *markdown.Document
	if old != nil && !skipped && !raw {
		prev = c.document(old)
	}
	switch {
	case skipped, raw:
	case prev != nil:
		e.setDoc(c.reader.Reparse(prev, data))
	default:
		e.setDoc(c.reader.Parse(k.path, data))
	}
	c.mu.Lock()
	c.entries[k] = e
	c.dirty = true
	c.mu.Unlock()
	return e
}

// setDoc makes doc the entry's document.
func (e *cacheEntry) setDoc(doc *markdown.Document) {
	e.doc, e.undecoded, e.docDiags = doc, false, doc.Diagnostics
}

// hasDoc reports whether the entry holds a document, decoded or not.
func (e *cacheEntry) hasDoc() bool { return e.doc != nil || e.undecoded }

// document returns e's document, decoding it on first use when e was
// seeded from the parsed-file cache; nil when e has none, or when its
// bytes do not decode (the entry then holds no document, and the file is
// parsed again by the next read of it). A nil cache holds decoded entries
// only.
func (c *Cache) document(e *cacheEntry) *markdown.Document {
	if c == nil || e == nil {
		if e == nil {
			return nil
		}
		return e.doc
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if e.undecoded {
		doc, err := markdown.DecodeDocumentString(e.blob)
		e.undecoded = false
		if err == nil {
			e.doc = doc
		} else {
			e.hasBlob, e.blob = false, ""
		}
	}
	return e.doc
}

// derive returns the result of fn for the document of e, computed once per
// document and kept with the entry: a file whose bytes did not change gives
// the same result without running fn, in this process and, for the kinds
// the parsed-file cache saves (derivedcache.go), in the next ones. Results
// are shared between Projects and must be treated as read-only (or copied
// before changes).
func (c *Cache) derive(e *cacheEntry, key string, fn func() any) any {
	if c == nil || e == nil {
		return fn()
	}
	c.mu.Lock()
	v, ok := e.derived[key]
	saved, isSaved := e.saved[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	if isSaved {
		if v, ok := decodeDerived(key, saved); ok {
			c.mu.Lock()
			if e.derived == nil {
				e.derived = map[string]any{}
			}
			e.derived[key] = v
			c.mu.Unlock()
			return v
		}
	}
	v = fn()
	s, save := encodeDerived(key, v)
	c.mu.Lock()
	c.derivations++
	if e.derived == nil {
		e.derived = map[string]any{}
	}
	e.derived[key] = v
	if save && (e.savedModel != c.model || e.saved[key] != s) {
		if e.savedModel != c.model {
			e.saved, e.savedModel = map[string]string{}, c.model
		}
		e.saved[key] = s
		// Saved again with its result (in the journal, if it was in the
		// base).
		e.disk, c.dirty = notOnDisk, true
	}
	c.mu.Unlock()
	return v
}

// listDir returns fs.ReadDir(fsys, dir), from the cache when the folder's
// stat is unchanged and not racy: adding, removing or renaming an entry
// changes a folder's modification time, as writing a file changes the
// file's. A nil cache always reads.
func (c *Cache) listDir(fsys fs.FS, dir string) ([]fs.DirEntry, error) {
	if c == nil {
		return fs.ReadDir(fsys, dir)
	}
	info, err := fs.Stat(fsys, dir)
	if err != nil {
		return nil, err
	}
	st := statOf(info)
	c.mu.Lock()
	c.seenDirs[dir] = true
	if e, ok := c.dirs[dir]; ok && e.stat.trusted(st, e.readAt) {
		c.mu.Unlock()
		return e.list, nil
	}
	c.mu.Unlock()
	readAt := c.now()
	list, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return list, err
	}
	c.mu.Lock()
	c.dirs[dir] = &dirEntry{stat: st, readAt: readAt, list: list}
	c.mu.Unlock()
	return list, nil
}

// sweep drops entries for files and folders not seen since the previous
// sweep.
func (c *Cache) sweep() {
	if c == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for k := range c.entries {
		if !c.seen[k] {
			// One the base holds stays there, harmless, until the base
			// is rewritten (SaveFile); one in the journal leaves it at
			// the next save; one on neither needs no write.
			if c.entries[k].disk == inJournal {
				c.dirty = true
			}
			delete(c.entries, k)
		}
	}
	for d := range c.dirs {
		if !c.seenDirs[d] {
			delete(c.dirs, d)
		}
	}
	c.seen, c.seenDirs = map[cacheKey]bool{}, map[string]bool{}
}

package planning

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/recite-dev/recite/internal/fsutil"
)

// The parsed-file cache keeps a Cache's entries on disk between processes
// (docs/formats.md#parsed-file-cache), so that a build in a new process
// after a one-line edit parses only the file that changed. It is two files
// of one format, normally .planning/.recite/parsed-files.bin (the base) and
// parsed-files.journal.bin beside it (the journal):
//
//	magic "RPFC", the cache version and markdown's binary version, the
//	file's kind (0 base, 1 journal), for a journal the CRC-32C of the base
//	it extends (0 in a base), the number of entries (uint32 each,
//	little-endian), then per entry: its path and whether only the front
//	matter was read, the file's stat (size, modification and change time,
//	inode, device, mode), when it was read, the SHA-256 of the bytes read,
//	whether it was skipped (binary), its reading diagnostics, its
//	document's diagnostics, the results derived from it (the key of their
//	model, their number, and each derivation's name and saved form:
//	derivedcache.go), and either the bytes themselves (a file read
//	raw, such as config.json) or the parsed document (markdown's binary
//	form, decoded when a load uses it); last the CRC-32C (Castagnoli) of
//	everything before it.
//
// Integers are varints unless said. A load reads the base, then the
// journal, whose entries replace the base's under the same key. A save
// after a one-line edit rewrites only the journal, with every entry not in
// the base as it is there (new, re-parsed, or under a new stat), so it
// writes kilobytes where the base is megabytes on a large tree; once the
// journal would pass a quarter of the base (journalRatio), or the bounds,
// the base is rewritten with every entry and the journal removed.
//
// An entry is used as the in-memory cache uses its own: without reading
// the file when the stat matches and the read was not racy, else after
// reading it when the bytes' hash matches; so an out-of-date entry costs a
// parse, never a wrong model. A file that fails any check (a torn write, a
// flipped bit, another version) is ignored whole and replaced at the next
// save, never trusted: a bad journal alone (the base still loads), a bad
// base with its journal. The base is written atomically (a temporary file
// renamed over it), the journal, saved after every edit, over itself in
// place (fsutil.Overwrite: no new inode each time), both without fsync: a
// lost or torn write fails the CRC and costs a parse.
//
// Two processes may save at once. Each file is written whole (two writes of
// the journal at once in place leave a mix that fails the CRC), so the worst
// cases are a lost update (the entries of one save are parsed again by the
// next process) and a journal written for a base another process has
// replaced since: the journal names its base by the base's CRC-32C, and a
// journal naming another base is ignored, so it can never stand in for the
// newer base's entries.

// DiskCacheFile is the parsed-file cache's base in the recite folder.
const DiskCacheFile = "parsed-files.bin"

// DiskJournalFile is the parsed-file cache's journal, beside the base.
const DiskJournalFile = "parsed-files.journal.bin"

// journalPath is the journal beside the base at path: parsed-files.bin
// gives parsed-files.journal.bin.
func journalPath(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + ".journal" + ext
}

const (
	diskMagic = "RPFC"
	// diskVersion 3 keeps each document's diagnostics beside it, so that
	// documents are decoded only when used, and the results derived from
	// it.
	diskVersion = 3
	// diskHeaderLen is magic, versions, kind, base CRC and count.
	diskHeaderLen = 24
	kindBase      = 0
	kindJournal   = 1
)

// journalRatio bounds the journal at a quarter of the base's bytes. Past
// it the base is rewritten: the journal's entries are loaded (and the base
// entries they replace decoded for nothing) by every new process, and each
// save rewrites the whole journal, so a journal kept within a quarter costs
// a new process at most a quarter more to load and a save at most a quarter
// of a full rewrite, while the full rewrites come at most once per quarter
// of the base's bytes of changed entries. The usual edit (the same few
// files, STATE.md above all) never reaches it.
const journalRatio = 4

// Bounds of the parsed-file cache, for the base and the journal together:
// entries past them are not saved (those files are parsed again by the
// next process).
const (
	maxDiskEntries = 20000
	maxDiskBytes   = 64 << 20
)

// errDiskCache is wrapped by every reason to ignore a cache file.
var errDiskCache = errors.New("parsed-file cache unusable")

// diskState says where an entry is saved as it is.
type diskState uint8

const (
	notOnDisk diskState = iota // new, re-parsed, or its stat changed
	inBase
	inJournal
)

// diskBase is the base file as last loaded or written: its CRC-32C (the
// journal names it), its entries and its bytes.
type diskBase struct {
	ok    bool
	crc   uint32
	n     int
	bytes int
}

// LoadFile seeds an empty cache with the entries saved at path (the base)
// and in the journal beside it by SaveFile, and reports whether it did. A
// missing, damaged or foreign base seeds nothing (ok is false) and its
// journal is not read; a damaged, foreign or out-of-date journal is
// ignored alone, and replaced at the next save. A cache that already holds
// entries is left as it is.
func (c *Cache) LoadFile(path string) (ok bool) {
	if c == nil {
		return false
	}
	data, err := readBase(path)
	if err != nil {
		return false
	}
	base, err := decodeDiskCache(data)
	if err != nil || base.kind != kindBase {
		return false
	}
	var journal diskFile
	badJournal := false
	if jdata, err := os.ReadFile(journalPath(path)); err == nil {
		journal, err = decodeDiskCache(jdata)
		if err != nil || journal.kind != kindJournal || journal.base != base.crc ||
			len(base.entries)+len(journal.entries) > maxDiskEntries {
			journal, badJournal = diskFile{}, true
		}
	} else if !errors.Is(err, fs.ErrNotExist) {
		badJournal = true
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) > 0 {
		return false
	}
	entries := make(map[cacheKey]*cacheEntry, len(base.entries)+len(journal.entries))
	for _, de := range base.entries {
		de.entry.disk = inBase
		entries[de.key] = de.entry
	}
	for _, de := range journal.entries {
		de.entry.disk = inJournal
		entries[de.key] = de.entry
	}
	for _, e := range entries {
		if e.savedModel != c.model {
			// Derived by another model: derived again, and saved anew.
			e.saved, e.savedModel = nil, ""
		}
	}
	c.entries = entries
	c.base = diskBase{ok: true, crc: base.crc, n: len(base.entries), bytes: len(data)}
	// A journal that cannot be used is replaced by the next save even when
	// nothing else changed.
	c.saved, c.dirty = true, badJournal
	return true
}

// SaveFile writes the cache's entries when they changed since the cache
// was seeded or last saved, without fsync, sorted by path: the journal
// beside path alone (written over in place), with the entries not in the
// base as they are, while the base is valid and the journal stays within
// a quarter of it (journalRatio) and the bounds; else the base at path
// (atomically) with every entry (at most maxDiskEntries and
// maxDiskBytes), removing the journal. It writes nothing for a cache with
// nothing new.
//
// Entries dropped from the cache (files gone from the tree) stay in the
// base until its next full rewrite: they are harmless there, as no load
// looks a file up that the tree does not hold (and a file that comes back
// is checked against its stat or hash like any entry). Errors: creating
// the folder or writing a file.
func (c *Cache) SaveFile(path string) error {
	if c == nil {
		return nil
	}
	// Written under the lock: a load may update an entry's stat meanwhile.
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.saved && !c.dirty {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save parsed files: %w", err)
	}
	jpath := journalPath(path)
	if c.base.ok {
		keys, ents := c.sorted(func(e *cacheEntry) bool { return e.disk != inBase })
		recs, size, cut := encodeRecords(keys, ents, maxDiskEntries-c.base.n, maxDiskBytes-c.base.bytes)
		if !cut && diskHeaderLen+size+4 <= c.base.bytes/journalRatio {
			if err := c.writeJournal(jpath, recs); err != nil {
				return fmt.Errorf("save parsed files: %w", err)
			}
			c.dirty, c.saved = false, true
			return nil
		}
	}
	keys, ents := c.sorted(nil)
	recs, size, _ := encodeRecords(keys, ents, maxDiskEntries, maxDiskBytes)
	var crc uint32
	err := fsutil.WriteNoSync(path, 0o644, func(w io.Writer) (err error) {
		crc, err = writeDiskFile(w, kindBase, 0, recs)
		return err
	})
	if err != nil {
		return fmt.Errorf("save parsed files: %w", err)
	}
	// The journal extends the base just replaced: gone with it. Left
	// behind (a failed remove), it names the old base and is ignored.
	_ = os.Remove(jpath)
	for _, e := range ents {
		e.disk = notOnDisk
	}
	for _, r := range recs {
		r.e.disk = inBase
	}
	c.base = diskBase{ok: true, crc: crc, n: len(recs), bytes: diskHeaderLen + size + 4}
	c.dirty, c.saved = false, true
	return nil
}

// writeJournal replaces the journal at path with recs (removes it when
// there are none) and marks them saved there. The cache's lock is held.
func (c *Cache) writeJournal(path string, recs []diskRecord) error {
	if len(recs) == 0 {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	err := fsutil.Overwrite(path, 0o644, func(w io.Writer) error {
		_, err := writeDiskFile(w, kindJournal, c.base.crc, recs)
		return err
	})
	if err != nil {
		return err
	}
	for _, r := range recs {
		r.e.disk = inJournal
	}
	return nil
}

// sorted returns the entries that keep reports true for (all for nil)
// with their keys, sorted by path then front-matter-only. The cache's lock
// is held.
func (c *Cache) sorted(keep func(*cacheEntry) bool) ([]cacheKey, []*cacheEntry) {
	keys := make([]cacheKey, 0, len(c.entries))
	for k, e := range c.entries {
		if keep == nil || keep(e) {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b cacheKey) int {
		if a.path != b.path {
			return compareStrings(a.path, b.path)
		}
		return compareBool(a.fmOnly, b.fmOnly)
	})
	ents := make([]*cacheEntry, len(keys))
	for i, k := range keys {
		ents[i] = c.entries[k]
	}
	return keys, ents
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func compareBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// sameBytes reports whether data are the bytes old was read from: by
// comparison when old kept them, else by their hash (an entry from the
// parsed-file cache keeps only the hash of a parsed file).
func (old *cacheEntry) sameBytes(data []byte) bool {
	if old.data != nil || !old.hasSum {
		return bytes.Equal(old.data, data)
	}
	return sha256.Sum256(data) == old.sum
}

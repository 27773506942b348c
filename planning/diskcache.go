package planning

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
	"unsafe"

	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/recite-dev/recite/markdown"
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
//	document's diagnostics, and either the bytes themselves (a file read
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
	// documents are decoded only when used.
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
	maps := make(map[cacheKey]*cacheEntry, len(base.entries)+len(journal.entries))
	for _, de := range base.entries {
		de.entry.disk = inBase
		maps[de.key] = de.entry
	}
	for _, de := range journal.entries {
		de.entry.disk = inJournal
		maps[de.key] = de.entry
	}
	c.entries = maps
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

// encodeDiskCache formats the entries (sorted, with their keys) as a base
// file's bytes, within the bounds.
func encodeDiskCache(keys []cacheKey, ents []*cacheEntry) []byte {
	var b bytes.Buffer
	recs, _, _ := encodeRecords(keys, ents, maxDiskEntries, maxDiskBytes)
	_, _ = writeDiskFile(&b, kindBase, 0, recs)
	return b.Bytes()
}

// diskRecord is one entry as saved: its head (up to the payload, which is
// e.blob).
type diskRecord struct {
	head []byte
	e    *cacheEntry
}

// encodeRecords encodes the entries (sorted, with their keys) up to the
// bounds (at most maxN entries; the entry that passes maxBytes is the
// last) and returns them with their bytes; cut reports that the bounds
// left entries out. An entry whose document cannot be encoded is left out.
func encodeRecords(keys []cacheKey, ents []*cacheEntry, maxN, maxBytes int) (recs []diskRecord, size int, cut bool) {
	for i, e := range ents {
		if len(recs) >= maxN || size > maxBytes {
			return recs, size, true
		}
		head, err := appendDiskEntry(nil, keys[i], e)
		if err != nil {
			continue
		}
		recs = append(recs, diskRecord{head, e})
		size += len(head) + len(e.blob)
	}
	return recs, size, false
}

// writeDiskFile writes a cache file of the kind (a journal names the CRC
// of its base) holding recs to w, and returns its CRC-32C; the payloads
// are written as they are, not copied.
func writeDiskFile(w io.Writer, kind, base uint32, recs []diskRecord) (uint32, error) {
	crc := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(w, crc), 256<<10)
	b := []byte(diskMagic)
	b = binary.LittleEndian.AppendUint32(b, diskVersion)
	b = binary.LittleEndian.AppendUint32(b, markdown.BinaryVersion)
	b = binary.LittleEndian.AppendUint32(b, kind)
	b = binary.LittleEndian.AppendUint32(b, base)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(recs)))
	_, _ = bw.Write(b)
	for _, r := range recs {
		_, _ = bw.Write(r.head)
		_, _ = bw.WriteString(r.e.blob)
	}
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	sum := crc.Sum32()
	_, err := w.Write(binary.LittleEndian.AppendUint32(nil, sum))
	return sum, err
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// appendDiskEntry appends one entry up to its payload (which follows it:
// e.blob, encoded here once), computing its hash once when the entry has
// its bytes. The cache's lock is held.
func appendDiskEntry(b []byte, k cacheKey, e *cacheEntry) ([]byte, error) {
	str := func(s string) {
		b = binary.AppendUvarint(b, uint64(len(s)))
		b = append(b, s...)
	}
	flag := func(v bool) {
		if v {
			b = append(b, 1)
		} else {
			b = append(b, 0)
		}
	}
	str(k.path)
	flag(k.fmOnly)
	st := e.stat
	b = binary.AppendVarint(b, st.size)
	b = binary.AppendVarint(b, st.mtime)
	b = binary.AppendVarint(b, st.ctime)
	b = binary.AppendUvarint(b, st.ino)
	b = binary.AppendUvarint(b, st.dev)
	b = binary.AppendUvarint(b, uint64(st.mode))
	b = binary.AppendVarint(b, e.readAt.UnixNano())
	sum := e.sum
	if e.data != nil || !e.hasSum {
		sum = sha256.Sum256(e.data)
		e.sum, e.hasSum = sum, true
	}
	b = append(b, sum[:]...)
	flag(e.skipped)
	for _, diags := range [][]Diagnostic{e.diags, e.docDiags} {
		b = binary.AppendUvarint(b, uint64(len(diags)))
		for _, d := range diags {
			str(d.Path)
			b = binary.AppendVarint(b, int64(d.Line))
			str(d.Message)
		}
	}
	switch {
	case e.skipped:
		b = append(b, 0)
		return b, nil
	case !e.hasDoc():
		b = append(b, 1) // read raw: the bytes
		if !e.hasBlob {
			e.blob, e.hasBlob = string(e.data), true
		}
	default:
		b = append(b, 2)
		if !e.hasBlob {
			// Sized for the usual whole document (its binary form is
			// about 1.4 times the file), so the encoding is not copied
			// as it grows; front matter alone is small.
			size := int64(512)
			if !k.fmOnly {
				size += e.stat.size * 3 / 2
			}
			doc, err := e.doc.AppendBinary(make([]byte, 0, size))
			if err != nil {
				return b, err
			}
			if cap(doc) > len(doc)+len(doc)/4+512 {
				// Far smaller than the buffer: copied, so the entry does
				// not keep the buffer alive.
				e.blob = string(doc)
			} else {
				// The second unsafe conversion of the package: doc is
				// never written again once encoded.
				e.blob = unsafe.String(unsafe.SliceData(doc), len(doc))
			}
			e.hasBlob = true
		}
	}
	return binary.AppendUvarint(b, uint64(len(e.blob))), nil
}

// diskEntry is one decoded entry.
type diskEntry struct {
	key   cacheKey
	entry *cacheEntry
}

// diskFile is one decoded cache file: its kind, the CRC of the base a
// journal extends, its own CRC and its entries.
type diskFile struct {
	kind, base, crc uint32
	entries         []diskEntry
}

// decodeDiskCache parses a cache file, base or journal. It takes data
// over: the entries' strings (paths, diagnostics, payloads, the documents'
// text) are slices of it rather than copies, so a build in a new process
// neither copies the cache (megabytes on a large tree) nor faults in fresh
// pages for the copy; the caller must not change data afterwards. Every
// error wraps errDiskCache.
func decodeDiskCache(data []byte) (diskFile, error) {
	if len(data) < diskHeaderLen+4 {
		return diskFile{}, fmt.Errorf("%w: %d bytes", errDiskCache, len(data))
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return diskFile{}, fmt.Errorf("%w: checksum", errDiskCache)
	}
	if string(body[:4]) != diskMagic || binary.LittleEndian.Uint32(body[4:]) != diskVersion ||
		binary.LittleEndian.Uint32(body[8:]) != markdown.BinaryVersion {
		return diskFile{}, fmt.Errorf("%w: magic or version", errDiskCache)
	}
	f := diskFile{kind: binary.LittleEndian.Uint32(body[12:]), base: binary.LittleEndian.Uint32(body[16:]), crc: sum}
	if f.kind != kindBase && f.kind != kindJournal || f.kind == kindBase && f.base != 0 {
		return diskFile{}, fmt.Errorf("%w: kind %d", errDiskCache, f.kind)
	}
	n := int(binary.LittleEndian.Uint32(body[20:]))
	if n > maxDiskEntries {
		return diskFile{}, fmt.Errorf("%w: %d entries", errDiskCache, n)
	}
	// One of the two unsafe conversions of the package: body is never
	// written again (see above), which is what makes a string of it sound
	// (unsafe.String's contract).
	r := &diskReader{b: unsafe.String(unsafe.SliceData(body[diskHeaderLen:]), len(body)-diskHeaderLen)}
	f.entries = make([]diskEntry, 0, min(n, len(r.b)/sha256.Size))
	for range n {
		de, err := r.entry()
		if err != nil {
			return diskFile{}, err
		}
		f.entries = append(f.entries, de)
	}
	if len(r.b) != 0 {
		return diskFile{}, fmt.Errorf("%w: trailing bytes", errDiskCache)
	}
	return f, nil
}

// diskReader reads the entries of a cache file from a string, so the
// documents' strings are slices of it.
type diskReader struct {
	b   string
	err error
}

func (r *diskReader) fail() {
	if r.err == nil {
		r.err = fmt.Errorf("%w: truncated entry", errDiskCache)
	}
	r.b = ""
}

func (r *diskReader) uvarint() uint64 {
	v, n := binary.Uvarint([]byte(r.b[:min(len(r.b), binary.MaxVarintLen64)]))
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *diskReader) varint() int64 {
	v, n := binary.Varint([]byte(r.b[:min(len(r.b), binary.MaxVarintLen64)]))
	if n <= 0 {
		r.fail()
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *diskReader) take(n uint64) string {
	if n > uint64(len(r.b)) {
		r.fail()
		return ""
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

func (r *diskReader) str() string { return r.take(r.uvarint()) }

func (r *diskReader) flag() bool { return r.take(1) == "\x01" }

// diagnostics reads a count and that many diagnostics.
func (r *diskReader) diagnostics() []Diagnostic {
	nd := r.uvarint()
	if nd > uint64(len(r.b)) {
		r.fail()
	}
	var out []Diagnostic
	for i := uint64(0); i < nd && r.err == nil; i++ {
		out = append(out, Diagnostic{Path: r.str(), Line: int(r.varint()), Message: r.str()})
	}
	return out
}

func (r *diskReader) entry() (diskEntry, error) {
	k := cacheKey{path: r.str(), fmOnly: r.flag()}
	e := &cacheEntry{}
	e.stat = fileStat{size: r.varint(), mtime: r.varint(), ctime: r.varint(), ino: r.uvarint(), dev: r.uvarint(), mode: fs.FileMode(r.uvarint())}
	if at := r.varint(); at != 0 {
		e.readAt = time.Unix(0, at)
	}
	copy(e.sum[:], r.take(sha256.Size))
	e.hasSum = true
	e.skipped = r.flag()
	e.diags, e.docDiags = r.diagnostics(), r.diagnostics()
	kind := r.take(1)
	if r.err != nil {
		return diskEntry{}, r.err
	}
	switch {
	case kind[0] == 0 && e.skipped:
	case kind[0] == 1 && !e.skipped:
		e.blob, e.hasBlob = r.str(), true
		e.data = []byte(e.blob)
	case kind[0] == 2 && !e.skipped:
		// Decoded when a load uses it (Cache.document): a new process
		// decodes the documents it reads, not every one the cache holds.
		e.blob, e.hasBlob, e.undecoded = r.str(), true, true
	default:
		return diskEntry{}, fmt.Errorf("%w: entry kind %d", errDiskCache, kind[0])
	}
	if r.err != nil {
		return diskEntry{}, r.err
	}
	return diskEntry{k, e}, nil
}

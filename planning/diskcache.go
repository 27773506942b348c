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
	"time"
	"unsafe"

	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/recite-dev/recite/markdown"
)

// The parsed-file cache keeps a Cache's entries on disk between processes
// (docs/formats.md#parsed-file-cache), so that a build in a new process
// after a one-line edit parses only the file that changed. It is one file,
// normally .planning/.recite/parsed-files.bin:
//
//	magic "RPFC", the cache version and markdown's binary version
//	(uint32 each), the number of entries (uint32), then per entry: its
//	path and whether only the front matter was read, the file's stat
//	(size, modification and change time, inode, device, mode), when it was
//	read, the SHA-256 of the bytes read, whether it was skipped (binary),
//	its reading diagnostics, and either the bytes themselves (a file read
//	raw, such as config.json) or the parsed document (markdown's binary
//	form); last the CRC-32C (Castagnoli) of everything before it.
//
// Integers are varints unless said. An entry is used as the in-memory
// cache uses its own: without reading the file when the stat matches and
// the read was not racy, else after reading it when the bytes' hash
// matches. A file that fails any check (a torn write, a flipped bit,
// another version) is ignored whole and replaced at the next save, never
// trusted. The file is written atomically (a temporary file renamed over
// it) without fsync: a lost write costs a parse.

// DiskCacheFile is the parsed-file cache's name in the recite folder.
const DiskCacheFile = "parsed-files.bin"

const (
	diskMagic   = "RPFC"
	diskVersion = 1
)

// Bounds of the parsed-file cache: entries past them are not saved (those
// files are parsed again by the next process).
const (
	maxDiskEntries = 20000
	maxDiskBytes   = 64 << 20
)

// errDiskCache is wrapped by every reason to ignore a cache file.
var errDiskCache = errors.New("parsed-file cache unusable")

// LoadFile seeds an empty cache with the entries saved at path by
// SaveFile, and reports whether it did. A missing, damaged or foreign file
// seeds nothing (ok is false); a cache that already holds entries is left
// as it is.
func (c *Cache) LoadFile(path string) (ok bool) {
	if c == nil {
		return false
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	entries, err := decodeDiskCache(data)
	if err != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.entries) > 0 {
		return false
	}
	maps := make(map[cacheKey]*cacheEntry, len(entries))
	for _, de := range entries {
		maps[de.key] = de.entry
	}
	c.entries = maps
	c.saved = true
	return true
}

// SaveFile writes the cache's entries to path when they changed since the
// cache was seeded or last saved: sorted by path, at most maxDiskEntries
// and maxDiskBytes, atomically and without fsync. It writes nothing for a
// cache with nothing new. Errors: creating the folder or writing the file.
func (c *Cache) SaveFile(path string) error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	if c.saved && !c.dirty {
		c.mu.Unlock()
		return nil
	}
	keys := make([]cacheKey, 0, len(c.entries))
	for k := range c.entries {
		keys = append(keys, k)
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
	// Written under the lock: a load may update an entry's stat meanwhile.
	defer c.mu.Unlock()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("save parsed files: %w", err)
	}
	err := fsutil.WriteNoSync(path, 0o644, func(w io.Writer) error { return writeDiskCache(w, keys, ents) })
	if err != nil {
		return fmt.Errorf("save parsed files: %w", err)
	}
	c.dirty, c.saved = false, true
	return nil
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

// encodeDiskCache formats the entries (sorted, with their keys) as the
// cache file's bytes (writeDiskCache).
func encodeDiskCache(keys []cacheKey, ents []*cacheEntry) []byte {
	var b bytes.Buffer
	_ = writeDiskCache(&b, keys, ents)
	return b.Bytes()
}

// writeDiskCache writes the entries (sorted, with their keys) to w as the
// cache file, within the bounds; the payloads are written as they are,
// not copied. An entry whose document cannot be encoded is left out.
func writeDiskCache(w io.Writer, keys []cacheKey, ents []*cacheEntry) error {
	var heads [][]byte
	var kept []*cacheEntry
	size := 0
	for i, e := range ents {
		if len(kept) == maxDiskEntries || size > maxDiskBytes {
			break
		}
		head, err := appendDiskEntry(nil, keys[i], e)
		if err != nil {
			continue
		}
		heads, kept = append(heads, head), append(kept, e)
		size += len(head) + len(e.blob)
	}
	crc := crc32.New(castagnoli)
	bw := bufio.NewWriterSize(io.MultiWriter(w, crc), 256<<10)
	b := []byte(diskMagic)
	b = binary.LittleEndian.AppendUint32(b, diskVersion)
	b = binary.LittleEndian.AppendUint32(b, markdown.BinaryVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(kept)))
	_, _ = bw.Write(b)
	for i, e := range kept {
		_, _ = bw.Write(heads[i])
		_, _ = bw.WriteString(e.blob)
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	_, err := w.Write(binary.LittleEndian.AppendUint32(nil, crc.Sum32()))
	return err
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
	b = binary.AppendUvarint(b, uint64(len(e.diags)))
	for _, d := range e.diags {
		str(d.Path)
		b = binary.AppendVarint(b, int64(d.Line))
		str(d.Message)
	}
	switch {
	case e.skipped:
		b = append(b, 0)
		return b, nil
	case e.doc == nil:
		b = append(b, 1) // read raw: the bytes
		if !e.hasBlob {
			e.blob, e.hasBlob = string(e.data), true
		}
	default:
		b = append(b, 2)
		if !e.hasBlob {
			doc, err := e.doc.AppendBinary(nil)
			if err != nil {
				return b, err
			}
			e.blob, e.hasBlob = string(doc), true
		}
	}
	return binary.AppendUvarint(b, uint64(len(e.blob))), nil
}

// diskEntry is one decoded entry.
type diskEntry struct {
	key   cacheKey
	entry *cacheEntry
}

// decodeDiskCache parses a cache file. It takes data over: the entries'
// strings (paths, diagnostics, payloads, the documents' text) are slices of
// it rather than copies, so a build in a new process neither copies the
// cache (megabytes on a large tree) nor faults in fresh pages for the copy;
// the caller must not change data afterwards. Every error wraps
// errDiskCache.
func decodeDiskCache(data []byte) ([]diskEntry, error) {
	if len(data) < 16 {
		return nil, fmt.Errorf("%w: %d bytes", errDiskCache, len(data))
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, fmt.Errorf("%w: checksum", errDiskCache)
	}
	if string(body[:4]) != diskMagic || binary.LittleEndian.Uint32(body[4:]) != diskVersion ||
		binary.LittleEndian.Uint32(body[8:]) != markdown.BinaryVersion {
		return nil, fmt.Errorf("%w: magic or version", errDiskCache)
	}
	n := int(binary.LittleEndian.Uint32(body[12:]))
	if n > maxDiskEntries {
		return nil, fmt.Errorf("%w: %d entries", errDiskCache, n)
	}
	// The one unsafe conversion of the package: body is never written
	// again (see above), which is what makes a string of it sound
	// (unsafe.String's contract).
	r := &diskReader{b: unsafe.String(unsafe.SliceData(body[16:]), len(body)-16)}
	out := make([]diskEntry, 0, n)
	for range n {
		de, err := r.entry()
		if err != nil {
			return nil, err
		}
		out = append(out, de)
	}
	if len(r.b) != 0 {
		return nil, fmt.Errorf("%w: trailing bytes", errDiskCache)
	}
	return out, nil
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
	nd := r.uvarint()
	if nd > uint64(len(r.b)) {
		r.fail()
	}
	for i := uint64(0); i < nd && r.err == nil; i++ {
		e.diags = append(e.diags, Diagnostic{Path: r.str(), Line: int(r.varint()), Message: r.str()})
	}
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
		e.blob, e.hasBlob = r.str(), true
		doc, err := markdown.DecodeDocumentString(e.blob)
		if err != nil || r.err != nil {
			return diskEntry{}, fmt.Errorf("%w: %v", errDiskCache, errors.Join(err, r.err))
		}
		e.doc = doc
	default:
		return diskEntry{}, fmt.Errorf("%w: entry kind %d", errDiskCache, kind[0])
	}
	if r.err != nil {
		return diskEntry{}, r.err
	}
	return diskEntry{k, e}, nil
}

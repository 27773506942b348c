package planning

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"maps"
	"slices"
	"time"
	"unsafe"

	"github.com/recite-dev/recite/markdown"
)

// The parsed-file cache's entries on disk: their encoding and decoding
// (the format is described in diskcache.go).

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
	str(e.savedModel)
	b = binary.AppendUvarint(b, uint64(len(e.saved)))
	for _, kind := range slices.Sorted(maps.Keys(e.saved)) {
		str(kind)
		str(e.saved[kind])
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
	e.savedModel = r.str()
	ns := r.uvarint()
	if ns > uint64(len(r.b)) {
		r.fail()
	}
	for i := uint64(0); i < ns && r.err == nil; i++ {
		if e.saved == nil {
			e.saved = map[string]string{}
		}
		kind := r.str()
		e.saved[kind] = r.str()
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

package conversation

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"math"
	"slices"
	"time"
)

// errUnsorted means a log's records are not in read order in the file (a
// union merge, an import of older records): the index is rebuilt by
// sorting.
var errUnsorted = fmt.Errorf("%w: records out of order", errBadIndex)

// compareKey orders records by (timestamp, id), the read order.
func compareKey(at time.Time, aid string, bt time.Time, bid string) int {
	if c := at.Compare(bt); c != 0 {
		return c
	}
	return cmp.Compare(aid, bid)
}

// indexer accumulates the header of an index as records are added in read
// order, writing their entries to w.
type indexer struct {
	h   indexHeader
	w   *bufio.Writer
	buf [ordEntrySize]byte
}

// torn records a line that is not a record.
func (x *indexer) torn(line int, msg string) {
	if len(x.h.Torn) < maxTorn {
		x.h.Torn = append(x.h.Torn, tornLine{Line: line, Message: msg})
	}
	x.h.TornCount++
}

// add appends r, whose line is at off and n bytes long, to the read order.
func (x *indexer) add(r *Record, off, n int64) error {
	return x.addFlagged(r, off, n, recordFlags(r))
}

// addFlagged is add for a record whose entry flags (recordFlags) are f.
func (x *indexer) addFlagged(r *Record, off, n int64, f byte) error {
	if off >= maxOffset || n > maxLineLen {
		return fmt.Errorf("record %s at %d: line of %d bytes too long to index", r.ID, off, n)
	}
	putOrdEntry(x.buf[:], ordEntry{Off: off, Len: n, Rank: x.h.Messages, Kind: r.Kind, Flags: f, Check: idCheck(r.ID)})
	if _, err := x.w.Write(x.buf[:]); err != nil {
		return err
	}
	h := &x.h
	h.note(h.Entries, f)
	h.Entries++
	switch r.Kind {
	case KindMessage:
		h.Messages++
	case KindIteration:
		h.Iterations++
	case KindMeta:
		if r.Meta != nil {
			mergeMeta(&h.Meta, *r.Meta)
		}
	}
	if r.Kind != KindMeta && r.Time.After(h.Activity) {
		h.Activity = r.Time
	}
	if r.Time.After(h.Newest) {
		h.Newest = r.Time
	}
	h.MaxTime, h.MaxID = r.Time, r.ID
	return nil
}

// after reports whether r sorts after every record added so far.
func (x *indexer) after(r *Record) bool {
	return x.h.Entries == 0 || compareKey(r.Time, r.ID, x.h.MaxTime, x.h.MaxID) > 0
}

// buildIndex reads the first size bytes of log and writes the read-order
// file (preamble for gen, then entries) to out, returning the header (its
// Size, Lines and hashes set). A log whose records are in read order with
// distinct ids costs one pass in constant memory (plus 8 bytes per record
// to find repeated ids); any other costs a second pass that sorts (about
// 70 bytes per record, in memory).
func buildIndex(log io.ReaderAt, size int64, gen uint64, out io.WriteSeeker) (*indexHeader, error) {
	h, err := indexSorted(log, size, gen, out)
	if errors.Is(err, errUnsorted) {
		if _, err := out.Seek(0, io.SeekStart); err != nil {
			return nil, err
		}
		h, err = indexUnsorted(log, size, gen, out)
	}
	if err != nil {
		return nil, err
	}
	if err := h.seal(log); err != nil {
		return nil, err
	}
	return h, nil
}

// seal sets the hashes of the header's prefix.
func (h *indexHeader) seal(log io.ReaderAt) error {
	head, tail, err := prefixHashes(log, h.Size)
	h.Head, h.Tail = head, tail
	return err
}

// prefixHashes returns the hex SHA-256 of the first and of the last
// min(size, hashWindow) bytes of log.
func prefixHashes(log io.ReaderAt, size int64) (head, tail string, err error) {
	n := min(size, hashWindow)
	buf := make([]byte, n)
	sum := func(off int64) (string, error) {
		if m, err := log.ReadAt(buf, off); int64(m) < n {
			return "", fmt.Errorf("read log at %d: %w", off, cmp.Or(err, io.ErrUnexpectedEOF))
		}
		s := sha256.Sum256(buf)
		return hex.EncodeToString(s[:]), nil
	}
	if head, err = sum(0); err != nil {
		return "", "", err
	}
	tail, err = sum(size - n)
	return head, tail, err
}

// scanLog calls fn for each line of log between from and size (of which
// the first is line number line), passing a valid record or the message of
// a diagnostic; blank lines are skipped. It returns the number of newlines
// read.
func scanLog(log io.ReaderAt, from, size int64, line int, fn func(off, n int64, line int, r *Record, bad string) error) (int, error) {
	ls := newLineScanner(io.NewSectionReader(log, from, size-from), size-from, from, line)
	nl := 0
	for {
		off, no, raw, ended, err := ls.next()
		if errors.Is(err, io.EOF) {
			return nl, nil
		}
		if err != nil {
			return nl, err
		}
		if ended {
			nl++
		}
		text := recordText(raw)
		if text == nil {
			continue
		}
		r, bad := parseLine(text)
		if err := fn(off, int64(len(raw)), no, &r, bad); err != nil {
			return nl, err
		}
	}
}

// indexSorted is the first pass of buildIndex: it indexes the log as if
// its file order were its read order and returns errUnsorted as soon as it
// is not, or at the end when two ids may repeat.
func indexSorted(log io.ReaderAt, size int64, gen uint64, out io.Writer) (*indexHeader, error) {
	x := &indexer{w: bufio.NewWriterSize(out, 64<<10)}
	x.h = indexHeader{Version: indexVersion, Gen: gen, Size: size}
	if _, err := x.w.Write(ordPreambleBytes(gen)); err != nil {
		return nil, err
	}
	seed := maphash.MakeSeed()
	var ids []uint64
	nl, err := scanLog(log, 0, size, 1, func(off, n int64, line int, r *Record, bad string) error {
		if bad != "" {
			x.torn(line, bad)
			return nil
		}
		if !x.after(r) {
			return errUnsorted
		}
		ids = append(ids, maphash.String(seed, r.ID))
		return x.add(r, off, n)
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(ids)
	for i := 1; i < len(ids); i++ {
		if ids[i] == ids[i-1] {
			return nil, errUnsorted // maybe a repeated id: sort it out exactly
		}
	}
	x.h.Lines = nl
	if err := x.w.Flush(); err != nil {
		return nil, err
	}
	return &x.h, nil
}

// sortItem is one record of an unsorted log, held for sorting: 40 bytes,
// its id in a shared arena.
type sortItem struct {
	sec   int64
	off   int64
	nsec  int32
	order int32 // file order among records
	n     uint32
	idAt  uint32
	idLen uint16
	kind  byte // kindCodes
	flags byte // recordFlags
}

// indexUnsorted is the second pass of buildIndex: it reads the log's keys,
// drops records whose id was seen earlier in the file (as Normalize does),
// sorts the rest by (timestamp, id) and writes their entries. It holds
// about 70 bytes per record (the item and the id).
func indexUnsorted(log io.ReaderAt, size int64, gen uint64, out io.Writer) (*indexHeader, error) {
	x := &indexer{w: bufio.NewWriterSize(out, 64<<10)}
	x.h = indexHeader{Version: indexVersion, Gen: gen, Size: size}
	if _, err := x.w.Write(ordPreambleBytes(gen)); err != nil {
		return nil, err
	}
	var items []sortItem
	var arena []byte
	metas := map[int32]*Meta{}
	nl, err := scanLog(log, 0, size, 1, func(off, n int64, line int, r *Record, bad string) error {
		if bad != "" {
			x.torn(line, bad)
			return nil
		}
		if len(arena)+len(r.ID) > math.MaxUint32 || len(r.ID) > math.MaxUint16 || n > maxLineLen || len(items) == math.MaxInt32 {
			return fmt.Errorf("record %s at %d: too large to index", r.ID, off)
		}
		o := int32(len(items))
		if r.Meta != nil {
			metas[o] = r.Meta
		}
		items = append(items, sortItem{sec: r.Time.Unix(), nsec: int32(r.Time.Nanosecond()), kind: kindCodes[r.Kind], flags: recordFlags(r), off: off, n: uint32(n),
			order: o, idAt: uint32(len(arena)), idLen: uint16(len(r.ID))})
		arena = append(arena, r.ID...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	id := func(it *sortItem) []byte { return arena[it.idAt : it.idAt+uint32(it.idLen)] }
	// Drop repeated ids, keeping the first in file order.
	slices.SortFunc(items, func(a, b sortItem) int { return cmp.Or(bytes.Compare(id(&a), id(&b)), cmp.Compare(a.order, b.order)) })
	items = slices.CompactFunc(items, func(a, b sortItem) bool { return bytes.Equal(id(&a), id(&b)) })
	slices.SortFunc(items, func(a, b sortItem) int {
		return cmp.Or(cmp.Compare(a.sec, b.sec), cmp.Compare(a.nsec, b.nsec), bytes.Compare(id(&a), id(&b)))
	})
	for i := range items {
		it := &items[i]
		kind, _ := kindOfCode(it.kind)
		r := Record{ID: string(id(it)), Kind: kind, Time: time.Unix(it.sec, int64(it.nsec)).UTC(), Meta: metas[it.order]}
		if err := x.addFlagged(&r, it.off, int64(it.n), it.flags); err != nil {
			return nil, err
		}
	}
	x.h.Lines = nl
	if err := x.w.Flush(); err != nil {
		return nil, err
	}
	return &x.h, nil
}

// catchUp extends the index h (whose read-order file is ord) over the
// log's bytes from h.Size to size, when they hold only records that sort
// after the indexed ones. Otherwise it returns an error wrapping
// errBadIndex (errUnsorted when a record sorts earlier) and the caller
// rebuilds. It updates h in place; on error h must be discarded.
func catchUp(log io.ReaderAt, size int64, h *indexHeader, ord io.WriterAt) error {
	if h.Size > 0 {
		last := make([]byte, 1)
		if _, err := log.ReadAt(last, h.Size-1); err != nil {
			return err
		}
		if last[0] != '\n' {
			// The indexed prefix ends inside a line: only a newline may
			// follow it (the one Append writes after a torn tail).
			first := make([]byte, 1)
			if _, err := log.ReadAt(first, h.Size); err != nil {
				return err
			}
			if first[0] != '\n' {
				return fmt.Errorf("%w: the last indexed line grew", errBadIndex)
			}
		}
	}
	x := &indexer{h: *h}
	x.w = bufio.NewWriterSize(io.NewOffsetWriter(ord, ordPreamble+int64(h.Entries)*ordEntrySize), 4<<10)
	nl, err := scanLog(log, h.Size, size, h.Lines+1, func(off, n int64, line int, r *Record, bad string) error {
		if bad != "" {
			x.torn(line, bad)
			return nil
		}
		if !x.after(r) {
			return errUnsorted
		}
		return x.add(r, off, n)
	})
	if err != nil {
		return err
	}
	if err := x.w.Flush(); err != nil {
		return err
	}
	x.h.Lines += nl
	x.h.Size = size
	if err := x.h.seal(log); err != nil {
		return err
	}
	*h = x.h
	return nil
}

// checkPrefix reports whether the first h.Size bytes of log, which is size
// bytes long, are still those h indexed (by length and by the hashes of
// both ends), as an error wrapping errBadIndex when not.
func checkPrefix(log io.ReaderAt, size int64, h *indexHeader) error {
	if size < h.Size {
		return fmt.Errorf("%w: log shrank from %d to %d bytes", errBadIndex, h.Size, size)
	}
	head, tail, err := prefixHashes(log, h.Size)
	if err != nil {
		return err
	}
	if head != h.Head || tail != h.Tail {
		return fmt.Errorf("%w: log rewritten", errBadIndex)
	}
	return nil
}

// memOrd is an in-memory read-order file, for logs read without a
// writable index folder.
type memOrd struct {
	b   []byte
	pos int64
}

func (m *memOrd) Write(p []byte) (int, error) {
	if need := m.pos + int64(len(p)); need > int64(len(m.b)) {
		m.b = slices.Grow(m.b, int(need)-len(m.b))[:need]
	}
	copy(m.b[m.pos:], p)
	m.pos += int64(len(p))
	return len(p), nil
}

func (m *memOrd) Seek(off int64, whence int) (int64, error) {
	if whence != io.SeekStart || off < 0 {
		return 0, errors.New("memOrd: only absolute seeks")
	}
	m.b, m.pos = m.b[:min(off, int64(len(m.b)))], off
	return off, nil
}

func (m *memOrd) ReadAt(p []byte, off int64) (int, error) {
	return bytes.NewReader(m.b).ReadAt(p, off)
}

package conversation

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
)

// logView is one conversation's own log with an index that matches it: a
// consistent snapshot. The log and the read-order file are opened while the
// conversation's lock is held, so appends and index rebuilds after that
// (which add to the log, and replace the index files by renaming) do not
// change what the view reads. Close releases it.
type logView struct {
	id   string
	path string
	log  *os.File
	ord  io.ReaderAt
	hdr  *indexHeader
	done func()
	// file is the log's stat when the view was taken (nil for a log
	// indexed in memory); memo is the store's RecordCache (nil: none).
	file os.FileInfo
	memo *RecordCache
}

func (v *logView) Close() {
	_ = v.log.Close()
	if v.done != nil {
		v.done()
	}
}

// entries returns the read-order entries [from, to).
func (v *logView) entries(from, to int, out []ordEntry) ([]ordEntry, error) {
	return readOrdEntries(v.ord, v.hdr.Size, from, to, out)
}

// view opens conversation id's log and brings its index up to date: the
// index is checked against the log, extended over appended records, or
// rebuilt. Without a usable index folder (NoIndex, a lock or index folder
// that cannot be created) the index is built in memory from the whole log.
// Errors: ErrNotFound, ErrInvalidID, an unreadable log, ctx's error while
// waiting for the lock.
func (s *Store) view(ctx context.Context, id string) (*logView, error) {
	p, err := s.existingPath(id)
	if err != nil {
		return nil, err
	}
	if s.NoIndex {
		return memView(id, p, s.Records)
	}
	var v *logView
	err = s.withLock(ctx, id, func() error {
		var err error
		v, err = s.indexedView(id, p)
		return err
	})
	if err != nil && ctx.Err() != nil {
		return nil, ctx.Err()
	}
	var ie *indexWriteError
	if errors.As(err, &ie) || errors.Is(err, errLockDir) {
		return memView(id, p, s.Records)
	}
	if err != nil {
		return nil, err
	}
	v.memo = s.Records
	return v, nil
}

// indexWriteError is an index file that could not be written.
type indexWriteError struct{ err error }

func (e *indexWriteError) Error() string { return "write conversation index: " + e.err.Error() }
func (e *indexWriteError) Unwrap() error { return e.err }

// memView indexes the log at p in memory, without a lock; memo counts
// what it decodes (it keeps none of it).
func memView(id, p string, memo *RecordCache) (*logView, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", id, err)
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("read %q: %w", id, err)
	}
	ord := &memOrd{}
	h, err := buildIndex(f, st.Size(), 0, ord)
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("read %q: %w", id, err)
	}
	return &logView{id: id, path: p, log: f, ord: ord, hdr: h, memo: memo}, nil
}

// indexedView is view under the lock: it opens the log at p and returns it
// with its on-disk index, checked, extended or rebuilt.
func (s *Store) indexedView(id, p string) (*logView, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", id, err)
	}
	v, err := s.refreshIndex(id, p, f)
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return v, nil
}

// refreshIndex returns a view of log (the open file at p) with an index
// that covers all of it. The caller holds id's lock.
func (s *Store) refreshIndex(id, p string, log *os.File) (*logView, error) {
	st, err := log.Stat()
	if err != nil {
		return nil, fmt.Errorf("read %q: %w", id, err)
	}
	size := st.Size()
	hdrPath, ordPath := s.indexFiles(id)
	h, ord, ordSize, err := openIndex(hdrPath, ordPath, log, size)
	if err == nil && size > h.Size {
		prev := *h
		if err = catchUp(log, size, h, ord); err == nil {
			if end := ordPreamble + int64(h.Entries)*ordEntrySize; ordSize > end {
				err = ord.Truncate(end) // entries of an update lost in a crash
			}
			if err == nil {
				err = saveIndexHeader(hdrPath, h)
			}
			if err != nil {
				*h = prev
				err = &indexWriteError{err}
			}
		}
	}
	var ie *indexWriteError
	if errors.As(err, &ie) {
		_ = ord.Close()
		return nil, err
	}
	if err != nil {
		if ord != nil {
			_ = ord.Close()
		}
		if h, ord, err = rebuildIndex(hdrPath, ordPath, log, size); err != nil {
			return nil, err
		}
	}
	return &logView{id: id, path: p, log: log, ord: ord, hdr: h, done: func() { _ = ord.Close() }, file: st}, nil
}

// openIndex loads id's index files and checks them against log (size
// bytes long), returning the header, the open read-order file and its
// size. Errors wrap errBadIndex.
func openIndex(hdrPath, ordPath string, log io.ReaderAt, size int64) (*indexHeader, *os.File, int64, error) {
	h, err := loadIndexHeader(hdrPath)
	if err != nil {
		return nil, nil, 0, err
	}
	if err := checkPrefix(log, size, h); err != nil {
		return nil, nil, 0, fmt.Errorf("%w: %v", errBadIndex, err)
	}
	ord, err := os.OpenFile(ordPath, os.O_RDWR, 0)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("%w: %v", errBadIndex, err)
	}
	pre := make([]byte, ordPreamble)
	_, err = ord.ReadAt(pre, 0)
	if err == nil {
		err = checkOrdPreamble(pre, h.Gen)
	}
	var st os.FileInfo
	if err == nil {
		if st, err = ord.Stat(); err == nil && st.Size() < ordPreamble+int64(h.Entries)*ordEntrySize {
			err = fmt.Errorf("%w: read-order file too short", errBadIndex)
		}
	}
	if err != nil {
		_ = ord.Close()
		return nil, nil, 0, fmt.Errorf("%w: %v", errBadIndex, err)
	}
	return h, ord, st.Size(), nil
}

// rebuildIndex indexes the whole of log (size bytes) into new index files
// and returns the header and the open read-order file.
func rebuildIndex(hdrPath, ordPath string, log io.ReaderAt, size int64) (*indexHeader, *os.File, error) {
	dir := filepath.Dir(ordPath)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil, &indexWriteError{err}
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(ordPath)+".tmp*")
	if err != nil {
		return nil, nil, &indexWriteError{err}
	}
	fail := func(err error) (*indexHeader, *os.File, error) {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return nil, nil, err
	}
	h, err := buildIndex(log, size, rand.Uint64(), tmp)
	if err != nil {
		return fail(err)
	}
	if err := tmp.Truncate(ordPreamble + int64(h.Entries)*ordEntrySize); err != nil {
		return fail(&indexWriteError{err})
	}
	if err := os.Rename(tmp.Name(), ordPath); err != nil {
		return fail(&indexWriteError{err})
	}
	if err := saveIndexHeader(hdrPath, h); err != nil {
		_ = tmp.Close()
		return nil, nil, &indexWriteError{err}
	}
	return h, tmp, nil
}

// saveIndexHeader writes h to path.
func saveIndexHeader(path string, h *indexHeader) error {
	b, err := encodeIndexHeader(h)
	if err != nil {
		return err
	}
	return writeInPlace(path, b)
}

// dropIndex removes id's index header, so that the next reader rebuilds
// the index from the log.
func (s *Store) dropIndex(id string) {
	hdr, _ := s.indexFiles(id)
	_ = os.Remove(hdr)
}

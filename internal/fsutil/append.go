package fsutil

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// AppendFile is what AppendAll writes through: an *os.File opened with
// O_APPEND, or a test's wrapper of one (a writer that fails after N
// bytes, as a full disk does).
type AppendFile interface {
	io.Writer
	Truncate(size int64) error
	Sync() error
}

// TornMark is the byte AppendAll writes over the first byte of each line
// of an append it could neither finish nor undo. No JSON text starts with
// it, so a reader of JSON Lines sees the line as torn, whatever of it
// reached the file.
const TornMark = '#'

// ErrAppendUndone is wrapped by AppendAll's error when the append failed
// and the file was truncated back: it holds none of the data.
var ErrAppendUndone = errors.New("nothing was appended")

// ErrAppendMarked is wrapped by AppendAll's error when the append failed
// and could not be undone: the lines of data that reached the file start
// with TornMark.
var ErrAppendMarked = errors.New("the partial append is marked torn")

// AppendAll appends data, whole lines each ending in "\n" (a first "\n"
// may end a torn line before them), to f, an O_APPEND file of path whose
// size before the append is size, then syncs f unless noSync. The append
// is all or nothing: when the write or the sync fails (a full disk, a
// quota, an I/O error), f is truncated back to size, so it holds none of
// data, and the error wraps ErrAppendUndone. When the truncation fails
// too, the first byte of every line of data that reached the file is
// overwritten with TornMark, in place (no new block, so it works on a
// full disk), through a second descriptor of path, and the error wraps
// ErrAppendMarked; a mark that cannot be written either leaves the error
// of the truncation joined. The caller holds the file's lock throughout,
// so no other append lands between the write and the truncation.
func AppendAll(path string, f AppendFile, size int64, data []byte, noSync bool) error {
	n, err := f.Write(data)
	if err == nil && n < len(data) {
		err = io.ErrShortWrite
	}
	if err == nil && !noSync {
		if err = f.Sync(); err != nil {
			err = fmt.Errorf("sync: %w", err)
		}
	}
	if err == nil {
		return nil
	}
	if terr := f.Truncate(size); terr == nil {
		_ = f.Sync()
		return fmt.Errorf("%w (%w)", err, ErrAppendUndone)
	} else if merr := markTorn(path, size, data[:max(n, 0)]); merr != nil {
		return errors.Join(err, fmt.Errorf("truncate back to %d bytes: %w", size, terr), fmt.Errorf("mark torn: %w", merr))
	}
	return fmt.Errorf("%w (%w)", err, ErrAppendMarked)
}

// markTorn writes TornMark over the first byte of each line of written,
// the part of an append that reached path at offset off.
func markTorn(path string, off int64, written []byte) error {
	if len(written) == 0 {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	mark := []byte{TornMark}
	for i := range written {
		if written[i] == '\n' || (i > 0 && written[i-1] != '\n') {
			continue
		}
		if _, err = f.WriteAt(mark, off+int64(i)); err != nil {
			break
		}
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

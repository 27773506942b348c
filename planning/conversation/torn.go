package conversation

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/recite-dev/recite/internal/fsutil"
)

// This file holds what keeps a torn record out of a log's readers and out
// of git (docs/formats.md#torn-records): the append that finds the log
// ending in a torn line moves that line out of the log first (healTail),
// and Committable gives the part of a log that git may take.

// ErrTorn is wrapped by a *TornError.
var ErrTorn = errors.New("a torn or malformed record comes before whole records")

// TornError is a line of a log that is not a whole record, with whole
// records after it: committing the log would put it into git, and
// leaving it out would commit a file that differs from the work tree in
// its middle, so the commit is refused (Committable).
type TornError struct {
	Path   string // the log, as the caller named it
	Line   int    // 1-based
	Reason string // why the line is not a record
}

func (e *TornError) Error() string {
	return fmt.Sprintf("%s:%d: %s; not committed: %v (move the line out of the log, then commit again)", e.Path, e.Line, e.Reason, ErrTorn)
}

// Unwrap returns ErrTorn.
func (e *TornError) Unwrap() error { return ErrTorn }

// wholeLine reports whether text, a line of a log, is whole: one JSON
// object. No part of an append cut short is one (a prefix of a JSON object
// is never a JSON object), nor a line marked torn (fsutil.TornMark); a
// whole object that is no valid record (no timestamp, an unknown kind) is
// whole all the same: readers skip it with a diagnostic, and it is not
// torn.
func wholeLine(text []byte) bool {
	return len(text) > 0 && text[0] == '{' && json.Valid(text)
}

// Committable returns the part of the log data (the file path, for
// errors) that git may take: everything up to the end of its last whole
// record, a line that is a JSON object and ends in a newline. What follows is
// a torn tail (an append cut short by a crash or a full disk, a line
// marked torn) and stays out of git until it is whole or gone. A line
// that is not a record before a whole one is a *TornError naming it. A
// log without one whole record gives nothing to commit.
func Committable(path string, data []byte) ([]byte, error) {
	end := 0     // end of the last whole record, newline included
	badLine := 0 // first line that is not a record, after end
	badWhy := "" // its reason
	lineNo := 0
	for off := 0; off < len(data); {
		lineNo++
		i := bytes.IndexByte(data[off:], '\n')
		next := len(data)
		if i >= 0 {
			next = off + i + 1
		}
		text := recordText(bytes.TrimSuffix(data[off:next], []byte{'\n'}))
		switch {
		case text == nil:
			if i >= 0 && badLine == 0 {
				end = next // a blank line between records stays
			}
		case i < 0:
			// The last line has no newline: torn, or a record whose
			// newline never came; either way not yet whole.
		default:
			if !wholeLine(text) {
				if badLine == 0 {
					_, badWhy = parseLine(text)
					badLine = lineNo
				}
			} else {
				if badLine != 0 {
					return nil, &TornError{Path: path, Line: badLine, Reason: badWhy}
				}
				end = next
			}
		}
		off = next
	}
	return data[:end], nil
}

// tornDir is where healTail keeps the torn tails it moves out of the logs:
// .planning/.recite/torn beside the lock folder, which git ignores.
func (s *Store) tornDir() string {
	dir := s.LockDir
	if dir == "" {
		dir = DefaultLockDir(s.Dir)
	}
	return filepath.Join(filepath.Dir(dir), "torn")
}

// maxTail bounds how far back healTail looks for the start of a log's last
// line: a torn line longer than this is ended with a newline instead.
const maxTail = 64 << 20

// healTail looks at the end of the log f of conversation id (size bytes)
// under the conversation's lock, before an append. A last line that is
// no record and has no newline (an append cut short by a crash), and a
// line marked torn (fsutil.TornMark: an append that failed and could not
// be undone), is no record anyone wrote whole, so it goes out of the log:
// appended to tornDir/ID.jsonl with a newline (kept, not lost), then cut
// off the log, whose new size is returned; the append then starts where
// it did. A last line that is a whole record without its newline is kept,
// and torn is true: the append starts with a newline. When the torn line
// cannot be kept aside or cut off (or is longer than maxTail), torn is
// true too, so the append never glues a record to it.
func (s *Store) healTail(f *os.File, id string, size int64) (newSize int64, torn bool, err error) {
	for size > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, size-1); err != nil {
			return size, false, err
		}
		nl := last[0] == '\n'
		end := size
		if nl {
			end--
		}
		start, err := lastLineStart(f, end)
		if err != nil {
			return size, false, err
		}
		if start < 0 {
			return size, !nl, nil
		}
		line := make([]byte, end-start)
		if _, err := f.ReadAt(line, start); err != nil {
			return size, false, err
		}
		marked := len(line) > 0 && line[0] == fsutil.TornMark
		if !marked {
			if nl {
				return size, false, nil
			}
			if text := recordText(line); text == nil || wholeLine(text) {
				return size, true, nil
			}
		}
		if err := s.keepTorn(id, line); err != nil {
			return size, !nl, nil
		}
		if err := f.Truncate(start); err != nil {
			return size, !nl, nil
		}
		size = start
	}
	return size, false, nil
}

// keepTorn appends the torn line to tornDir/ID.jsonl (mode 0600), with a
// newline.
func (s *Store) keepTorn(id string, line []byte) error {
	if err := os.MkdirAll(s.tornDir(), 0o700); err != nil {
		return fmt.Errorf("keep torn line: %w", err)
	}
	side, err := os.OpenFile(filepath.Join(s.tornDir(), id+".jsonl"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("keep torn line: %w", err)
	}
	err = fsutil.AppendAll(side.Name(), side, sideSize(side), append(slices.Clone(line), '\n'), s.NoSync)
	if cerr := side.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("keep torn line: %w", err)
	}
	return nil
}

// sideSize is the size of the open file f, 0 when it cannot be had.
func sideSize(f *os.File) int64 {
	st, err := f.Stat()
	if err != nil {
		return 0
	}
	return st.Size()
}

// lastLineStart returns the offset of the first byte of the last line of
// the size bytes of r: after its last newline, or 0. It reads back in
// blocks; -1 when the line is longer than maxTail.
func lastLineStart(r io.ReaderAt, size int64) (int64, error) {
	const block = 64 << 10
	buf := make([]byte, block)
	for end := size; end > 0; {
		if size-end > maxTail {
			return -1, nil
		}
		start := max(end-block, 0)
		b := buf[:end-start]
		if _, err := r.ReadAt(b, start); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
			return start + int64(i) + 1, nil
		}
		end = start
	}
	return 0, nil
}

package conversation

import (
	"bufio"
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
)

// lineScanner reads a log forward one line at a time, keeping the offset
// and number of each line, in constant memory apart from the longest line.
type lineScanner struct {
	br   *bufio.Reader
	off  int64 // offset of the next line
	line int   // number of the next line, 1-based
	long []byte
}

// newLineScanner scans r, whose first byte is at offset off of the log and
// starts line number line.
// n is how many bytes r holds: the buffer is 256 KiB or less.
func newLineScanner(r io.Reader, n int64, off int64, line int) *lineScanner {
	return &lineScanner{br: bufio.NewReaderSize(r, int(min(max(n, 16), 256<<10))), off: off, line: line}
}

// next returns the next line: its offset, its number, its bytes without the
// newline (valid until the next call), and whether a newline ended it. It
// returns io.EOF after the last line.
func (ls *lineScanner) next() (off int64, line int, b []byte, nl bool, err error) {
	off, line = ls.off, ls.line
	ls.long = ls.long[:0]
	for {
		chunk, err := ls.br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			ls.long = append(ls.long, chunk...)
			continue
		}
		if len(ls.long) > 0 {
			ls.long = append(ls.long, chunk...)
			chunk = ls.long
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return off, line, nil, false, err
		}
		if len(chunk) == 0 {
			return off, line, nil, false, io.EOF
		}
		ls.off += int64(len(chunk))
		if chunk[len(chunk)-1] == '\n' {
			ls.line++
			return off, line, chunk[:len(chunk)-1], true, nil
		}
		return off, line, chunk, false, nil
	}
}

// recordText returns the JSON text of a raw log line (without its
// newline): a trailing carriage return dropped, and nil for a blank line,
// which readers ignore (see ParseLog).
func recordText(raw []byte) []byte {
	line := bytes.TrimSuffix(raw, []byte{'\r'})
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	return line
}

// lineReader reads the lines that read-order entries point to, through a
// buffer so that entries close together in the log cost one read.
type lineReader struct {
	r    io.ReaderAt
	size int64 // bytes of the log the index covers
	min  int   // smallest read
	buf  []byte
	at   int64 // offset of buf[0]
}

func newLineReader(r io.ReaderAt, size int64, min int) *lineReader {
	return &lineReader{r: r, size: size, min: min, at: -1}
}

// line returns the line of e (without its newline; valid until the next
// call), checking that it is a whole line: a newline (or the start of the
// log) before it and a newline (or the end of the indexed prefix) after
// it. A failed check wraps errBadIndex.
func (lr *lineReader) line(e ordEntry) ([]byte, error) {
	start, end := e.Off, e.Off+e.Len // want [start-1, end+1) clipped to the prefix
	lo, hi := max(start-1, 0), min(end+1, lr.size)
	if lr.at < 0 || lo < lr.at || hi > lr.at+int64(len(lr.buf)) {
		n := max(hi-lo, int64(lr.min))
		n = min(n, lr.size-lo)
		if int64(cap(lr.buf)) < n {
			lr.buf = make([]byte, n)
		}
		lr.buf = lr.buf[:n]
		if m, err := lr.r.ReadAt(lr.buf, lo); m < len(lr.buf) {
			lr.at = -1
			return nil, fmt.Errorf("read log at %d: %w", lo, cmp.Or(err, io.ErrUnexpectedEOF))
		}
		lr.at = lo
	}
	b := lr.buf[lo-lr.at : hi-lr.at]
	if start > 0 {
		if b[0] != '\n' {
			return nil, fmt.Errorf("%w: no line starts at %d", errBadIndex, start)
		}
		b = b[1:]
	}
	if end < lr.size {
		if b[len(b)-1] != '\n' {
			return nil, fmt.Errorf("%w: no line ends at %d", errBadIndex, end)
		}
		b = b[:len(b)-1]
	}
	return b, nil
}

// record reads and decodes the record of e, checking its kind against the
// entry's.
func (lr *lineReader) record(e ordEntry) (Record, error) {
	raw, err := lr.line(e)
	if err != nil {
		return Record{}, err
	}
	text := recordText(raw)
	if text == nil {
		return Record{}, fmt.Errorf("%w: blank line at %d", errBadIndex, e.Off)
	}
	r, bad := parseLine(text)
	if bad != "" || r.Kind != e.Kind || idCheck(r.ID) != e.Check {
		return Record{}, fmt.Errorf("%w: record at %d is not a %s", errBadIndex, e.Off, e.Kind)
	}
	return r, nil
}

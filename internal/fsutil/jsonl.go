package fsutil

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// ReadJSONL reads the JSON Lines file at path, oldest line first, as
// records of type T. A line that is not valid JSON for T, or that keep
// rejects (nil keeps all), is skipped, so a torn or hand-edited line costs
// one record. A missing file is an empty list and no error; other read
// errors are returned.
func ReadJSONL[T any](path string, keep func(T) bool) ([]T, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return ParseJSONL(b, keep), nil
}

// ParseJSONL reads JSON Lines as records of type T, as ReadJSONL does for a
// file: lines that are not valid JSON for T, blank lines and lines keep
// rejects (nil keeps all) are skipped.
func ParseJSONL[T any](b []byte, keep func(T) bool) []T {
	var out []T
	for _, line := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r T
		if json.Unmarshal(line, &r) == nil && (keep == nil || keep(r)) {
			out = append(out, r)
		}
	}
	return out
}

// AppendJSONLRing appends recs to the JSON Lines file at path, one record
// a line in one write (O_APPEND), creating the file (mode 0644) and its
// folder, without fsync: the rings are histories a crash may lose a record
// of, and the watch loop does not wait for the disk. The file is a ring of
// the newest max records (unbounded when max <= 0): it holds at most 2×max
// lines, and the append that would pass that rewrites it atomically with
// the newest max instead (WriteFileNoSync), so a rebuild appends a line
// rather than paying the filesystem for a new file (BenchmarkOverwrite),
// and the rewrite comes once in max appends. A symbolic link, a named pipe
// or a hard-linked file at path is never written through: it is replaced,
// as Overwrite replaces it. Readers keep the newest max (Newest). A last
// line torn by a crash (no final newline) is ended first, so it costs only
// itself. Errors: a record that does not encode, or the folder or file
// that cannot be written.
func AppendJSONLRing[T any](path string, recs []T, max int) error {
	if len(recs) == 0 {
		return nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	for _, r := range recs {
		if err := enc.Encode(r); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var f *os.File
	ok := false
	if max <= 0 || bytes.Count(old, []byte("\n"))+len(recs) <= 2*max {
		f, ok = openAppend(path, 0o644)
	}
	if !ok {
		// Full, or not a regular file of its own (a link, a pipe), or
		// Windows: rewritten whole with the newest max.
		buf.Reset()
		for _, r := range Newest(append(ParseJSONL[T](old, nil), recs...), max) {
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return WriteFileNoSync(path, buf.Bytes(), 0o644)
	}
	data := buf.Bytes()
	if len(old) > 0 && old[len(old)-1] != '\n' {
		data = append([]byte("\n"), data...)
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Newest returns the last max records of recs (all when max <= 0): what a
// reader of an AppendJSONLRing file keeps.
func Newest[T any](recs []T, max int) []T {
	if max > 0 && len(recs) > max {
		return recs[len(recs)-max:]
	}
	return recs
}

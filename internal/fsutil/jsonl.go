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

// WriteJSONLRing writes the last max records of recs (all when max <= 0)
// to path as JSON Lines, one record a line, replacing the file atomically
// without fsync (WriteFileNoSync, mode 0644: the rings are histories a
// crash may lose a record of, and the watch loop does not wait for the
// disk) and creating its folder. It is the write half of
// an append ring: read with ReadJSONL, append, write back, so the file
// never holds more than max lines. Errors: a record that does not encode,
// or the folder or file that cannot be written.
func WriteJSONLRing[T any](path string, recs []T, max int) error {
	if max > 0 && len(recs) > max {
		recs = recs[len(recs)-max:]
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
	return WriteFileNoSync(path, buf.Bytes(), 0o644)
}

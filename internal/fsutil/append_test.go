package fsutil

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/recite-dev/recite/internal/fsutil/fsutiltest"
)

// failAfter is a full disk: its Write writes the first n bytes it is given
// in all, then fails with ENOSPC; its Truncate fails when truncFails.
type failAfter struct {
	*os.File
	n          int
	truncFails bool
}

func (f *failAfter) Write(p []byte) (int, error) {
	if len(p) <= f.n {
		f.n -= len(p)
		return f.File.Write(p)
	}
	k, _ := f.File.Write(p[:f.n])
	f.n = 0
	return k, &os.PathError{Op: "write", Path: f.Name(), Err: syscall.ENOSPC}
}

func (f *failAfter) Truncate(size int64) error {
	if f.truncFails {
		return &os.PathError{Op: "truncate", Path: f.Name(), Err: syscall.EIO}
	}
	return f.File.Truncate(size)
}

// TestAppendAllOrNothing: an append that runs out of space after each
// number of bytes leaves the file as it was and says so; when the
// truncation fails too, every line that reached the file starts with
// TornMark; an append with room is written whole.
func TestAppendAllOrNothing(t *testing.T) {
	const before = "{\"a\":1}\n"
	data := []byte("\n{\"b\":2}\n{\"c\":3}\n")
	for n := 0; n <= len(data); n++ {
		for _, truncFails := range []bool{false, true} {
			p := filepath.Join(t.TempDir(), "log.jsonl")
			if err := os.WriteFile(p, []byte(before), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
			if err != nil {
				t.Fatal(err)
			}
			err = AppendAll(p, &failAfter{File: f, n: n, truncFails: truncFails}, int64(len(before)), data, false)
			f.Close()
			got, rerr := os.ReadFile(p)
			if rerr != nil {
				t.Fatal(rerr)
			}
			switch {
			case n == len(data):
				if err != nil || string(got) != before+string(data) {
					t.Errorf("n=%d: %v, file %q", n, err, got)
				}
			case !truncFails:
				if !errors.Is(err, ErrAppendUndone) || !errors.Is(err, syscall.ENOSPC) || string(got) != before {
					t.Errorf("n=%d: %v, file %q, want it as before", n, err, got)
				}
			default:
				want := []byte(before + string(data[:n]))
				for i := len(before); i < len(want); i++ {
					if want[i] != '\n' && want[i-1] == '\n' {
						want[i] = TornMark
					}
				}
				if !errors.Is(err, ErrAppendMarked) || string(got) != string(want) {
					t.Errorf("n=%d, truncation failing: %v, file %q, want %q", n, err, got, want)
				}
			}
		}
	}
}

// TestAppendAllDiskFull fills a real small filesystem (tmpfs, mounted
// when the test may) and appends past its end: the file keeps its bytes
// before the append, and once there is room again the next append is
// whole.
func TestAppendAllDiskFull(t *testing.T) {
	dir := fsutiltest.SmallFilesystem(t, 256<<10)
	p := filepath.Join(dir, "log.jsonl")
	if err := os.WriteFile(p, []byte("{\"a\":1}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fill := filepath.Join(dir, "fill")
	if err := os.WriteFile(fill, make([]byte, 200<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	big := make([]byte, 100<<10)
	for i := range big {
		big[i] = 'x'
	}
	line := append(append([]byte(`{"b":"`), big...), "\"}\n"...)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	err = AppendAll(p, f, 8, line, false)
	f.Close()
	if !errors.Is(err, syscall.ENOSPC) || !errors.Is(err, ErrAppendUndone) {
		t.Fatalf("append on a full disk: %v", err)
	}
	if got, _ := os.ReadFile(p); string(got) != "{\"a\":1}\n" {
		t.Fatalf("after a failed append the file holds %d bytes: %.40q", len(got), got)
	}
	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	f, err = os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := AppendAll(p, f, 8, line, false); err != nil {
		t.Fatalf("append with room: %v", err)
	}
}

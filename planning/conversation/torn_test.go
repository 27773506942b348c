package conversation

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/recite-dev/recite/internal/fsutil/fsutiltest"
)

// fullDisk is the log file of an append on a disk with room bytes left:
// the Write that would pass them writes what fits and fails with ENOSPC.
// With truncFails, Truncate fails too (an I/O error).
type fullDisk struct {
	fsutil.AppendFile
	room       int
	truncFails bool
}

func (d *fullDisk) Write(p []byte) (int, error) {
	if len(p) <= d.room {
		d.room -= len(p)
		return d.AppendFile.Write(p)
	}
	k, _ := d.AppendFile.Write(p[:d.room])
	d.room = 0
	return k, syscall.ENOSPC
}

func (d *fullDisk) Truncate(size int64) error {
	if d.truncFails {
		return syscall.EIO
	}
	return d.AppendFile.Truncate(size)
}

// logLines reads the log of id and fails on a diagnostic.
func logLines(t *testing.T, s *Store, id string) []Record {
	t.Helper()
	c, diags, err := s.Read(id)
	if err != nil {
		t.Fatal(err)
	}
	if len(diags) > 0 {
		t.Errorf("diagnostics: %v", diags)
	}
	return c.Messages
}

// TestAppendDiskFull: an append that runs out of space after any number
// of bytes leaves the log as it was (no torn line, no diagnostic), returns
// the error, and the next append, with room, is whole. When the log cannot
// be truncated back either, the lines that reached it are marked torn:
// readers skip them with a diagnostic, and the next append moves them out
// of the log into .recite/torn, so the log reads clean again.
func TestAppendDiskFull(t *testing.T) {
	ctx := context.Background()
	for _, truncFails := range []bool{false, true} {
		for room := 0; room < 200; room += 37 {
			s := newStore(t)
			if err := s.Create(ctx, "c", Meta{}); err != nil {
				t.Fatal(err)
			}
			if err := s.Append(ctx, "c", msg(RoleUser, "first")); err != nil {
				t.Fatal(err)
			}
			p := filepath.Join(s.Dir, "c.jsonl")
			before, _ := os.ReadFile(p)
			s.wrapLog = func(f fsutil.AppendFile) fsutil.AppendFile {
				return &fullDisk{AppendFile: f, room: room, truncFails: truncFails}
			}
			err := s.Append(ctx, "c", msg(RoleUser, strings.Repeat("lost ", 20)), msg(RoleAssistant, "lost too"))
			if !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("room %d: append = %v, want ENOSPC", room, err)
			}
			after, _ := os.ReadFile(p)
			if !truncFails {
				if string(after) != string(before) || !errors.Is(err, fsutil.ErrAppendUndone) {
					t.Errorf("room %d: %v; the log changed:\n%s", room, err, after)
				}
			} else if len(after) > len(before) {
				if _, diags, _ := s.Read("c"); len(diags) == 0 {
					t.Errorf("room %d: the partial append reads without a diagnostic:\n%s", room, after)
				}
			}
			s.wrapLog = nil
			if err := s.Append(ctx, "c", msg(RoleUser, "second")); err != nil {
				t.Fatal(err)
			}
			msgs := logLines(t, s, "c")
			if len(msgs) != 2 || msgs[0].Content != "first" || msgs[1].Content != "second" {
				t.Errorf("room %d, truncation failing %v: messages %+v", room, truncFails, msgs)
			}
			data, _ := os.ReadFile(p)
			if got, err := Committable(p, data); err != nil || string(got) != string(data) {
				t.Errorf("room %d: Committable = %d of %d bytes, %v", room, len(got), len(data), err)
			}
		}
	}
}

// TestAppendRealDiskFull appends to a log on a full tmpfs (when the test
// may mount one): the append fails with ENOSPC and the log is as before;
// once space returns, the next append is whole and the log reads clean.
func TestAppendRealDiskFull(t *testing.T) {
	ctx := context.Background()
	dir := fsutiltest.SmallFilesystem(t, 512<<10)
	s, err := Open(filepath.Join(dir, ".planning", "conversations"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Create(ctx, "c", Meta{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, "c", msg(RoleUser, "first")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(s.Dir, "c.jsonl")
	before, _ := os.ReadFile(p)
	fill := filepath.Join(dir, "fill")
	// Filled to the end or not (ENOSPC), what is left is less than the
	// next append needs.
	_ = os.WriteFile(fill, make([]byte, 400<<10), 0o644)
	err = s.Append(ctx, "c", msg(RoleAssistant, strings.Repeat("a long reply ", 20000)))
	if !errors.Is(err, syscall.ENOSPC) {
		t.Fatalf("append on a full disk = %v", err)
	}
	if after, _ := os.ReadFile(p); string(after) != string(before) {
		t.Fatalf("the log changed: %d bytes, was %d", len(after), len(before))
	}
	if err := os.Remove(fill); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, "c", msg(RoleUser, "second")); err != nil {
		t.Fatal(err)
	}
	if msgs := logLines(t, s, "c"); len(msgs) != 2 {
		t.Errorf("messages %+v", msgs)
	}
}

// TestAppendMovesTornTail: a log that ends in a torn line (a crash in the
// middle of a write) gets it moved out, into .recite/torn/ID.jsonl, by the
// next append, which starts where it did; a last record that only lacks
// its newline is kept and ended.
func TestAppendMovesTornTail(t *testing.T) {
	ctx := context.Background()
	s := newStore(t)
	if err := s.Create(ctx, "c", Meta{}); err != nil {
		t.Fatal(err)
	}
	if err := s.Append(ctx, "c", msg(RoleUser, "first")); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(s.Dir, "c.jsonl")
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	const torn = `{"id":"01J","conversation":"c","kind":"message","ts":"2026-01-0`
	if _, err := f.WriteString(torn); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if err := s.Append(ctx, "c", msg(RoleUser, "second")); err != nil {
		t.Fatal(err)
	}
	if msgs := logLines(t, s, "c"); len(msgs) != 2 {
		t.Errorf("messages %+v", msgs)
	}
	kept, err := os.ReadFile(filepath.Join(s.tornDir(), "c.jsonl"))
	if err != nil || string(kept) != torn+"\n" {
		t.Errorf("torn line kept: %q, %v", kept, err)
	}
	// A whole record without its newline stays.
	data, _ := os.ReadFile(p)
	if err := os.WriteFile(p, data[:len(data)-1], 0o644); err != nil {
		t.Fatal(err)
	}
	s.dropIndex("c")
	if err := s.Append(ctx, "c", msg(RoleUser, "third")); err != nil {
		t.Fatal(err)
	}
	if msgs := logLines(t, s, "c"); len(msgs) != 3 {
		t.Errorf("messages %+v", msgs)
	}
}

// TestCommittable: git takes a log up to its last whole record; a torn
// or newline-less tail stays out; a bad line before whole records is a
// *TornError naming its line.
func TestCommittable(t *testing.T) {
	rec := func(id string) string {
		return `{"id":"` + id + `","conversation":"c","kind":"message","ts":"2026-01-01T00:00:00Z","role":"user","content":"x"}`
	}
	tests := []struct {
		name, in, want string
		badLine        int
	}{
		{"whole", rec("a") + "\n" + rec("b") + "\n", rec("a") + "\n" + rec("b") + "\n", 0},
		{"torn tail", rec("a") + "\n" + `{"id":"b","conv`, rec("a") + "\n", 0},
		{"record without newline", rec("a") + "\n" + rec("b"), rec("a") + "\n", 0},
		{"torn last line", rec("a") + "\n" + `{"id":"b"` + "\n", rec("a") + "\n", 0},
		{"marked", rec("a") + "\n" + "#" + rec("b")[1:] + "\n", rec("a") + "\n", 0},
		{"blank lines", rec("a") + "\n\n" + rec("b") + "\n\n", rec("a") + "\n\n" + rec("b") + "\n\n", 0},
		{"torn middle", rec("a") + "\n" + `{"id":"b"` + "\n" + rec("c") + "\n", "", 2},
		{"empty", "", "", 0},
	}
	for _, tt := range tests {
		got, err := Committable("c.jsonl", []byte(tt.in))
		var te *TornError
		switch {
		case tt.badLine != 0:
			if !errors.As(err, &te) || te.Line != tt.badLine || !errors.Is(err, ErrTorn) {
				t.Errorf("%s: %v, want a TornError at line %d", tt.name, err, tt.badLine)
			}
		case err != nil || string(got) != tt.want:
			t.Errorf("%s: %q, %v\nwant %q", tt.name, got, err, tt.want)
		}
	}
}

package conversation

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/oklog/ulid/v2"
)

// benchSizes are the log lengths the scaling benchmarks compare: the
// figure is the ratio of the two ns/op (target ≤ 1.5) and of B/op (flat).
var benchSizes = []struct {
	name string
	n    int
}{{"1k", 1_000}, {"1M", 1_000_000}}

// writeBenchLog writes conversation id as a meta record and n messages of
// about 220 bytes each (a ULID, a timestamp, a role, a sentence), the
// shape `say` and the hook write, straight to the file with a buffered
// writer (1M messages, 219 MB, in about a second). It returns the log's
// size.
func writeBenchLog(b *testing.B, dir, id string, n int) int64 {
	b.Helper()
	f, err := os.Create(filepath.Join(dir, id+".jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	meta, _ := encodeRecord(Record{ID: ulid.MustNew(ulid.Timestamp(base), nil).String(), Conversation: id, Kind: KindMeta, Time: base, Meta: &Meta{AgentType: "dev", Title: "bench"}})
	_, _ = w.Write(meta)
	var line []byte
	for i := range n {
		ts := base.Add(time.Duration(i+1) * time.Millisecond)
		var u ulid.ULID
		_ = u.SetTime(ulid.Timestamp(ts))
		copy(u[6:], strconv.AppendInt(make([]byte, 0, 10), int64(i), 36))
		role := RoleUser
		if i%2 == 1 {
			role = RoleAssistant
		}
		line = append(line[:0], `{"id":"`...)
		line = append(line, u.String()...)
		line = append(line, `","conversation":"`...)
		line = append(line, id...)
		line = append(line, `","kind":"message","ts":"`...)
		line = ts.AppendFormat(line, time.RFC3339Nano)
		line = append(line, `","role":"`...)
		line = append(line, role...)
		line = append(line, `","content":"message `...)
		line = strconv.AppendInt(line, int64(i), 10)
		line = append(line, ` of a long session: the agent reads the plan, edits a file and runs the tests again"}`...)
		line = append(line, '\n')
		_, _ = w.Write(line)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	st, _ := f.Stat()
	_ = f.Close()
	return st.Size()
}

// benchStore returns a store over a log of n messages whose index has been
// built (once, outside the timing).
func benchStore(b *testing.B, n int) *Store {
	b.Helper()
	s, err := Open(filepath.Join(b.TempDir(), "conversations"))
	if err != nil {
		b.Fatal(err)
	}
	s.NoSync = true
	size := writeBenchLog(b, s.Dir, "c", n)
	b.ReportMetric(float64(size)/float64(n+1), "log-B/record")
	if _, err := s.Tail("c", 1); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkTail is Tail(id, 20) on logs of 1,000 and 1,000,000 messages,
// through the sidecar index (built before the timing starts).
func BenchmarkTail(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			s := benchStore(b, sz.n)
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				got, err := s.Tail("c", 20)
				if err != nil || len(got) != 20 {
					b.Fatal(len(got), err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkAppend appends one message (without fsync, which costs what the
// disk does) to logs of 1,000 and 1,000,000 messages, then asks its
// number: what `conversation say` asks of the store.
func BenchmarkAppend(b *testing.B) {
	for _, sz := range benchSizes {
		b.Run(sz.name, func(b *testing.B) {
			s := benchStore(b, sz.n)
			ctx := context.Background()
			r := Record{Role: RoleAssistant, Agent: "dev", Content: strings.Repeat("some reply text ", 8)}
			b.ReportAllocs()
			start := cpuTime()
			for b.Loop() {
				out, err := s.AppendStamped(ctx, "c", r)
				if err != nil {
					b.Fatal(err)
				}
				if n, err := s.MessageNumber(ctx, "c", out[0].ID); err != nil || n < sz.n {
					b.Fatal(n, err)
				}
			}
			reportCPU(b, start)
		})
	}
}

// BenchmarkIndexBuild is the one-time cost of indexing a log of 1,000,000
// messages that has no index yet (after a clone): one pass over the file
// when it is sorted, a second one that sorts when a union merge left a
// record out of order (here: one older record at the end).
func BenchmarkIndexBuild(b *testing.B) {
	for _, sorted := range []bool{true, false} {
		name := map[bool]string{true: "sorted", false: "unsorted"}[sorted]
		b.Run(name, func(b *testing.B) {
			s, err := Open(filepath.Join(b.TempDir(), "conversations"))
			if err != nil {
				b.Fatal(err)
			}
			writeBenchLog(b, s.Dir, "c", 1_000_000)
			if !sorted {
				f, _ := os.OpenFile(filepath.Join(s.Dir, "c.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
				line, _ := encodeRecord(Record{ID: "old", Conversation: "c", Kind: KindMessage, Time: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC), Role: RoleUser, Content: "merged"})
				_, _ = f.Write(line)
				_ = f.Close()
			}
			b.ReportAllocs()
			for b.Loop() {
				s.dropIndex("c")
				if _, err := s.Tail("c", 1); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

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
)

// BenchmarkAppend measures the append path for one message without fsync
// (target < 2 ms per message).
func BenchmarkAppend(b *testing.B) {
	s, err := Open(filepath.Join(b.TempDir(), "conversations"))
	if err != nil {
		b.Fatal(err)
	}
	s.NoSync = true
	ctx := context.Background()
	if err := s.Create(ctx, "c", Meta{}); err != nil {
		b.Fatal(err)
	}
	r := Record{Role: RoleAssistant, Agent: "dev", Content: strings.Repeat("some reply text ", 30), FilesModified: []string{"a.go"}}
	for b.Loop() {
		if err := s.Append(ctx, "c", r); err != nil {
			b.Fatal(err)
		}
	}
}

// writeLog writes a log of n messages with a buffered writer (fast; no
// lock, no fsync).
func writeLog(b *testing.B, dir, id string, n int) {
	b.Helper()
	f, err := os.Create(filepath.Join(dir, id+".jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range n {
		line, err := encodeRecord(Record{ID: "r" + strconv.Itoa(i), Conversation: id, Kind: KindMessage,
			Time: base.Add(time.Duration(i) * time.Millisecond), Role: RoleUser, Content: "message number " + strconv.Itoa(i) + strings.Repeat(" words", 20)})
		if err != nil {
			b.Fatal(err)
		}
		_, _ = w.Write(line)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	_ = f.Close()
}

// BenchmarkTail compares Tail(id, 20) on logs of 1,000 and 1,000,000
// messages; the ratio of the two ns/op is the figure (target ≤ 1.5).
func BenchmarkTail(b *testing.B) {
	for _, n := range []int{1_000, 1_000_000} {
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			dir := b.TempDir()
			writeLog(b, dir, "c", n)
			s, err := Open(dir)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				got, err := s.Tail("c", 20)
				if err != nil || len(got) != 20 {
					b.Fatal(len(got), err)
				}
			}
		})
	}
}

package compress

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/recite-dev/recite/planning/conversation"
)

// TestIterationsOfAWindow: the newest part of a long log (a window read
// through the index) numbers its records as the whole log does, for a
// log with unnumbered iteration records (the hook's) and for one with
// none (each user prompt a turn), and a message keeps its number while
// the window slides as messages are appended.
func TestIterationsOfAWindow(t *testing.T) {
	for _, withIters := range []bool{true, false} {
		t.Run(fmt.Sprintf("iteration records %v", withIters), func(t *testing.T) {
			s, err := conversation.Open(filepath.Join(t.TempDir(), "conversations"))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			if err := s.Create(ctx, "c", conversation.Meta{}); err != nil {
				t.Fatal(err)
			}
			t0 := time.Date(2027, 1, 1, 0, 0, 0, 0, time.UTC)
			n := 0
			appendTurns := func(k int) {
				var recs []conversation.Record
				for range k {
					n++
					at := t0.Add(time.Duration(n) * time.Minute)
					recs = append(recs,
						conversation.Record{Role: "user", Content: fmt.Sprintf("prompt %d", n), Time: at},
						conversation.Record{Role: "assistant", Content: "done", Time: at.Add(time.Second)})
					if withIters {
						recs = append(recs, conversation.Record{Kind: conversation.KindIteration, Content: "turn", Time: at.Add(2 * time.Second)})
					}
				}
				if err := s.Append(ctx, "c", recs...); err != nil {
					t.Fatal(err)
				}
			}
			appendTurns(300)
			whole := func() map[string]int {
				c, _, err := s.Read("c")
				if err != nil {
					t.Fatal(err)
				}
				m := map[string]int{}
				Iterations(c, m)
				return m
			}
			window := func() (map[string]int, int, *conversation.Conversation) {
				w, _, err := s.Window(ctx, "c", conversation.WindowOptions{Messages: 50})
				if err != nil {
					t.Fatal(err)
				}
				c := w.Conversation()
				m := map[string]int{}
				return m, Iterations(c, m), c
			}
			want := whole()
			got, cur, c := window()
			if c.Earlier.Messages == 0 {
				t.Fatal("the window holds the whole log")
			}
			if cur != 300 {
				t.Errorf("current iteration %d, want 300", cur)
			}
			for id, n := range got {
				if want[id] != n {
					t.Errorf("record %s: iteration %d in the window, %d in the whole log", id, n, want[id])
				}
			}
			appendTurns(7)
			slid, _, _ := window()
			for id, n := range slid {
				if old, ok := got[id]; ok && old != n {
					t.Errorf("record %s moved from iteration %d to %d as the window slid", id, old, n)
				}
			}
		})
	}
}

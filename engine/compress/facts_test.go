package compress

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/recite-dev/recite/planning/conversation"
)

// TestConversationIterationsDerived: records without iteration numbers
// still get one: after the last iteration record before them (the Claude
// Code hook writes one per turn, without a number), else one per user
// prompt; a record's own number wins.
func TestConversationIterationsDerived(t *testing.T) {
	t0 := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	msg := func(id, role string, sec int) conversation.Record {
		return conversation.Record{ID: id, Kind: conversation.KindMessage, Role: role, Content: "text of " + id, Time: t0.Add(time.Duration(sec) * time.Second)}
	}
	said := func(id, text string, sec int) conversation.Record {
		r := msg(id, "user", sec)
		r.Content = text
		return r
	}
	rec := func(id string, sec, n int) conversation.Record {
		return conversation.Record{ID: id, Kind: conversation.KindIteration, Iteration: n, Time: t0.Add(time.Duration(sec) * time.Second)}
	}
	numbered := msg("n", "user", 9)
	numbered.Iteration = 7
	tests := []struct {
		name string
		msgs []conversation.Record
		recs []conversation.Record
		want map[string]int
		cur  int
	}{
		{"hook: records close turns",
			[]conversation.Record{msg("u1", "user", 1), msg("t1", "tool", 2), msg("u2", "user", 4), msg("a2", "assistant", 5), msg("u3", "user", 7)},
			[]conversation.Record{rec("r1", 3, 0), rec("r2", 6, 0)},
			map[string]int{"u1": 1, "t1": 1, "r1": 1, "u2": 2, "a2": 2, "r2": 2, "u3": 3}, 3},
		{"import: user prompts begin turns",
			[]conversation.Record{msg("a0", "assistant", 0), msg("u1", "user", 1), msg("t1", "tool", 2), msg("u2", "user", 3), msg("a2", "assistant", 4)},
			nil,
			map[string]int{"a0": 1, "u1": 1, "t1": 1, "u2": 2, "a2": 2}, 2},
		{"import: what is no prompt",
			[]conversation.Record{msg("u1", "user", 1), said("cmd", "<command-name>/context</command-name>", 2), said("out", "<local-command-stdout>ctx</local-command-stdout>", 3),
				said("int", "[Request interrupted by user for tool use]", 4), said("aider", "Add file to the chat? (Y)es/(N)o/(A)ll/(S)kip all/(D)on't ask again [Yes]: all", 5),
				said("clear", "/clear", 6), said("ask", "/ask is nodes.py used?", 7)},
			nil,
			map[string]int{"u1": 1, "cmd": 1, "out": 1, "int": 1, "aider": 1, "clear": 1, "ask": 2}, 2},
		{"import: custom commands and aider echoes",
			[]conversation.Record{said("rev", "<command-message>review</command-message>\n<command-name>/review</command-name>", 1),
				func() conversation.Record {
					r := said("exp", "Review the open pull requests.", 2)
					r.Internal = true
					return r
				}(),
				msg("a1", "assistant", 3), said("arch", "text of a1", 4), said("ask", "/ask is nodes.py used?", 5), said("echo", "is nodes.py used?", 6), msg("a2", "assistant", 7)},
			nil,
			map[string]int{"rev": 1, "exp": 1, "a1": 1, "arch": 1, "ask": 2, "echo": 2, "a2": 2}, 2},
		{"own numbers win",
			[]conversation.Record{msg("u1", "user", 1), numbered},
			[]conversation.Record{rec("r5", 3, 5)},
			map[string]int{"u1": 1, "r5": 5, "n": 7}, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			iters := map[string]int{}
			cur := Iterations(&conversation.Conversation{Messages: tt.msgs, Iterations: tt.recs}, iters)
			if cur != tt.cur {
				t.Errorf("current = %d, want %d", cur, tt.cur)
			}
			for id, want := range tt.want {
				if iters[id] != want {
					t.Errorf("%s: iteration %d, want %d", id, iters[id], want)
				}
			}
		})
	}
}

// TestSummarizerCommand runs a real summarizer command: its output is used
// and cached under .planning/.recite/compress, a second call reads the
// cache, and a failing or silent command falls back (ok false).
func TestSummarizerCommand(t *testing.T) {
	dir := t.TempDir()
	sum := CommandSummarizer(context.Background(), dir, `tr a-z A-Z; echo; echo "keep=$RECITE_KEEP"`)
	got, ok := sum("old read of src/db.ts", 0.15)
	if !ok || got != "OLD READ OF SRC/DB.TS\nkeep=0.15" {
		t.Fatalf("summarizer = %q, %v", got, ok)
	}
	cached, _ := filepath.Glob(filepath.Join(dir, ".planning", ".recite", "compress", "*.txt"))
	if len(cached) != 1 {
		t.Fatalf("cache files %v, want 1", cached)
	}
	os.WriteFile(cached[0], []byte("FROM CACHE"), 0o644)
	if got, ok := sum("old read of src/db.ts", 0.15); !ok || got != "FROM CACHE" {
		t.Errorf("second call = %q, %v; want the cached text", got, ok)
	}
	for _, cmd := range []string{"exit 3", "true"} {
		if got, ok := CommandSummarizer(context.Background(), dir, cmd)("text", 0.15); ok {
			t.Errorf("%q: ok with %q, want a fallback", cmd, got)
		}
	}
}

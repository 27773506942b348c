package agent

import (
	"slices"
	"testing"
	"time"

	"github.com/recite-dev/recite/planning/conversation"
)

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{"/a/b.md": "/a/b.md", "/a b/c.md": "'/a b/c.md'", "it's": `'it'\''s'`, "": "''"} {
		if got := shellQuote(in); got != want {
			t.Errorf("shellQuote(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestRunChangedFiles: the files a run changed are those git lists after
// and not before, before and not after, or in both with another stat.
func TestRunChangedFiles(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	sig := func(size int64, at time.Time) *runFileSig { return &runFileSig{size: size, mode: 0o644, mtime: at} }
	before := runSnapshot{"same.go": sig(1, t0), "edited.go": sig(1, t0), "reverted.go": sig(1, t0), "deleted.go": sig(1, t0), "gone.go": nil}
	after := runSnapshot{"same.go": sig(1, t0), "edited.go": sig(1, t0.Add(time.Second)), "deleted.go": nil, "gone.go": nil, "new.go": sig(2, t0)}
	want := []string{"deleted.go", "edited.go", "new.go", "reverted.go"}
	if got := runChangedFiles(before, after); !slices.Equal(got, want) {
		t.Errorf("runChangedFiles = %v, want %v", got, want)
	}
	for _, tc := range []struct {
		its  []conversation.Record
		want int
	}{
		{nil, 1},
		{[]conversation.Record{{Iteration: 1}, {Iteration: 2}}, 3},
		{[]conversation.Record{{}, {}}, 3},
		{[]conversation.Record{{Iteration: 7}}, 8},
	} {
		if got := NextIteration(&conversation.Conversation{Iterations: tc.its}); got != tc.want {
			t.Errorf("NextIteration(%d records) = %d, want %d", len(tc.its), got, tc.want)
		}
	}
}

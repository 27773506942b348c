package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/planning/conversation"
)

// TestCodexSignalsMatchClaudeCode imports a Codex CLI session file
// (written from codex-rs's rollout types: a failed go test, a failed go
// vet, two error lines in a command that exited 0, a failed user shell
// command, a user STOP, an assistant BLOCKED, a stream error and a
// compaction) and the same conversation as a Claude Code transcript, reads
// both back from a store and extracts their stop signals as status and
// preserve do (SignalMessages, signals.Extract): the signals are the same.
func TestCodexSignalsMatchClaudeCode(t *testing.T) {
	dir := filepath.Join(sharedtest.ModuleRoot(), "planning", "conversation", "testdata", "codex")
	store, err := conversation.Open(filepath.Join(t.TempDir(), "conversations"))
	if err != nil {
		t.Fatal(err)
	}
	extract := func(id, file string, imp func(f *os.File) ([]conversation.Record, error)) []string {
		f, err := os.Open(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = f.Close() }()
		recs, err := imp(f)
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if err := store.Create(ctx, id, conversation.Meta{}); err != nil {
			t.Fatal(err)
		}
		if _, err := store.AppendNew(ctx, id, recs...); err != nil {
			t.Fatal(err)
		}
		c, _, err := store.Read(id)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range signals.Extract(nil, SignalMessages(c), nil) {
			out = append(out, fmt.Sprintf("%s %s count=%d %q", s.Kind, s.Hash, s.Count, s.Text))
		}
		slices.Sort(out)
		return out
	}
	codex := extract("codex", "rollout-2026-03-01T10-00-00-0199a1b2-0c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl", func(f *os.File) ([]conversation.Record, error) {
		recs, _, err := conversation.ImportCodex(f)
		return recs, err
	})
	claude := extract("claude", "equivalent-claude-code.jsonl", func(f *os.File) ([]conversation.Record, error) {
		recs, _, err := conversation.ImportClaudeCode(f)
		return recs, err
	})
	// The piped `cat config.json | tee out.log` exits 0 with two distinct
	// failure lines (cat's "No such file or directory" and node's ENOENT):
	// each is an error of its own, as two errors of one tsc run are.
	if len(codex) != 7 {
		t.Errorf("codex signals: want 7 (2 failed commands, 2 error lines of a command that exited 0, 1 failed user command, STOP, BLOCKED), got %d:\n%v", len(codex), codex)
	}
	if !slices.Equal(codex, claude) {
		t.Errorf("signals differ\ncodex:\n%v\nclaude code:\n%v", codex, claude)
	}
}

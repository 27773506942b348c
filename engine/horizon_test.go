package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine/history"
	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning/conversation"
)

// farStop and farError are said at the start of a long conversation,
// thousands of messages before the horizon a build reads.
const (
	farStop  = "STOP: never force-push to main, the release branch tracks it"
	farError = "panic: runtime error: index out of range [3] with length 3"
)

// longConversation writes conversation id with farStop and farError as its
// first messages, then n plain messages (more than the horizon), in one
// buffered write, and returns the store.
func longConversation(t *testing.T, dir, id string, n int) *conversation.Store {
	t.Helper()
	s, err := New(dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Create(ctx, id, conversation.Meta{AgentType: "dev"}); err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	recs := []conversation.Record{
		{ID: "far-stop", Role: "user", Content: farStop, Time: t0},
		{ID: "far-call", Role: "assistant", Time: t0.Add(time.Second), ToolCalls: []conversation.ToolCall{{ID: "c1", Name: "bash", Arguments: `{"cmd":"go test"}`}}},
		{ID: "far-error", Role: "tool", ToolCallID: "c1", ToolName: "bash", IsError: true, Content: farError, Time: t0.Add(2 * time.Second)},
	}
	for i := range n {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		recs = append(recs, conversation.Record{ID: fmt.Sprintf("m%06d", i), Role: role, Time: t0.Add(time.Duration(10+i) * time.Second),
			Content: fmt.Sprintf("message %d: the agent reads the plan, edits a file and runs the tests again", i)})
	}
	if err := s.Append(ctx, id, recs...); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFarStopSignalSurvives: a stop signal and an error said thousands of
// messages before the horizon a build reads (history.Horizon) still reach
// the prompt verbatim through the index's ledger, and the status and the
// preservation block carry them, while the log is read only from its end
// (the window holds the horizon, not the log).
func TestFarStopSignalSurvives(t *testing.T) {
	dir := enginetest.Project(t, "targets:\n  - name: dev\n    conversation: long\n    providers: [markdown, anthropic]\n", nil)
	n := 3 * history.HorizonMessages
	s := longConversation(t, dir, "long", n)
	w, _, err := s.Window(context.Background(), "long", history.Horizon(0))
	if err != nil {
		t.Fatal(err)
	}
	held := history.Horizon(0).Messages
	if got := len(w.Conversation().Messages); w.Complete || got != held || w.Earlier.Messages != n+3-held {
		t.Fatalf("the horizon holds %d messages (complete %v, earlier %+v): the log is not longer than it", got, w.Complete, w.Earlier)
	}
	e := New(dir)
	if _, err := e.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"dev.md", "dev.anthropic.json"} {
		b, err := os.ReadFile(filepath.Join(dir, PromptsDir, f))
		if err != nil {
			t.Fatal(err)
		}
		body := string(b)
		if f != "dev.md" {
			body = strings.ReplaceAll(body, `\"`, `"`)
		}
		for _, want := range []string{farStop, farError} {
			if !strings.Contains(body, want) {
				t.Errorf("%s lost %q, said %d messages before the horizon", f, want, n+3-history.HorizonMessages)
			}
		}
		if strings.Contains(body, "message 0: ") {
			t.Errorf("%s holds message 0, before the horizon: the history read the whole log", f)
		}
	}
	rep, err := e.Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, sig := range rep.Signals.Signals {
		texts = append(texts, sig.Text)
	}
	for _, want := range []string{farStop, farError} {
		if !strings.Contains(strings.Join(texts, "\n"), want) {
			t.Errorf("status lost %q: %q", want, texts)
		}
	}
	pr, err := e.Preserve(context.Background(), PreserveOptions{Conversations: []string{"long"}})
	if err != nil {
		t.Fatal(err)
	}
	block := signals.RenderBlock(pr.Block)
	for _, want := range []string{farStop, farError} {
		if !strings.Contains(block, want) {
			t.Errorf("the preservation block lost %q:\n%s", want, block)
		}
	}
}

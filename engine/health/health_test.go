package health

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

func TestIterationRecords(t *testing.T) {
	at := time.Date(2026, 2, 7, 9, 0, 0, 0, time.UTC)
	recs := []conversation.Record{
		{Kind: conversation.KindIteration, Time: at, Content: "one\ntwo\n", FilesModified: []string{"a", "b"}},
		{Kind: conversation.KindIteration, Time: at, IsError: true, Content: "Error: boom"},
		{Kind: conversation.KindIteration, Time: at},
	}
	its := IterationRecords(recs)
	if len(its) != 3 || its[0].N != 1 || its[0].FilesChanged != 2 || its[0].OutputLines != 2 ||
		its[1].ErrorText != "Error: boom" || its[1].OutputLines != 1 || its[0].ErrorText != "" || its[2].OutputLines != 0 {
		t.Errorf("%+v", its)
	}
}

// TestWorkingStateLastSuccess: the last successful change is the last
// iteration that changed files without an error, in a conversation and in
// a loop (examples/fire: iterations 2-4 changed files but failed with
// a41c9e07, iteration 4 is recorded STALLED; iteration 1 succeeded).
func TestWorkingStateLastSuccess(t *testing.T) {
	at := func(m int) time.Time { return time.Date(2026, 2, 7, 9, m, 0, 0, time.UTC) }
	conv := &conversation.Conversation{ID: "main", Iterations: []conversation.Record{
		{ID: "i1", Kind: conversation.KindIteration, Time: at(1), Content: "Edit: src/a.go", FilesModified: []string{"src/a.go"}},
		{ID: "i2", Kind: conversation.KindIteration, Time: at(2), Content: "Edit: src/b.go", FilesModified: []string{"src/b.go"}, IsError: true},
		{ID: "i3", Kind: conversation.KindIteration, Time: at(3), Content: "Edit: src/c.go", FilesModified: []string{"src/c.go"}, ErrorHash: "a41c9e07"},
		{ID: "i4", Kind: conversation.KindIteration, Time: at(4), Content: "ran tests"},
	}}
	var b signals.Block
	WorkingState(&b, nil, &Collected{Convs: []*conversation.Conversation{conv}})
	if b.LastChange != "src/a.go (Edit: src/a.go)" {
		t.Errorf("conversation: last successful change %q, want src/a.go", b.LastChange)
	}

	proj, err := planning.Load(os.DirFS(filepath.Join(enginetest.Example("fire"), ".planning")))
	if err != nil {
		t.Fatal(err)
	}
	b = signals.Block{}
	WorkingState(&b, proj, &Collected{Loop: activeLoop(proj)})
	if b.LastChange != "Wrote paidInvoicesSince and upsertInvoice (iteration 1)" {
		t.Errorf("loop: last successful change %q, want iteration 1", b.LastChange)
	}
}

// activeLoop is the loop loops/active-loop.json names, else the last (as
// scope.ActiveLoop picks it).
func activeLoop(proj *planning.Project) *planning.Loop {
	if len(proj.Loops) == 0 {
		return nil
	}
	l := proj.Loops[len(proj.Loops)-1]
	for _, cand := range proj.Loops {
		if cand.ID == proj.ActiveLoop {
			l = cand
		}
	}
	return l
}

// TestIterations: the project's health is evaluated on the active loop's
// rows when it has any, else on the newest HealthIterations iteration
// records of each default conversation (the targets' and the most recently
// active one), merged in time order, read from the logs' ends.
func TestIterations(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store, err := conversation.Open(filepath.Join(dir, filepath.FromSlash(layout.ConversationsDir)))
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Date(2026, 2, 7, 9, 0, 0, 0, time.UTC)
	lines := 1
	add := func(id string, n int, at func(i int) time.Time, files []string) {
		if err := store.Create(ctx, id, conversation.Meta{}); err != nil {
			t.Fatal(err)
		}
		for i := range n {
			if err := store.Append(ctx, id,
				conversation.Record{Kind: conversation.KindMessage, Time: at(i), Role: "user", Content: "go on"},
				conversation.Record{Kind: conversation.KindIteration, Time: at(i).Add(time.Second), Content: "turn", FilesModified: files, OutputLines: &lines}); err != nil {
				t.Fatal(err)
			}
		}
	}
	// Two targets' conversations: "main" changed no file in its 7 turns,
	// the last two after the last of "old", whose 150 turns each changed
	// one.
	add("main", 7, func(i int) time.Time { return t0.Add(time.Duration(145+i) * time.Minute) }, nil)
	add("old", HealthIterations+50, func(i int) time.Time { return t0.Add(time.Duration(i) * time.Minute) }, []string{"a.go"})
	cfg := config.Default()
	cfg.Targets = []config.Target{{Name: "agent", Conversation: "main"}, {Name: "tester", Conversation: "old"}}
	iters, source, diags := Iterations(ctx, store, cfg, nil)
	if len(diags) > 0 {
		t.Fatal(diags)
	}
	if len(iters) != HealthIterations+7 || source != layout.ConversationLog("main") {
		t.Fatalf("%d iterations from %s, want %d", len(iters), source, HealthIterations+7)
	}
	// In time order, main's turns 5 and 6 (minutes 150, 151) come after
	// old's last (149).
	if h := signals.Evaluate(iters, cfg.CircuitBreaker.Effective()); h.StallCount != 2 {
		t.Errorf("stall %d, want main's 2 turns after old's last change", h.StallCount)
	}
	proj, err := planning.Load(os.DirFS(filepath.Join(enginetest.Example("fire"), ".planning")))
	if err != nil {
		t.Fatal(err)
	}
	loop := activeLoop(proj)
	if iters, source, _ := Iterations(ctx, store, cfg, loop); len(iters) != len(loop.Iterations) || source != layout.PlanningDir+"/"+loop.Path {
		t.Errorf("%d iterations from %s, want the loop's rows", len(iters), source)
	}
}

// TestHealthSurvivesANewSession: the project's health is its loop
// history. A new session that has recorded no iteration yet (its first
// prompt: a user message only) changes neither the iterations evaluated
// nor the health; once it records iterations they join the history, and
// the earlier session's stay until HealthIterations newer ones are held.
func TestHealthSurvivesANewSession(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store, err := conversation.Open(filepath.Join(dir, filepath.FromSlash(layout.ConversationsDir)))
	if err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	t0 := time.Date(2026, 2, 7, 9, 0, 0, 0, time.UTC)
	lines := 1
	turn := func(id string, at time.Time, files []string) {
		t.Helper()
		if err := store.Append(ctx, id,
			conversation.Record{Kind: conversation.KindMessage, Time: at, Role: "user", Content: "go on"},
			conversation.Record{Kind: conversation.KindIteration, Time: at.Add(time.Second), Content: "turn", FilesModified: files, OutputLines: &lines}); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"cc-old", "cc-new"} {
		if err := store.Create(ctx, id, conversation.Meta{}); err != nil {
			t.Fatal(err)
		}
	}
	// The earlier session: one change, then a stalled turn.
	turn("cc-old", t0, []string{"a.go"})
	turn("cc-old", t0.Add(time.Minute), nil)
	before, _, diags := Iterations(ctx, store, cfg, nil)
	if len(diags) > 0 || len(before) != 2 {
		t.Fatalf("before: %d iterations, %v", len(before), diags)
	}
	hBefore := signals.Evaluate(before, cfg.CircuitBreaker.Effective())

	// The new session's first prompt: a message, no iteration.
	if err := store.Append(ctx, "cc-new", conversation.Record{Kind: conversation.KindMessage, Time: t0.Add(time.Hour), Role: "user", Content: "hello"}); err != nil {
		t.Fatal(err)
	}
	at1, _, _ := Iterations(ctx, store, cfg, nil)
	h1 := signals.Evaluate(at1, cfg.CircuitBreaker.Effective())
	if len(at1) != 2 || h1.State != hBefore.State || h1.Breaker != hBefore.Breaker || h1.StallCount != hBefore.StallCount {
		t.Fatalf("prompt 1: %d iterations, %s/%s stall %d; want the earlier session's %s/%s stall %d",
			len(at1), h1.State, h1.Breaker, h1.StallCount, hBefore.State, hBefore.Breaker, hBefore.StallCount)
	}
	if ids := DefaultConversations(cfg, store); len(ids) != 2 {
		t.Errorf("default conversations %v: want the new session and the one that last worked", ids)
	}

	// The new session stalls again: the stall counts on from the earlier
	// session's.
	turn("cc-new", t0.Add(time.Hour+time.Minute), nil)
	at2, source, _ := Iterations(ctx, store, cfg, nil)
	h2 := signals.Evaluate(at2, cfg.CircuitBreaker.Effective())
	if len(at2) != 3 || h2.StallCount != hBefore.StallCount+1 || source != layout.ConversationLog("cc-new") {
		t.Errorf("after the new session's turn: %d iterations from %s, stall %d; want 3 from cc-new, stall %d", len(at2), source, h2.StallCount, hBefore.StallCount+1)
	}
}

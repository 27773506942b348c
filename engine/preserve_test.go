package engine

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine/health"
	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/planning/conversation"
)

// fixedNow is the clock of preservation tests.
func fixedNow() time.Time { return time.Date(2026, 2, 7, 10, 0, 0, 0, time.UTC) }

// withConversation adds conversation "main" to the project: a prompt, a
// failing tool call, an iteration that changed a file and a STOP request,
// with fixed ids and times so the block is reproducible.
func withConversation(t testing.TB, dir string) {
	t.Helper()
	s, err := New(dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Create(context.Background(), "main", conversation.Meta{Title: "sync"}); err != nil {
		t.Fatal(err)
	}
	at := func(m int) time.Time { return time.Date(2026, 2, 7, 9, m, 0, 0, time.UTC) }
	conf := 0.6
	recs := []conversation.Record{
		{ID: "m1", Kind: conversation.KindMessage, Time: at(1), Role: "user", Content: "Make the sync tests pass.\nSTOP: do not mock the database."},
		{ID: "m2", Kind: conversation.KindMessage, Time: at(2), Role: "assistant", ToolCalls: []conversation.ToolCall{{ID: "t1", Name: "Bash", Arguments: `{"command":"npm test"}`}}},
		{ID: "m3", Kind: conversation.KindMessage, Time: at(3), Role: "tool", ToolCallID: "t1", ToolName: "Bash", IsError: true, Content: "FAIL test/sync.test.ts\nError: getaddrinfo ENOTFOUND db.internal\n    at GetAddrInfoReqWrap.onlookup (node:dns:107:26)"},
		{ID: "i1", Kind: conversation.KindIteration, Time: at(4), Content: "Edit: src/db.ts", FilesModified: []string{"src/db.ts"}, Confidence: &conf},
	}
	if err := s.Append(context.Background(), "main", recs...); err != nil {
		t.Fatal(err)
	}
}

func TestPreserveGolden(t *testing.T) {
	dir := enginetest.HookProject(t)
	withConversation(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "src", "db.ts"), []byte("export {};\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := New(dir).Preserve(context.Background(), PreserveOptions{Trigger: signals.TriggerSabbathRest, Conversations: []string{"main"}, Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diagnostics) != 0 {
		t.Errorf("diagnostics %v", res.Diagnostics)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".planning", "context-preserved.md"))
	if err != nil {
		t.Fatal(err)
	}
	goldenFile(t, filepath.Join("testdata", "hook", "preserve-fire.golden.md"), b)
	// Every stop signal of the sources is in the block verbatim
	// (docs/architecture.md#stop-signals-verbatim), and the block reads back
	// as written.
	col, _ := New(dir).signalsFor(t, []string{"main"})
	for _, s := range col.Report.Signals {
		if !strings.Contains(string(b), s.Text) {
			t.Errorf("%s signal %q missing from the block", s.Kind, s.Text)
		}
	}
	blocks, diags := signals.ParseBlocks(PreservedFile, b)
	if len(blocks) != 1 || len(diags) != 0 {
		t.Fatalf("blocks %d diags %v", len(blocks), diags)
	}
	got := blocks[0]
	if got.Trigger != "sabbath_rest" || strings.Join(got.FilesModified, ",") != "src/db.ts" || got.Confidence != 60 ||
		got.Task == "" || got.LastChange != "src/db.ts (Edit: src/db.ts)" || len(got.Signals) != len(res.Block.Signals) {
		t.Errorf("block read back: %+v", got)
	}
	if !strings.Contains(res.Summary, "1 stop") || !strings.Contains(res.Summary, "1 file modified") {
		t.Errorf("summary %q", res.Summary)
	}
}

// signalsFor collects the signals Preserve reads (test helper).
func (e *Engine) signalsFor(t testing.TB, convs []string) (*health.Collected, []Diagnostic) {
	t.Helper()
	cfg, _, proj, err := e.load()
	if err != nil {
		t.Fatal(err)
	}
	return e.collectSignals(context.Background(), cfg, proj, health.Sources{Conversations: convs})
}

func TestPreserveAppendsAndDiagnoses(t *testing.T) {
	dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd")) // no git repository
	e := New(dir)
	for i := range 2 {
		res, err := e.Preserve(context.Background(), PreserveOptions{Now: func() time.Time { return fixedNow().Add(time.Duration(i) * time.Minute) }})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Block.FilesModified) != 0 || !hasDiag(res.Diagnostics, "files modified omitted: not a git repository") {
			t.Errorf("diagnostics %v", res.Diagnostics)
		}
		if res.Block.Trigger != "manual" {
			t.Errorf("trigger %q", res.Block.Trigger)
		}
	}
	b, _ := os.ReadFile(filepath.Join(dir, ".planning", "context-preserved.md"))
	if strings.Count(string(b), "# Context preserved by recite") != 1 || strings.Count(string(b), "## Context Preservation Block") != 2 {
		t.Errorf("file:\n%s", b)
	}
	f, ok, diags := e.latestPreserved()
	if !ok || len(diags) != 0 || !strings.Contains(f.Text, "timestamp: 2026-02-07T10:01:00Z") {
		t.Errorf("latest %v %v:\n%s", ok, diags, f.Text)
	}

	if _, err := e.Preserve(context.Background(), PreserveOptions{Trigger: "lunch"}); !isInputError(err) {
		t.Errorf("bad trigger: %v", err)
	}
	if _, err := New(t.TempDir()).Preserve(context.Background(), PreserveOptions{}); !isInputError(err) {
		t.Errorf("no planning tree: %v", err)
	}
	if _, err := e.Preserve(context.Background(), PreserveOptions{Conversations: []string{"nope"}}); err != nil {
		t.Fatal(err)
	} else if res, _ := e.Preserve(context.Background(), PreserveOptions{Conversations: []string{"nope"}}); !hasDiag(res.Diagnostics, "conversation not found") {
		t.Errorf("missing conversation not reported: %v", res.Diagnostics)
	}
}

func hasDiag(ds []Diagnostic, sub string) bool {
	for _, d := range ds {
		if strings.Contains(d.Message, sub) {
			return true
		}
	}
	return false
}

func isInputError(err error) bool {
	var ie *InputError
	return errors.As(err, &ie)
}

func TestVerify(t *testing.T) {
	dir := enginetest.HookProject(t)
	withConversation(t, dir)
	e := New(dir)
	ctx := context.Background()
	res, err := e.Verify(ctx, "Some issues were encountered with the database; several approaches were tried.", VerifyOptions{Conversations: []string{"main"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Checked == 0 || len(res.Lost) != res.Checked || !strings.Contains(res.Reinject, "Error: getaddrinfo ENOTFOUND db.internal") {
		t.Errorf("smoothed: lost %d of %d\n%s", len(res.Lost), res.Checked, res.Reinject)
	}
	var faithful strings.Builder
	for _, s := range res.Lost {
		faithful.WriteString("- " + signals.Key(s) + "\n")
	}
	faithful.WriteString("The circuit breaker is TRIPPED.\n")
	res, err = e.Verify(ctx, faithful.String(), VerifyOptions{Conversations: []string{"main"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Lost) != 0 || res.Reinject != "" {
		t.Errorf("faithful: lost %+v", res.Lost)
	}
	if _, err := e.Verify(ctx, "x", VerifyOptions{FromBlock: true}); !isInputError(err) {
		t.Errorf("no block: %v", err)
	}
	if _, err := e.Preserve(ctx, PreserveOptions{Conversations: []string{"main"}, Now: fixedNow}); err != nil {
		t.Fatal(err)
	}
	res, err = e.Verify(ctx, "nothing", VerifyOptions{FromBlock: true})
	if err != nil || len(res.Lost) == 0 || !strings.HasPrefix(res.Against, PreservedFile+":") {
		t.Errorf("from block: %+v %v", res, err)
	}
}

// goldenFile compares got with a golden file, rewriting it with -update.
func goldenFile(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./engine -run %s -update)", err, t.Name())
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from its golden file (run go test ./engine -run %s -update and review the diff):\n%s", path, t.Name(), got)
	}
}

// TestPreserveExampleFire checks the block written for examples/fire
// against its loop file: the error is the `### Last Error (verbatim)`
// block (line 66, with its stack) seen in the 5 iterations carrying hash
// a41c9e07, never the hash cell itself; the snapshot's "FAILED ATTEMPTS:
// 2 — …" counter is not an approach; spin is 5/5; and the last successful
// change is iteration 1, the last that changed files without an error
// (iterations 2-4 changed files but failed with a41c9e07).
func TestPreserveExampleFire(t *testing.T) {
	dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "fire"))
	res, err := New(dir).Preserve(context.Background(), PreserveOptions{Now: fixedNow})
	if err != nil {
		t.Fatal(err)
	}
	b := res.Block
	var errs []signals.Signal
	for _, s := range b.Signals {
		switch {
		case s.Kind == signals.KindError:
			errs = append(errs, s)
		case s.Kind == signals.KindFailedApproach && strings.HasPrefix(s.Text, "2 —"):
			t.Errorf("counter line kept as an approach: %q (%s)", s.Text, s.Source)
		}
	}
	const src = ".planning/loops/fire-loop-20260123-143052.md:66"
	if len(errs) != 1 || errs[0].Source != src || errs[0].Count != 5 ||
		errs[0].Text != "Error: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)\n ❯ test/sync.test.ts:7:14" {
		t.Errorf("errors = %+v, want the verbatim block from %s seen 5 times", errs, src)
	}
	if b.Breaker != "stall: 2/5 | spin: 5/5 | decline: 71%" {
		t.Errorf("breaker line %q", b.Breaker)
	}
	if b.LastChange != "Wrote paidInvoicesSince and upsertInvoice (iteration 1)" {
		t.Errorf("last successful change %q, want iteration 1", b.LastChange)
	}
	out, err := os.ReadFile(filepath.Join(dir, ".planning", "context-preserved.md"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(out), "a41c9e07") {
		t.Errorf("block quotes the error hash as an error:\n%s", out)
	}
}

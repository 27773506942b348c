package engine

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/planning/conversation"
)

// blockedState is the fire example's health line.
const blockedState = "State: BLOCKED (external error: BLOCKED: Cannot connect to the Docker daemon at unix:///var/run/docker.sock)"

// TestPromptHealthThresholds: the prompt's health lines come from
// signals.Evaluate with recite.yaml's circuit_breaker block.
func TestPromptHealthThresholds(t *testing.T) {
	tests := []struct {
		name, yaml string
		want       []string
	}{
		// Iteration 8 reports "BLOCKED: Cannot connect to the Docker daemon"
		// (BLOCKED whatever the thresholds); hash a41c9e07 repeats in
		// iterations 2-6 (spin 5; the resume rows record no error column).
		{"defaults", "", []string{"Loop 20260123-143052: active, iteration 8 of 20", blockedState, "Circuit breaker: TRIPPED (stall: 2/5 | spin: 5/5 | decline: 71%)"}},
		{"debug preset", "circuit_breaker:\n  preset: debug\n", []string{"Loop 20260123-143052: active, iteration 8 of 20", blockedState, "Circuit breaker: TRIPPED (stall: 2/8 | spin: 5/5 | decline: 71%)"}},
		{"relaxed decline and spin", "circuit_breaker:\n  decline_warning_pct: 75\n  decline_break_pct: 80\n  spin_warning: 6\n  spin_break: 8\n", []string{"Loop 20260123-143052: active, iteration 8 of 20", blockedState, "Circuit breaker: HEALTHY (stall: 2/5 | spin: 5/8 | decline: 71%)"}},
		{"relaxed decline only", "circuit_breaker:\n  decline_warning_pct: 75\n  decline_break_pct: 80\n", []string{"Loop 20260123-143052: active, iteration 8 of 20", blockedState, "Circuit breaker: TRIPPED (stall: 2/5 | spin: 5/5 | decline: 71%)"}},
		{"aggressive preset", "circuit_breaker:\n  preset: aggressive\n", []string{"Loop 20260123-143052: active, iteration 8 of 20", blockedState, "Circuit breaker: TRIPPED (stall: 2/2 | spin: 5/3 | decline: 71%)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "fire"))
			if tt.yaml != "" {
				if err := os.WriteFile(filepath.Join(dir, ".planning", "recite.yaml"), []byte(tt.yaml), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cfg, _, proj, err := New(dir).load()
			if err != nil {
				t.Fatal(err)
			}
			health, approach := New(dir).promptHealth(context.Background(), cfg, proj)
			if strings.Join(health, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("health:\n%s\nwant:\n%s", strings.Join(health, "\n"), strings.Join(tt.want, "\n"))
			}
			if len(approach) != 4 || !strings.HasPrefix(approach[0], "Last action: ") {
				t.Errorf("approach %q", approach)
			}
		})
	}
}

// TestLatestPreservedCanonical: the prompt carries the newest block of
// context-preserved.md, whatever its layout, re-rendered canonically, and
// the parser's diagnostics surface.
func TestLatestPreservedCanonical(t *testing.T) {
	dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	src := "# notes\n\n## Context Preservation Block (auto-generated)\n\ntimestamp: 2026-02-01T00:00:00Z\ntrigger: manual\n\n### Errors (verbatim, do NOT paraphrase)\n\n```\nError: old\n```\n\n" +
		"## Context Preservation Block (auto-generated)\n\ntimestamp: 2026-02-02T00:00:00Z\ntrigger: compaction\n\n### Errors (verbatim, do NOT paraphrase)\n\n```\nError: new one\n```\n\n### Working State\n\n- Confidence: lots\n"
	if err := os.WriteFile(filepath.Join(dir, ".planning", "context-preserved.md"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	f, ok, diags := New(dir).latestPreserved()
	if !ok || !strings.Contains(f.Text, "Error: new one") || strings.Contains(f.Text, "Error: old") || !strings.HasPrefix(f.Text, "## Context Preservation Block (auto-generated)\n\ntimestamp: 2026-02-02T00:00:00Z\ntrigger: compaction\n") {
		t.Errorf("latest:\n%s", f.Text)
	}
	if len(diags) != 1 || diags[0].Path != PreservedFile || diags[0].Line != 27 {
		t.Errorf("diagnostics %v", diags)
	}
	// The build carries it in the dynamic tier and reports the diagnostic.
	rep, err := New(dir).Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, s := range rep.Targets[0].Sections {
		if s.ID == "preserved" && s.Tier == "dynamic" {
			found = true
		}
	}
	if !found || !hasDiag(rep.Diagnostics, "confidence") {
		t.Errorf("sections %+v diagnostics %v", rep.Targets[0].Sections, rep.Diagnostics)
	}
}

// TestStatusSignalsJSON: status reports health, the breaker and the signals
// (and their JSON keys).
func TestStatusSignalsJSON(t *testing.T) {
	dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "fire"))
	rep, err := New(dir).Status(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	sr := rep.Signals
	// The loop file records SPINNING then BLOCKED: a41c9e07 in iterations
	// 2-6 (spin 5), iteration 8 "BLOCKED: Cannot connect to the Docker
	// daemon". 14 signals: the loop's verbatim error (the hash cells and
	// the snapshot's copy of its first line are not signals of their own),
	// 4 blocked, 7 failed approaches, 2 circuit-breaker lines.
	if sr == nil || sr.Health.Breaker != "TRIPPED" || sr.Iterations != 8 || sr.BreakerLine != "stall: 2/5 | spin: 5/5 | decline: 71%" || len(sr.Signals) != 14 {
		t.Fatalf("signals report %+v", sr)
	}
	b, _ := json.Marshal(rep)
	var m struct {
		Signals struct {
			Health struct {
				State      string
				Thresholds map[string]int
			}
			BreakerLine string `json:"breaker_line"`
			Signals     []map[string]any
		}
	}
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	if m.Signals.Health.State != "BLOCKED" || m.Signals.Health.Thresholds["stall_break"] != 5 || m.Signals.BreakerLine == "" || m.Signals.Signals[0]["kind"] != "error" {
		t.Errorf("json %s", b)
	}
}

// TestConversationIterationsHealth: without a loop, health comes from the
// conversations' iteration records, and an iteration's error is a signal.
func TestConversationIterationsHealth(t *testing.T) {
	dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	s, err := New(dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Create(ctx, "main", conversation.Meta{}); err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 2, 7, 9, 0, 0, 0, time.UTC)
	var recs []conversation.Record
	for i := range 3 {
		recs = append(recs, conversation.Record{ID: "i" + string(rune('1'+i)), Kind: conversation.KindIteration, Time: at.Add(time.Duration(i) * time.Minute),
			IsError: true, Content: "TypeError: Cannot read properties of undefined (reading 'id')\n    at handler (src/api.ts:4" + string(rune('2'+i)) + ":13)"})
	}
	if err := s.Append(ctx, "main", recs...); err != nil {
		t.Fatal(err)
	}
	rep, err := New(dir).Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sr := rep.Signals
	if sr.IterationSource != ".planning/conversations/main.jsonl" || sr.Iterations != 3 || sr.Health.Breaker != "WARNING" ||
		sr.Health.State != "STALLED" || sr.BreakerLine != "stall: 3/5 | spin: 3/5 | decline: 0%" {
		t.Errorf("health %+v from %s", sr.Health, sr.IterationSource)
	}
	if sr.Signals[0].Kind != "error" || sr.Signals[0].Count != 3 || !strings.HasSuffix(sr.Signals[0].Text, "(src/api.ts:42:13)") {
		t.Errorf("first signal %+v", sr.Signals[0])
	}
}

// TestPromptHealthFromConversation: a target whose loop is driven by
// conversation iteration records (no loop file) carries the same health
// and breaker in its prompt as `recite status` reports.
func TestPromptHealthFromConversation(t *testing.T) {
	dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	if err := os.WriteFile(filepath.Join(dir, ".planning", "recite.yaml"), []byte("targets:\n  - name: agent\n    conversation: main\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e := New(dir)
	ctx := context.Background()
	store, err := e.OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Create(ctx, "main", conversation.Meta{}); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 6; i++ {
		lines := 1
		if err := store.Append(ctx, "main", conversation.Record{Kind: conversation.KindIteration, Iteration: i, IsError: true,
			Content: "exit status 1: cannot open db", OutputLines: &lines, ErrorHash: signals.Hash("cannot open db")}); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := e.Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	st, err := e.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".planning", "prompts", "agent.md"))
	if err != nil {
		t.Fatal(err)
	}
	if st.Signals == nil || st.Signals.BreakerLine == "" {
		t.Fatalf("status reports no breaker: %+v", st.Signals)
	}
	if !strings.Contains(string(b), "## Health") || !strings.Contains(string(b), st.Signals.BreakerLine) {
		t.Errorf("prompt lacks the health section with %q (status), build report %d targets", st.Signals.BreakerLine, len(rep.Targets))
	}
}

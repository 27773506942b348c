package signals

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/recite-dev/recite/planning"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// golden compares got with testdata/name, rewriting it under -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run go test -update): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from golden (run go test -update to accept):\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}

// sampleLoop is a loop file as docs/formats.md#loop-files describes it: Loop Progress
// rows with error hashes, the Circuit Breaker State table, Approaches Tried
// and a Sabbath snapshot with Preserved Stop Signals.
func sampleLoop() *planning.Loop {
	p := "loops/fire-loop-20260123-143052.md"
	return &planning.Loop{
		Path: p, ID: "20260123-143052", Status: "circuit_break",
		Iterations: []planning.Iteration{
			{N: 1, Timestamp: "2026-01-23T14:31:00Z", FilesChanged: 2, ErrorHash: "-", OutputLines: 120, Health: "PROGRESS", Action: "implement auth middleware", Line: 30},
			{N: 2, Timestamp: "2026-01-23T14:35:00Z", FilesChanged: 1, ErrorHash: "a3f2c1d", OutputLines: 110, Health: "PROGRESS", Action: "fix token parse", Line: 31},
			{N: 3, Timestamp: "2026-01-23T14:40:00Z", FilesChanged: 1, ErrorHash: "a3f2c1d", OutputLines: 90, Health: "PROGRESS", Action: "retry token parse", Line: 32},
			{N: 4, Timestamp: "2026-01-23T14:45:00Z", FilesChanged: 0, ErrorHash: "a3f2c1d", OutputLines: 60, Health: "SPINNING", Action: "rotate approach", Line: 33},
			{N: 5, Timestamp: "2026-01-23T14:50:00Z", FilesChanged: 0, ErrorHash: "ECONNREFUSED 127.0.0.1:5432", OutputLines: 20, Health: "BLOCKED", Action: "BLOCKED: database not reachable", Line: 34},
		},
		Breaker: []planning.BreakerRow{
			{N: 3, StallCount: 0, SpinCount: 2, OutputPct: "82%", State: "HEALTHY", Line: 40},
			{N: 4, StallCount: 1, SpinCount: 3, OutputPct: "55%", State: "WARNING (same error 3x)", Line: 41},
		},
		Approaches: []planning.Approach{
			{Text: "[Iteration 1-3] Direct fix in auth.ts", Result: "TypeError persists", Source: p + ":46"},
			{Text: "Mock the token service", Result: "tests pass but prod fails", Source: p + ":47"},
		},
		Snapshots: []*planning.Snapshot{{
			Path: "loops/sabbath-20260123-143052-iter4.md", Iteration: 4, Reason: "circuit_breaker",
			Signals: []planning.Signal{
				{Label: "ERRORS", Text: `"TypeError: Cannot read property 'token' of undefined"`, Source: "loops/sabbath-20260123-143052-iter4.md:40"},
				{Label: "BLOCKED", Text: "[None]", Source: "loops/sabbath-20260123-143052-iter4.md:41"},
				{Label: "TRIED AND FAILED", Text: "Direct fix in auth.ts, Mock the token service", Source: "loops/sabbath-20260123-143052-iter4.md:43"},
				{Label: "CIRCUIT BREAKER", Text: "WARNING (spin 3/5)", Source: "loops/sabbath-20260123-143052-iter4.md:44"},
			},
		}},
	}
}

func sampleProject() *planning.Project {
	return &planning.Project{
		Flavor: planning.FlavorFire,
		Loops:  []*planning.Loop{sampleLoop()},
		Debug: []*planning.DebugFile{
			{Path: "debug/login-500.md", Status: "investigating", Eliminated: []planning.Hypothesis{
				{Text: "Session cookie expired", Evidence: "fresh login also fails", Source: "debug/login-500.md:22"},
			}},
			{Path: "debug/resolved/old.md", Status: "resolved", Resolved: true, Eliminated: []planning.Hypothesis{
				{Text: "stale cache", Evidence: "cleared", Source: "debug/resolved/old.md:9"},
			}},
		},
		Blockers: []planning.Blocker{
			{ID: "BLOCKER-005", Title: "Stripe webhook signature verification fails in production", Priority: "P1", Status: "open", Source: "BLOCKERS.md:12"},
			{ID: "BLOCKER-004", Title: "CI runner out of disk", Status: "resolved", Source: "BLOCKERS.md:30"},
			{ID: "BLOCKERS.md:40", Title: "waiting for API keys", Status: "open", Source: "BLOCKERS.md:40"},
		},
	}
}

func sampleMessages() []Message {
	ts := func(m int) time.Time { return time.Date(2026, 2, 7, 10, m, 0, 0, time.UTC) }
	return []Message{
		{ID: "m1", Role: "user", Content: "Please fix the login bug.", Timestamp: ts(0), Source: "c.jsonl:1"},
		{ID: "m2", Role: "tool", ToolName: "Bash", IsError: true, Content: "Exit code 1\nTypeError: Cannot read property 'token' of undefined at verify (/app/src/auth.ts:42:13)", Timestamp: ts(1), Source: "c.jsonl:2"},
		{ID: "m3", Role: "tool", ToolName: "Bash", IsError: true, Content: "Exit code 1\nTypeError: Cannot read property 'token' of undefined at verify (/app/src/auth.ts:57:9)", Timestamp: ts(2), Source: "c.jsonl:3"},
		{ID: "m4", Role: "tool", ToolName: "Bash", Content: "Usage: lint [flags]\nError: unknown flag: --format\n", Timestamp: ts(3), Source: "c.jsonl:4"},
		{ID: "m5", Role: "assistant", Content: "I am STUCK on the token refresh.\n```\nstatus: BLOCKED\n```\nThis is blocked on the API key (the agent's own words, in lower case).", Timestamp: ts(4), Source: "c.jsonl:5"},
		{ID: "m6", Role: "user", Content: "- **STOP:** do not touch the migrations", Timestamp: ts(5), Source: "c.jsonl:6"},
		{ID: "m7", Role: "tool", ToolName: "Edit", IsError: true, Content: "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nuse the v2 API instead", Timestamp: ts(6), Source: "c.jsonl:7"},
		{ID: "m8", Role: "assistant", Content: "Please don't stop now; keep going.", Timestamp: ts(7), Source: "c.jsonl:8"},
	}
}

func TestExtractGolden(t *testing.T) {
	iters := []IterationRecord{{N: 1, FilesChanged: 0, ErrorText: "Error: connect ECONNREFUSED 10.0.0.7:5432", OutputLines: 3}}
	sigs := Extract(sampleProject(), sampleMessages(), iters)
	got, err := json.MarshalIndent(sigs, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "extract.golden.json", append(got, '\n'))

	// Determinism: the same inputs give the same signals.
	again, _ := json.MarshalIndent(Extract(sampleProject(), sampleMessages(), iters), "", "  ")
	if !bytes.Equal(got, again) {
		t.Error("Extract is not deterministic")
	}
}

func TestExtractRules(t *testing.T) {
	sigs := Extract(sampleProject(), sampleMessages(), nil)
	type kt struct {
		kind Kind
		text string
	}
	has := map[kt]Signal{}
	for _, s := range sigs {
		has[kt{s.Kind, s.Text}] = s
	}
	mustHave := []struct {
		kind  Kind
		text  string
		count int
	}{
		// Two TypeErrors differing only in their location merge.
		{KindError, "Exit code 1\nTypeError: Cannot read property 'token' of undefined at verify (/app/src/auth.ts:42:13)", 2},
		// A marker line in a tool result not flagged as an error, with the
		// lines around it (its key line is asserted below).
		{KindError, "Usage: lint [flags]\nError: unknown flag: --format", 1},
		// The agent's own lower-case words.
		{KindBlocked, "This is blocked on the API key (the agent's own words, in lower case).", 1},
		// An Error column holding the message (not a hash) is an error.
		{KindError, "ECONNREFUSED 127.0.0.1:5432", 1},
		{KindBlocked, "I am STUCK on the token refresh.", 1},
		{KindBlocked, "BLOCKED: database not reachable", 1},
		{KindBlocked, "Stripe webhook signature verification fails in production", 1},
		{KindBlocked, "waiting for API keys", 1},
		{KindStop, "- **STOP:** do not touch the migrations", 1},
		{KindFailedApproach, "[Iteration 1-3] Direct fix in auth.ts", 2},
		{KindFailedApproach, "Session cookie expired", 1},
		{KindCircuitBreaker, "WARNING (same error 3x)", 1},
		{KindCircuitBreaker, "WARNING (spin 3/5)", 1},
		{KindError, "TypeError: Cannot read property 'token' of undefined", 1},
	}
	for _, w := range mustHave {
		s, ok := has[kt{w.kind, w.text}]
		if !ok {
			t.Errorf("missing %s signal %q", w.kind, w.text)
			continue
		}
		if s.Count != w.count {
			t.Errorf("%s %q: count %d, want %d", w.kind, w.text, s.Count, w.count)
		}
	}
	for _, s := range sigs {
		switch s.Text {
		// "a3f2c1d" is an Error Hash cell: a hash is not an error text.
		case "a3f2c1d", "stale cache", "CI runner out of disk", "[None]", "status: BLOCKED", "Please don't stop now; keep going.":
			t.Errorf("unexpected signal %s %q", s.Kind, s.Text)
		}
	}
	if s := has[kt{KindError, "Usage: lint [flags]\nError: unknown flag: --format"}]; s.KeyLine != "Error: unknown flag: --format" || s.Command != "" {
		t.Errorf("marker line signal: key line %q command %q", s.KeyLine, s.Command)
	}
	if s := has[kt{KindError, "Exit code 1\nTypeError: Cannot read property 'token' of undefined at verify (/app/src/auth.ts:42:13)"}]; s.KeyLine != "TypeError: Cannot read property 'token' of undefined at verify (/app/src/auth.ts:42:13)" {
		t.Errorf("TypeError key line %q", s.KeyLine)
	}
	if s := has[kt{KindBlocked, "Stripe webhook signature verification fails in production"}]; s.ID != "BLOCKER-005" {
		t.Errorf("blocker id = %q", s.ID)
	}
	if s := has[kt{KindBlocked, "waiting for API keys"}]; s.ID != "" {
		t.Errorf("derived blocker id kept as ID: %q", s.ID)
	}
	// Order: by kind rank, stable.
	for i := 1; i < len(sigs); i++ {
		if kindRank(sigs[i-1].Kind) > kindRank(sigs[i].Kind) {
			t.Errorf("signals not ordered by kind at %d: %s after %s", i, sigs[i].Kind, sigs[i-1].Kind)
		}
	}
}

func TestExtractRejectionIsStop(t *testing.T) {
	sigs := FromMessages(sampleMessages()[6:7])
	if len(sigs) != 1 || sigs[0].Kind != KindStop {
		t.Fatalf("rejection gave %+v, want one stop signal", sigs)
	}
}

func TestExtractCounts(t *testing.T) {
	ts1 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	ts2 := ts1.Add(time.Hour)
	msgs := []Message{
		{ID: "b", Role: "tool", IsError: true, Content: "boom at x.go:1", Timestamp: ts2},
		{ID: "a", Role: "tool", IsError: true, Content: "boom at x.go:2", Timestamp: ts1},
	}
	sigs := Extract(nil, msgs, nil)
	if len(sigs) != 1 {
		t.Fatalf("got %d signals, want 1", len(sigs))
	}
	s := sigs[0]
	if s.Count != 2 || !s.FirstSeen.Equal(ts1) || !s.LastSeen.Equal(ts2) || s.Source != "b" || s.Text != "boom at x.go:1" {
		t.Errorf("merged signal = %+v", s)
	}
}

package planning

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/recite-dev/recite/markdown"
)

// exampleDoc parses a file of examples/NAME/.planning; rel is relative to
// that planning root and is also the path given to the parsers.
func exampleDoc(t testing.TB, name, rel string) *markdown.Document {
	t.Helper()
	src, err := os.ReadFile(filepath.Join("..", "examples", name, ".planning", filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return markdown.Parse(rel, src)
}

// checkGolden compares v, as indented JSON, with testdata/parta/NAME.json,
// rewriting the file under -update.
func checkGolden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	file := filepath.Join("testdata", "parta", name+".json")
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -run %s -update to create it)", err, t.Name())
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file; got:\n%s", file, got)
	}
}

// TestPartAExamplesGolden runs part A's parsers over the two example projects and
// compares the results with testdata/parta/{fire,gsd}.json.
func TestPartAExamplesGolden(t *testing.T) {
	t.Run("fire", func(t *testing.T) {
		out := map[string]any{}
		loopPath := "loops/fire-loop-20260123-143052.md"
		l, d := parseLoop(loopPath, exampleDoc(t, "fire", loopPath))
		out["loop"] = map[string]any{"loop": l, "diagnostics": d}
		snapPath := "loops/sabbath-20260123-143052-iter6.md"
		s, d := parseSnapshot(snapPath, exampleDoc(t, "fire", snapPath))
		out["snapshot"] = map[string]any{"snapshot": s, "diagnostics": d}
		data, err := os.ReadFile(filepath.Join("..", "examples", "fire", ".planning", "loops", "active-loop.json"))
		if err != nil {
			t.Fatal(err)
		}
		id, file, iter, d := parseActiveLoop("loops/active-loop.json", data)
		out["active_loop"] = map[string]any{"id": id, "loop_file": file, "iteration": iter, "diagnostics": d}
		out["blockers"] = parseBlockers("BLOCKERS.md", exampleDoc(t, "fire", "BLOCKERS.md"))
		cons := exampleDoc(t, "fire", "CONSCIENCE.md")
		out["conscience_blockers"] = blockersFromBullets("CONSCIENCE.md", cons, cons.FindSection("Blockers & Issues"))
		out["todos"] = parseTodoList("todos.md", exampleDoc(t, "fire", "todos.md"))
		checkGolden(t, "fire", out)
	})
	t.Run("gsd", func(t *testing.T) {
		out := map[string]any{}
		var debug []any
		for _, p := range []string{"debug/redirect-returns-404.md", "debug/resolved/slug-collision-loop.md"} {
			df, d := parseDebug(p, exampleDoc(t, "gsd", p))
			debug = append(debug, map[string]any{"debug": df, "diagnostics": d})
		}
		out["debug"] = debug
		state := exampleDoc(t, "gsd", "STATE.md")
		out["state_blockers"] = blockersFromBullets("STATE.md", state, state.FindSection("Blockers/Concerns"))
		todo := "todos/pending/2026-03-04-slug-collision-metric.md"
		out["todo"] = parseTodo(todo, exampleDoc(t, "gsd", todo))
		checkGolden(t, "gsd", out)
	})
}

// TestExampleLoopFacts checks values of the fire example read by hand, so
// that a wrong golden file cannot hide them.
func TestExampleLoopFacts(t *testing.T) {
	p := "loops/fire-loop-20260123-143052.md"
	l, diags := parseLoop(p, exampleDoc(t, "fire", p))
	if len(diags) != 0 {
		t.Errorf("diagnostics: %v", diags)
	}
	if l.ID != "20260123-143052" || l.Status != "active" || l.MaxIterations != 20 || l.CurrentIteration != 8 {
		t.Errorf("front matter: id %q status %q max %d current %d", l.ID, l.Status, l.MaxIterations, l.CurrentIteration)
	}
	if !strings.HasPrefix(l.Prompt, "Finish plan 2-01:") || !strings.Contains(l.Prompt, "\nDo not mock") {
		t.Errorf("prompt = %q", l.Prompt)
	}
	if len(l.Iterations) != 8 {
		t.Fatalf("got %d iterations, want 8 (6 + 2 continued)", len(l.Iterations))
	}
	if it := l.Iterations[5]; it.N != 6 || it.FilesChanged != 0 || it.ErrorHash != "a41c9e07" || it.OutputLines != 40 || it.Health != "SPINNING" {
		t.Errorf("iteration 6 = %+v", it)
	}
	if it := l.Iterations[7]; it.N != 8 || it.FilesChanged != -1 || it.OutputLines != -1 || !strings.HasPrefix(it.Result, "BLOCKED: Cannot connect") || it.Context != "41%" {
		t.Errorf("iteration 8 (continued table) = %+v", it)
	}
	if len(l.Breaker) != 8 || l.Breaker[7].State != "TRIPPED" || l.Breaker[7].SpinCount != 7 || l.Breaker[3].OutputPct != "43%" {
		t.Errorf("breaker rows = %+v", l.Breaker)
	}
	if len(l.Approaches) != 3 || l.Approaches[0].Iterations != "2-3" || l.Approaches[2].Text != "Mock pg.Pool in test/sync.test.ts" {
		t.Errorf("approaches = %+v", l.Approaches)
	}
	cb := l.CircuitBreaker
	if cb == nil || cb.State != "TRIPPED" || cb.StallCounter != 5 || cb.ErrorHashes["a41c9e07"] != 7 || cb.OutputBaseline != 142 || len(cb.OutputHistory) != 8 || len(cb.ApproachesTried) != 3 {
		t.Errorf("circuit breaker = %+v", cb)
	}
}

func TestParseLoopTables(t *testing.T) {
	tests := []struct {
		name  string
		src   string
		check func(t *testing.T, l *Loop, diags []Diagnostic)
	}{
		{
			name: "reference variant with State column and numbered approaches",
			src: `---
id: 20260301-090000
status: circuit_break
max_iterations: 10
---
# Loop

## Loop Progress

| Iteration | Files Changed | Error Hash | Output Lines | State |
|-----------|---------------|------------|--------------|-------|
| 1 | 2 | 9f1e | 120 | HEALTHY |
| 2 | 0 | 9f1e | 118 | HEALTHY |
| 3 | 0 | 9f1e | 60 | WARNING (same error 3x) |

### Approaches Tried
1. [Iteration 1-3] Direct fix in auth.ts — TypeError persists
2. [Iteration 4] Rewrote the token parser -- same TypeError at auth.ts:41

## Final Result
- **Status:** circuit_break
- **Total Iterations:** 3
`,
			check: func(t *testing.T, l *Loop, diags []Diagnostic) {
				if len(diags) != 0 {
					t.Errorf("diags %v", diags)
				}
				if len(l.Iterations) != 3 || l.Iterations[2].State != "WARNING (same error 3x)" || l.Iterations[2].Health != "" || l.Iterations[1].FilesChanged != 0 {
					t.Errorf("iterations %+v", l.Iterations)
				}
				if l.Iterations[0].Timestamp != "" || l.Iterations[0].Line != 12 {
					t.Errorf("row 1 = %+v", l.Iterations[0])
				}
				want := []Approach{
					{Text: "Direct fix in auth.ts", Result: "TypeError persists", Iterations: "1-3", Source: "loop.md:17"},
					{Text: "Rewrote the token parser", Result: "same TypeError at auth.ts:41", Iterations: "4", Source: "loop.md:18"},
				}
				if !reflect.DeepEqual(l.Approaches, want) {
					t.Errorf("approaches\n got %+v\nwant %+v", l.Approaches, want)
				}
				if l.FinalStatus != "circuit_break" || l.Status != "circuit_break" || l.MaxIterations != 10 {
					t.Errorf("status %q final %q max %d", l.Status, l.FinalStatus, l.MaxIterations)
				}
			},
		},
		{
			name: "no front matter: id from the file name, status from Final Result",
			src: `## Loop Progress

| iter | TIMESTAMP | files changed | error hash | output lines | health | action |
|---|---|---|---|---|---|---|
| 1 | 10:00 | 3 files | - | 99 | PROGRESS | **Wrote** handler |
| two | 10:05 | 1 | - | 80 | PROGRESS | oops |

## Approaches Tried

- Bumped the pool size → still times out
- None

## Final Result

**Status:** completed
`,
			check: func(t *testing.T, l *Loop, diags []Diagnostic) {
				if l.ID != "20260101-000000" || l.Status != "completed" {
					t.Errorf("id %q status %q", l.ID, l.Status)
				}
				if len(l.Iterations) != 1 || l.Iterations[0].FilesChanged != 3 || l.Iterations[0].Action != "Wrote handler" || l.Iterations[0].Timestamp != "10:00" {
					t.Errorf("iterations %+v", l.Iterations)
				}
				if len(diags) != 1 || diags[0].Line != 6 || !strings.Contains(diags[0].Message, "iteration number") {
					t.Errorf("diags %v", diags)
				}
				if len(l.Approaches) != 1 || l.Approaches[0].Result != "still times out" {
					t.Errorf("approaches %+v", l.Approaches)
				}
			},
		},
		{
			name: "bad counters and circuit breaker give diagnostics, not panics",
			src: `---
id: x
max_iterations: many
circuit_breaker: [unclosed
---
# nothing else
`,
			check: func(t *testing.T, l *Loop, diags []Diagnostic) {
				if l.ID != "x" || l.MaxIterations != 0 || l.CircuitBreaker != nil {
					t.Errorf("loop %+v", l)
				}
				if len(diags) == 0 {
					t.Errorf("no diagnostics for max_iterations: many")
				}
				for _, d := range diags {
					if d.Path != "loop.md" || d.Line != 1 {
						t.Errorf("diagnostic without position: %+v", d)
					}
				}
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := "loop.md"
			if strings.HasPrefix(tt.name, "no front matter") {
				path = "loops/fire-loop-20260101-000000.md"
			}
			l, diags := parseLoop(path, markdown.Parse(path, []byte(tt.src)))
			if l == nil {
				t.Fatal("nil loop")
			}
			tt.check(t, l, diags)
		})
	}
}

func TestParseSnapshot(t *testing.T) {
	tests := []struct {
		name, path, src string
		want            Snapshot
		wantDiags       int
	}{
		{
			name: "published DO NOT SUMMARIZE block",
			path: "loops/sabbath-20260301-090000-stopped.md",
			src: `# Stop

## Preserved Stop Signals (DO NOT SUMMARIZE)
- ERROR: "panic: runtime error: index out of range [3] with length 3"
- BLOCKED: waiting for the staging database password
- FAILED ATTEMPTS: 2 — approaches: bounds check, resize slice
- CIRCUIT BREAKER: WARNING
- TRIED AND FAILED: bounds check, resize slice
`,
			want: Snapshot{
				Path: "loops/sabbath-20260301-090000-stopped.md", LoopID: "20260301-090000", Reason: "user_requested_stop",
				Signals: []Signal{
					{Label: "ERROR", Text: `"panic: runtime error: index out of range [3] with length 3"`, Source: "loops/sabbath-20260301-090000-stopped.md:4"},
					{Label: "BLOCKED", Text: "waiting for the staging database password", Source: "loops/sabbath-20260301-090000-stopped.md:5"},
					{Label: "FAILED ATTEMPTS", Text: "2 — approaches: bounds check, resize slice", Source: "loops/sabbath-20260301-090000-stopped.md:6"},
					{Label: "CIRCUIT BREAKER", Text: "WARNING", Source: "loops/sabbath-20260301-090000-stopped.md:7"},
					{Label: "TRIED AND FAILED", Text: "bounds check, resize slice", Source: "loops/sabbath-20260301-090000-stopped.md:8"},
				},
			},
		},
		{
			name: "front matter wins over the file name; unlabelled lines kept",
			path: "loops/sabbath-a-iter2.md",
			src: `---
loop_id: b
iteration: 5
reason: context_rot
---
### Preserved Stop Signals (v6.0 — JetBrains Compaction Safety)
<!-- NEVER summarize these — they must survive compaction verbatim -->
- ERRORS: none
- the cache key must include the tenant id
`,
			want: Snapshot{
				Path: "loops/sabbath-a-iter2.md", LoopID: "b", Iteration: 5, Reason: "context_rot",
				Signals: []Signal{
					{Label: "ERRORS", Text: "none", Source: "loops/sabbath-a-iter2.md:8"},
					{Label: "", Text: "the cache key must include the tenant id", Source: "loops/sabbath-a-iter2.md:9"},
				},
			},
		},
		{
			name:      "no signals section",
			path:      "loops/sabbath-c-iter1.md",
			src:       "# Snapshot\n\nnothing here\n",
			want:      Snapshot{Path: "loops/sabbath-c-iter1.md", LoopID: "c", Iteration: 1},
			wantDiags: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, diags := parseSnapshot(tt.path, markdown.Parse(tt.path, []byte(tt.src)))
			if !reflect.DeepEqual(*s, tt.want) {
				t.Errorf("\n got %+v\nwant %+v", *s, tt.want)
			}
			if len(diags) != tt.wantDiags {
				t.Errorf("diags %v, want %d", diags, tt.wantDiags)
			}
		})
	}
}

func TestParseActiveLoop(t *testing.T) {
	tests := []struct {
		name     string
		data     string
		id, file string
		iter     int
		diagLine []int
	}{
		{"documented schema", `{"id":"20260123-143052","loop_file":".planning/loops/fire-loop-20260123-143052.md","current_iteration":4,"max_iterations":50}`, "20260123-143052", ".planning/loops/fire-loop-20260123-143052.md", 4, nil},
		{"string counter and BOM", "\ufeff{\"id\": \"a\", \"current_iteration\": \"7\"}", "a", "", 7, nil},
		{"numeric id", `{"id": 20260123143052}`, "20260123143052", "", 0, nil},
		{"syntax error names its line", "{\n  \"id\": \"a\",\n  \"loop_file\": oops\n}", "", "", 0, []int{3}},
		{"wrong type", `{"loop_file": 5}`, "", "", 0, []int{1}},
		{"bad counter", "{\"id\":\"a\",\n\"current_iteration\":\"seven\"}", "a", "", 0, []int{2}},
		{"empty", ``, "", "", 0, []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, file, iter, diags := parseActiveLoop("loops/active-loop.json", []byte(tt.data))
			if id != tt.id || file != tt.file || iter != tt.iter {
				t.Errorf("got (%q, %q, %d), want (%q, %q, %d)", id, file, iter, tt.id, tt.file, tt.iter)
			}
			var lines []int
			for _, d := range diags {
				lines = append(lines, d.Line)
			}
			if !reflect.DeepEqual(lines, tt.diagLine) {
				t.Errorf("diagnostic lines %v (%v), want %v", lines, diags, tt.diagLine)
			}
		})
	}
}

func FuzzParseLoop(f *testing.F) {
	for _, p := range []string{"loops/fire-loop-20260123-143052.md", "loops/sabbath-20260123-143052-iter6.md"} {
		src, err := os.ReadFile(filepath.Join("..", "examples", "fire", ".planning", filepath.FromSlash(p)))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Add([]byte("## Loop Progress\n\n| Iter |\n|---|\n| x |\n"))
	f.Add([]byte("---\ncircuit_breaker:\n  error_hashes: [1, 2]\n---\n## Approaches Tried\n1. [Iteration ] —\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		doc := markdown.Parse("loops/fire-loop-x.md", src)
		l, _ := parseLoop("loops/fire-loop-x.md", doc)
		if l == nil {
			t.Fatal("nil loop")
		}
		s, _ := parseSnapshot("loops/sabbath-x-iter1.md", doc)
		if s == nil {
			t.Fatal("nil snapshot")
		}
		parseActiveLoop("loops/active-loop.json", src)
	})
}

// BenchmarkParseLoop measures parseLoop (markdown parse included) on the
// fire example's loop file.
func BenchmarkParseLoop(b *testing.B) {
	p := "loops/fire-loop-20260123-143052.md"
	src, err := os.ReadFile(filepath.Join("..", "examples", "fire", ".planning", filepath.FromSlash(p)))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		parseLoop(p, markdown.Parse(p, src))
	}
}

package claudecode_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine"
	"github.com/recite-dev/recite/engine/claudecode"
	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/internal/sharedtest"
)

// statusInput is a statusLine input as Claude Code documents it
// (https://code.claude.com/docs/en/statusline, "Available data"), {{DIR}}
// the project.
const statusInput = `{"hook_event_name":"Status","session_id":"abc123","transcript_path":"{{DIR}}/t.jsonl","cwd":"{{DIR}}",` +
	`"model":{"id":"claude-opus-4-1","display_name":"Opus"},"workspace":{"current_dir":"{{DIR}}","project_dir":"{{DIR}}"},` +
	`"version":"1.0.80","output_style":{"name":"default"},"cost":{"total_cost_usd":0.01234,"total_duration_ms":45000,"total_api_duration_ms":2300,"total_lines_added":156,"total_lines_removed":23},` +
	`"context_window":{"total_input_tokens":15234,"total_output_tokens":4521,"context_window_size":200000,"used_percentage":74,"remaining_percentage":26,` +
	`"current_usage":{"input_tokens":8500,"output_tokens":1200,"cache_creation_input_tokens":5000,"cache_read_input_tokens":2000}},"exceeds_200k_tokens":false}`

func openEngine(dir string) claudecode.Engine { return engine.ClaudeEngine(dir) }

func statusLine(t testing.TB, dir, input string) string {
	t.Helper()
	line, err := engine.StatusLine(context.Background(), engine.StatusLineOptions{}, strings.NewReader(strings.ReplaceAll(input, "{{DIR}}", dir)))
	if err != nil {
		t.Fatal(err)
	}
	return line
}

// TestStatusLine: the line of the fire example with a real statusLine
// input, then after the planning files changed, and without the context
// window's use.
func TestStatusLine(t *testing.T) {
	dir := enginetest.HookProject(t)
	got := statusLine(t, dir, statusInput)
	// As `recite status` reports the example: phase 2 of 3, 0 of its 2
	// plans done, BLOCKED and TRIPPED, 14 open stop signals.
	want := "phase 2/3 Stripe Sync (executing), plans 0/2 · plan 2-01 0/3 tasks · context ███████░░░ 74% of 200k warning · BLOCKED, breaker TRIPPED · 14 open stop signals"
	if got != want {
		t.Errorf("status line\n got %q\nwant %q", got, want)
	}
	if _, err := os.Stat(filepath.Join(dir, claudecode.StatusSummaryFile)); err != nil {
		t.Errorf("the computed summary was not written: %v", err)
	}
	// No context use: no bar.
	if got := statusLine(t, dir, `{"cwd":"{{DIR}}"}`); strings.Contains(got, "context") {
		t.Errorf("a bar without the window's use: %q", got)
	}
	// The planning tree changed: the summary is computed again.
	p := filepath.Join(dir, ".planning", "BLOCKERS.md")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if err := os.WriteFile(p, append(b, "\n### BLOCKER-009 [P1] Another blocker\n\n**Status:** open\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	s, err := claudecode.ProjectStatus(context.Background(), dir, openEngine(dir))
	if err != nil || !s.Computed {
		t.Fatalf("ProjectStatus after a change: computed %v, %v", s != nil && s.Computed, err)
	}
}

// TestStatusSummaryReused: a current summary is read, not computed; one
// of another fingerprint or version is computed again.
func TestStatusSummaryReused(t *testing.T) {
	dir := enginetest.HookProject(t)
	e := openEngine(dir)
	if err := claudecode.RecordStatus(context.Background(), dir, e); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, claudecode.StatusSummaryFile)
	// The summary must be younger than the planning files by more than
	// the racy span: date it an hour ahead.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	s, err := claudecode.ProjectStatus(context.Background(), dir, e)
	if err != nil || s.Computed {
		t.Fatalf("a current summary was computed again (%v)", err)
	}
	var raw map[string]any
	b, _ := os.ReadFile(p)
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	raw["fingerprint"] = "0000"
	b, _ = json.Marshal(raw)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	if s, err := claudecode.ProjectStatus(context.Background(), dir, e); err != nil || !s.Computed {
		t.Fatalf("a summary of another fingerprint was read (%v)", err)
	}
}

// TestFormatStatusLine: the parts of the line, table-driven.
func TestFormatStatusLine(t *testing.T) {
	pct := func(f float64) *float64 { return &f }
	base := &claudecode.StatusSummary{Phase: &claudecode.StatusPhase{Number: "3", Of: 5, Name: "API", PlansDone: 1, Plans: 2}, Plan: &claudecode.StatusPlan{ID: "03-02", TasksDone: 2, Tasks: 4}}
	for _, tc := range []struct {
		name string
		in   claudecode.StatusInput
		s    claudecode.StatusSummary
		want string
	}{
		{name: "no window", s: *base, want: "phase 3/5 API, plans 1/2 · plan 03-02 2/4 tasks · no open stop signals"},
		{name: "used_percentage", in: claudecode.StatusInput{ContextWindow: &claudecode.StatusContextWindow{Size: 1000000, UsedPercentage: pct(12)}}, s: *base,
			want: "phase 3/5 API, plans 1/2 · plan 03-02 2/4 tasks · context █░░░░░░░░░ 12% of 1M · no open stop signals"},
		{name: "critical", in: claudecode.StatusInput{ContextWindow: &claudecode.StatusContextWindow{UsedPercentage: pct(91)}}, s: claudecode.StatusSummary{Signals: 1, Health: "SPINNING", Breaker: "WARNING", Iterations: 4},
			want: "no current phase · context █████████░ 91% critical · SPINNING, breaker WARNING · 1 open stop signal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := claudecode.FormatStatusLine(tc.in, &tc.s); got != tc.want {
				t.Errorf("\n got %q\nwant %q", got, tc.want)
			}
		})
	}
	// current_usage without used_percentage: the input tokens over the
	// window (8500+5000+2000 of 200000 = 7.75%).
	var in claudecode.StatusInput
	if err := json.Unmarshal([]byte(`{"context_window":{"context_window_size":200000,"current_usage":{"input_tokens":8500,"output_tokens":1200,"cache_creation_input_tokens":5000,"cache_read_input_tokens":2000}}}`), &in); err != nil {
		t.Fatal(err)
	}
	if used, ok := in.ContextWindow.Used(); !ok || used != 0.0775 {
		t.Errorf("used %v %v, want 0.0775", used, ok)
	}
}

// TestParseStatusInput: empty input is no session; broken JSON is an
// error with its line and column.
func TestParseStatusInput(t *testing.T) {
	if si, err := claudecode.ParseStatusInput(strings.NewReader(" \n")); err != nil || si.ContextWindow != nil {
		t.Errorf("empty input: %+v, %v", si, err)
	}
	_, err := claudecode.ParseStatusInput(strings.NewReader("{\n\"cwd\": 3,\n"))
	if err == nil || !strings.HasPrefix(err.Error(), "statusLine input:") {
		t.Errorf("error %v", err)
	}
	_, err = claudecode.ParseStatusInput(strings.NewReader("{\n\"cwd\": }"))
	if err == nil || !strings.HasPrefix(err.Error(), "statusLine input:2:") {
		t.Errorf("error %v, want statusLine input:2:…", err)
	}
}

// BenchmarkStatusline is `recite statusline` on a project whose summary
// is current (what build, watch and the hook leave): the target is well
// under 50 ms an invocation (Claude Code runs it after each message).
// The sub-benchmark computed is the worst case, the summary out of date
// and computed by a new engine (no parse cache), as a new process does.
func BenchmarkStatusline(b *testing.B) {
	for _, name := range []string{"fire", "gsd"} {
		dir := enginetest.CopyTree(b, filepath.Join(sharedtest.ModuleRoot(), "examples", name))
		e := openEngine(dir)
		if err := claudecode.RecordStatus(context.Background(), dir, e); err != nil {
			b.Fatal(err)
		}
		later := time.Now().Add(time.Hour)
		if err := os.Chtimes(filepath.Join(dir, claudecode.StatusSummaryFile), later, later); err != nil {
			b.Fatal(err)
		}
		input := strings.ReplaceAll(statusInput, "{{DIR}}", dir)
		b.Run(name+"/current", func(b *testing.B) {
			for b.Loop() {
				if _, err := engine.StatusLine(context.Background(), engine.StatusLineOptions{}, strings.NewReader(input)); err != nil {
					b.Fatal(err)
				}
			}
		})
		if err := os.Remove(filepath.Join(dir, claudecode.StatusSummaryFile)); err != nil {
			b.Fatal(err)
		}
		b.Run(name+"/computed", func(b *testing.B) {
			for b.Loop() {
				if _, err := claudecode.StatusLine(context.Background(), claudecode.StatusLineOptions{}, func(dir string) claudecode.Engine { return noWrite{engine.ClaudeEngine(dir)} }, strings.NewReader(input)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// noWrite is an Engine whose cache folder cannot be made, so the status
// line computes the summary at every call (it is never written back).
type noWrite struct{ claudecode.Engine }

func (noWrite) EnsureDirs() error { return os.ErrPermission }

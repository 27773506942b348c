package engine

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/internal/sharedtest"
)

// planningRacyWindow is planning's racyWindow: a file modified within it
// of being read is read again on the next build.
const planningRacyWindow = 100 * time.Millisecond

// edit is one typical change a user or an agent makes to a planning tree.
type edit struct {
	name  string
	apply func(dir string, i int) error
}

func appendTo(dir, rel, text string) error {
	f, err := os.OpenFile(filepath.Join(dir, rel), os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	_, err = f.WriteString(text)
	return err
}

func replaceIn(dir, rel, old, new string) error {
	p := filepath.Join(dir, rel)
	b, err := os.ReadFile(p)
	if err != nil {
		return err
	}
	s := string(b)
	if !strings.Contains(s, old) {
		return fmt.Errorf("%s: %q not found", rel, old)
	}
	return os.WriteFile(p, []byte(strings.Replace(s, old, new, 1)), 0o644)
}

// typicalEdits cycles through the four edits of the issue: tick a checkbox,
// add a decision, change the status, record an error.
func typicalEdits() []edit {
	return []edit{
		{"tick a checkbox", func(dir string, i int) error {
			return appendTo(dir, ".planning/todos.md", fmt.Sprintf("- [x] follow-up %d\n", i))
		}},
		{"add a decision", func(dir string, i int) error {
			return replaceIn(dir, ".planning/STATE.md", "### Decisions\n", fmt.Sprintf("### Decisions\n\n- [Phase 2]: decision number %d, made while replaying\n", i))
		}},
		{"change the status", func(dir string, i int) error {
			return replaceIn(dir, ".planning/STATE.md", "Last activity: ", fmt.Sprintf("Last activity: edit %d; ", i))
		}},
		{"record an error", func(dir string, i int) error {
			return appendTo(dir, PreservedFile, fmt.Sprintf("\n## Context Preservation Block (auto-generated)\ntrigger: manual\n\n### Errors (verbatim, do NOT paraphrase)\n\n```\n--- FAIL: TestRedirect (0.0%ds)\n    handler_test.go:41: got 404, want 302\n```\n", i))
		}},
	}
}

// naiveConcat is what a prompt looks like without recite: the system file,
// then every planning file in file order, then the history.
func naiveConcat(t testing.TB, dir string) []byte {
	var b strings.Builder
	if s, err := os.ReadFile(filepath.Join(dir, "AGENTS.md")); err == nil {
		b.Write(s)
	}
	var files []string
	filepath.WalkDir(filepath.Join(dir, ".planning"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && !strings.Contains(p, "/prompts/") && !strings.Contains(p, "/.recite/") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	for _, f := range files {
		s, _ := os.ReadFile(f)
		b.WriteString("\n\n# " + f[len(dir):] + "\n\n")
		b.Write(s)
	}
	return []byte(b.String())
}

// replay applies n typical edits, rebuilding after each, and returns the
// mean fraction of the anthropic body (and of the naive concatenation) that
// is an unchanged byte prefix of the previous one.
func replay(t testing.TB, n int) (recite, naive float64) {
	dir := copyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	os.WriteFile(filepath.Join(dir, ".planning", "todos.md"), []byte("# Todos\n\n"), 0o644)
	e := New(dir)
	if _, err := e.Build(context.Background()); err != nil {
		t.Fatal(err)
	}
	body := filepath.Join(dir, PromptsDir, "agent.anthropic.json")
	prev, _ := os.ReadFile(body)
	prevNaive := naiveConcat(t, dir)
	edits := typicalEdits()
	for i := 0; i < n; i++ {
		if err := edits[i%len(edits)].apply(dir, i); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Build(context.Background()); err != nil {
			t.Fatal(err)
		}
		cur, _ := os.ReadFile(body)
		recite += float64(commonPrefix(prev, cur)) / float64(len(cur))
		curNaive := naiveConcat(t, dir)
		naive += float64(commonPrefix(prevNaive, curNaive)) / float64(len(curNaive))
		prev, prevNaive = cur, curNaive
	}
	return recite / float64(n), naive / float64(n)
}

// TestCacheStability replays 30 typical edits: the mean unchanged byte
// prefix of consecutive anthropic bodies must be at least 0.90 (issue
// "recite build", measures). Naive concatenation is measured in the same
// run for comparison.
func TestCacheStability(t *testing.T) {
	r, naive := replay(t, 30)
	t.Logf("mean unchanged prefix over 30 edits: recite anthropic %.3f, naive concatenation %.3f", r, naive)
	if r < 0.90 {
		t.Errorf("mean stable prefix %.3f, want >= 0.90", r)
	}
}

func BenchmarkCacheStability(b *testing.B) {
	var r, naive float64
	for b.Loop() {
		r, naive = replay(b, 30)
	}
	b.ReportMetric(r, "prefix-recite")
	b.ReportMetric(naive, "prefix-naive")
}

// BenchmarkBuildCold is a first build of the largest real tree (norish,
// 3.2 MB, 42 phases) by a fresh Engine (no planning cache, no token counts,
// no redactions kept): parse, assemble, count, render, write. The tokenizer
// codec is loaded once per process and is not part of the figure.
func BenchmarkBuildCold(b *testing.B) {
	src := filepath.Join(sharedtest.Dir(b), "realdata", "23492__norish")
	var cpu time.Duration
	for b.Loop() {
		b.StopTimer()
		dir := copyTree(b, src)
		b.StartTimer()
		c0 := cpuTime()
		if _, err := New(dir).Build(context.Background()); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// BenchmarkBuildWarm rebuilds norish after one line of STATE.md changed,
// with the engine (its planning cache, token counts and redactions) kept,
// as `recite watch` does. The figure of the issue is its ns/op over
// BenchmarkBuildCold's (target ≤ 0.10); a fresh process pays the tokenizer
// codec on top of the cold figure (see the report of issue "recite build").
func BenchmarkBuildWarm(b *testing.B) {
	dir := copyTree(b, filepath.Join(sharedtest.Dir(b), "realdata", "23492__norish"))
	// The copy's files were all written just now; in a real tree they are
	// older than the planning cache's racy window, past which an unchanged
	// stat is trusted without reading the file.
	time.Sleep(3 * planningRacyWindow)
	e := New(dir)
	if _, err := e.Build(context.Background()); err != nil {
		b.Fatal(err)
	}
	state := filepath.Join(dir, ".planning", "STATE.md")
	orig, _ := os.ReadFile(state)
	i := 0
	var cpu time.Duration
	for b.Loop() {
		i++
		// The edit is not the rebuild: write it off the clock.
		b.StopTimer()
		os.WriteFile(state, []byte(strings.Replace(string(orig), "Last activity:", fmt.Sprintf("Last activity: (%d)", i), 1)), 0o644)
		b.StartTimer()
		c0 := cpuTime()
		if _, err := e.Build(context.Background()); err != nil {
			b.Fatal(err)
		}
		cpu += cpuTime() - c0
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
}

package planning

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/markdown"
)

// seedFiles adds the example projects' files of one kind to a fuzz corpus,
// plus the inline fixtures.
func seedFiles(f *testing.F, names ...string) {
	f.Helper()
	root := sharedtest.ModuleRoot()
	for _, ex := range []string{"gsd", "fire"} {
		for _, n := range names {
			matches, _ := filepath.Glob(filepath.Join(root, "examples", ex, ".planning", n))
			for _, m := range matches {
				if b, err := os.ReadFile(m); err == nil {
					f.Add(b)
				}
			}
		}
	}
}

// FuzzParseRoadmap: no roadmap makes parseRoadmap panic, and every phase it
// returns has a non-empty number.
func FuzzParseRoadmap(f *testing.F) {
	seedFiles(f, "ROADMAP.md", "VISION.md")
	f.Add([]byte(roadmapFixture))
	f.Add([]byte("- [x] **Phase 08: A** - x\n### Phase 3.5d: B\n| # | Phase | Status |\n|--|--|--|\n| 9a | C | Complete |\n<details>\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		doc := markdown.Parse("ROADMAP.md", src)
		for _, p := range parseRoadmap("ROADMAP.md", doc) {
			if p.number == "" {
				t.Fatalf("phase with an empty number: %+v", p)
			}
		}
	})
}

// FuzzParseState: no state file makes parseState or statePhaseNumber panic.
func FuzzParseState(f *testing.F) {
	seedFiles(f, "STATE.md", "CONSCIENCE.md")
	f.Add([]byte("---\ncurrent_phase: 3\n---\n## Current Position\nPhase: **27.2 — x**\n| **Status** | done |\n"))
	f.Add([]byte("## Current Phase\nPhase 1: Test\n## Decisions\n- [Phase 1]: d\n```\n- x\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		doc := markdown.Parse("STATE.md", src)
		st, _, _ := parseState("STATE.md", doc)
		if st == nil {
			t.Fatal("nil state")
		}
		_ = statePhaseNumber(st.Phase)
	})
}

// FuzzParseTasks: no plan makes parsePlan panic; every task has a text and a
// known state.
func FuzzParseTasks(f *testing.F) {
	seedFiles(f, "phases/*/*-PLAN.md", "phases/*/*-BLUEPRINT.md")
	f.Add([]byte("<task type=\"auto\"><name>A</name><files>a, b</files></task>\n- [ ] x\n"))
	f.Add([]byte("<task id=\"1\">\n**Action:** Do\n</task>\n<task>\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		doc := markdown.Parse("phases/01-a/01-01-PLAN.md", src)
		for _, done := range []bool{false, true} {
			p := &Plan{Path: "phases/01-a/01-01-PLAN.md", Done: done}
			parsePlan(p, doc)
			for _, tk := range p.Tasks {
				if tk.Text == "" && len(doc.Tasks) > 0 {
					t.Fatalf("task block without text: %+v", tk)
				}
				switch tk.State {
				case TaskTodo, TaskDone, TaskInProgress, TaskSkipped:
				default:
					t.Fatalf("unknown task state %q", tk.State)
				}
			}
		}
	})
}

// BenchmarkLoad loads the largest real tree (norish: 168 files, 3.6 MB, a
// 340 KB STATE.md) and, for the linearity check, a smaller one (AutoFiller:
// 55 files, 324 KB).
func BenchmarkLoad(b *testing.B) {
	trees := realdataTrees(b)
	for _, name := range []string{"23492__norish", "01MASTERS__AutoFiller"} {
		dir, ok := trees[name]
		if !ok {
			b.Skipf("realdata tree %s absent", name)
		}
		b.Run(name, func(b *testing.B) {
			fsys := os.DirFS(dir)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Load(fsys); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// FuzzParseHandoff: no HANDOFF.json makes parseHandoff panic; a file it
// does not read is exactly one diagnostic; every line it names lies in the
// file; every blocker it returns is open or resolved, with a title and its
// source.
func FuzzParseHandoff(f *testing.F) {
	f.Add([]byte(handoffFixture))
	f.Add([]byte(`{"version":"1.0","timestamp":"2026-06-11T03:59:27.329Z","source":"auto-postool","partial":true,"phase":null,"plan":null,"status":"auto-checkpoint","completed_tasks":[],"remaining_tasks":[],"blockers":[],"human_actions_pending":[],"decisions":[],"uncommitted_files":[],"next_action":null,"context_notes":""}`))
	f.Add([]byte("{\n  \"phase\": \"01\"\n  \"next_action\": \"x\"\n}\n"))
	f.Add([]byte(`{"blockers": "none", "remaining_tasks": [1, "a", {"name": 2}], "decisions": [[]], "plan": {"a": 1}}`))
	f.Add([]byte(`[1, 2]`))
	f.Add([]byte(`{"a": [[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]}`))
	f.Add([]byte("{} trailing"))
	f.Fuzz(func(t *testing.T, src []byte) {
		lines := lineOf(src, len(src))
		h, blockers, decisions, diags := parseHandoff("HANDOFF.json", src)
		if h == nil && len(diags) != 1 {
			t.Fatalf("not read, with %d diagnostics: %v", len(diags), diags)
		}
		for _, d := range diags {
			if d.Line < 1 || d.Line > lines {
				t.Fatalf("diagnostic at line %d of %d: %v", d.Line, lines, d)
			}
		}
		if h == nil && (len(blockers) > 0 || len(decisions) > 0) {
			t.Fatalf("blockers or decisions from a file not read")
		}
		for _, b := range blockers {
			if b.Title == "" || b.Source == "" || (b.Status != BlockerOpen && b.Status != BlockerResolved) {
				t.Fatalf("blocker %+v", b)
			}
		}
		if h != nil {
			for _, tk := range h.Tasks {
				if tk.Name == "" || tk.Line < 1 || tk.Line > lines {
					t.Fatalf("task %+v of a %d-line file", tk, lines)
				}
			}
			if h.NextAction != "" && (h.NextActionLine < 1 || h.NextActionLine > lines) {
				t.Fatalf("next action at line %d of %d", h.NextActionLine, lines)
			}
		}
	})
}

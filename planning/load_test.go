package planning

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/markdown"
)

// writeTree writes files (slash paths → content) under a new temp dir and
// returns it.
func writeTree(t testing.TB, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func load(t testing.TB, dir string) *Project {
	t.Helper()
	p, err := Load(os.DirFS(dir))
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return p
}

func hasDiag(p *Project, path, substr string) bool {
	for _, d := range p.Diagnostics {
		if d.Path == path && strings.Contains(d.Message, substr) {
			return true
		}
	}
	return false
}

func TestNormalizePhase(t *testing.T) {
	tests := []struct{ in, want string }{
		{"08", "8"}, {"8", "8"}, {"00", "0"}, {"0", "0"}, {"15.1", "15.1"}, {"015.1", "15.1"},
		{"3.5d", "3.5d"}, {"3.5D", "3.5d"}, {"9a", "9a"}, {"01-foundation", "1"},
		{"27.1-import-reliability", "27.1"}, {"1a-gaps", "1a"}, {"M-1", ""}, {"", ""}, {"phase", ""},
	}
	for _, tt := range tests {
		if got := NormalizePhase(tt.in); got != tt.want {
			t.Errorf("NormalizePhase(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNormalizePhaseID(t *testing.T) {
	tests := []struct{ in, want string }{
		{"08", "8"}, {"15.1", "15.1"}, {"3.5d", "3.5d"}, {"9A", "9a"}, {"1a-gaps", "1a-gaps"},
		{"2b-gaps-3", "2b-gaps-3"}, {"2-PM-update", "2-pm-update"}, {"3prelim", "3prelim"},
		{"007", "7"}, {"GP3", ""}, {"", ""}, {".5", ""},
	}
	for _, tt := range tests {
		if got := normalizePhaseID(tt.in); got != tt.want {
			t.Errorf("normalizePhaseID(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestComparePhase(t *testing.T) {
	ordered := []string{"0", "1", "1a", "2", "2.1", "2.10", "3.5d", "9", "9a", "10", "27", "27.1", "27.6", "28"}
	for i := 0; i+1 < len(ordered); i++ {
		if c := comparePhase(ordered[i], ordered[i+1]); c >= 0 {
			t.Errorf("comparePhase(%q, %q) = %d, want < 0", ordered[i], ordered[i+1], c)
		}
		if c := comparePhase(ordered[i+1], ordered[i]); c <= 0 {
			t.Errorf("comparePhase(%q, %q) = %d, want > 0", ordered[i+1], ordered[i], c)
		}
	}
}

func TestClassifyPhaseFile(t *testing.T) {
	tests := []struct {
		name string
		kind planKind
		key  string
	}{
		{"01-01-PLAN.md", kindPlan, "01-01"},
		{"01-01-SUMMARY.md", kindSummary, "01-01"},
		{"15.1-01-PLAN.md", kindPlan, "15.1-01"},
		{"01-PLAN.md", kindPlan, "01"},
		{"06-GAP-PLAN.md", kindPlan, "06-gap"},
		{"03-02-uat-PLAN.md", kindPlan, "03-02-uat"},
		{"SHARE-01-PLAN.md", kindPlan, "share-01"},
		{"PLAN.md", kindPlan, ""},
		{"SUMMARY.md", kindSummary, ""},
		{"PLAN-01-setup.md", kindPlan, "#01"},
		{"SUMMARY-01-setup.md", kindSummary, "#01"},
		{"2-PLAN-03-api.md", kindPlan, "#03"},
		{"1-01-BLUEPRINT.md", kindPlan, "1-01"},
		{"1-01.BLUEPRINT.md", kindPlan, "1-01"},
		{"1-01-RECORD.md", kindSummary, "1-01"},
		{"PLANNING.md", kindOther, ""},
		{"PLANS.md", kindOther, ""},
		{"01-02-OUTLINE.md", kindOther, ""},
		{"01-02-PLAN.pre-bounce.md", kindOther, ""},
		{"01-CONTEXT.md", kindOther, ""},
		{"01-01-PLAN.txt", kindOther, ""},
	}
	for _, tt := range tests {
		kind, key := classifyPhaseFile(tt.name)
		if kind != tt.kind || key != tt.key {
			t.Errorf("classifyPhaseFile(%q) = %v, %q; want %v, %q", tt.name, kind, key, tt.kind, tt.key)
		}
	}
}

func TestNormalizeStatus(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Paused at 03-02", "paused"},
		{"stopped", "paused"},
		{"Execution in progress", "executing"},
		{"in-progress", "executing"},
		{"in_progress", "executing"},
		{"Ready to execute", "executing"},
		{"Ready to plan", "planning"},
		{"planning", "planning"},
		{"Discussing phase 3", "discussing"},
		{"Verifying", "verifying"},
		{"Phase 11 complete — shipped", "completed"},
		{"v1.0 milestone complete, archived", "completed"},
		{"ready_for_completion", "ready_for_completion"},
		{"Defining requirements", "Defining requirements"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := normalizeStatus(tt.in); got != tt.want {
			t.Errorf("normalizeStatus(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestStatePhaseNumber(t *testing.T) {
	tests := []struct{ in, want string }{
		{"13 of 42 (Name) — EXECUTING", "13"},
		{"**27.2 — Imports actually work**", "27.2"},
		{"03 (timeline-and-reliability) -- READY FOR COMPLETION  ", "3"},
		{"Phase 1: Foundation", "1"},
		{"11 — Systematic Event & Error Logging", "11"},
		{"2b-gaps-3", "2b-gaps-3"},
		{"None (between milestones)", ""},
		{"Not started (defining requirements)", ""},
		{"—", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := statePhaseNumber(tt.in); got != tt.want {
			t.Errorf("statePhaseNumber(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestDetectFlavor(t *testing.T) {
	tests := []struct {
		name  string
		files []string
		want  Flavor
	}{
		{"empty", nil, FlavorNone},
		{"gsd", []string{"STATE.md", "ROADMAP.md", "phases/01-a/01-01-PLAN.md"}, FlavorGSD},
		{"fire", []string{"CONSCIENCE.md", "VISION.md"}, FlavorFire},
		{"fire blueprint", []string{"ROADMAP.md", "phases/1-a/1-01-BLUEPRINT.md"}, FlavorFire},
		{"mixed", []string{"STATE.md", "loops/fire-loop-1.md"}, FlavorMixed},
		{"only blockers", []string{"BLOCKERS.md"}, FlavorFire},
		{"root blueprint spec", []string{"BLUEPRINT.md", "config.json"}, FlavorNone},
		{"state with vision", []string{"STATE.md", "VISION.md", "ROADMAP.md"}, FlavorGSD},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ws []walked
			for _, f := range tt.files {
				ws = append(ws, walked{path: f, lpath: f, role: fileRole(f)})
			}
			if got := detectFlavor(ws); got != tt.want {
				t.Errorf("detectFlavor(%v) = %q, want %q", tt.files, got, tt.want)
			}
		})
	}
}

const roadmapFixture = `# Roadmap

## Phases

- [x] **Phase 1: Foundation** - set up
- [~] **Phase 2: API — v1** - code complete, verify pending
- [ ] **Phase 2.1: Rate limits (INSERTED)** - urgent
- [ ] **Phase 3: Reports** - later

<details>
<summary>v0 archive</summary>

- [x] Phase 0: Spike (1/1 plans) — completed 2026-01-02

</details>

## Phase Details

### Phase 1: Foundation
**Goal**: A store

### Phase 3: Reports
**Goal:** Reports page

## Progress

| Phase | Plans Complete | Status | Completed |
|---|---|---|---|
| 3. Reports | 0/1 | Deferred | - |
`

func TestParseRoadmap(t *testing.T) {
	doc := markdown.Parse("ROADMAP.md", []byte(roadmapFixture))
	got := parseRoadmap("ROADMAP.md", doc)
	want := []roadmapPhase{
		{number: "1", name: "Foundation", goal: "A store", status: StatusComplete, line: 5},
		{number: "2", name: "API — v1", status: StatusInProgress, line: 6},
		{number: "2.1", name: "Rate limits", line: 7},
		{number: "3", name: "Reports", goal: "Reports page", status: StatusDeferred, line: 8},
		{number: "0", name: "Spike", status: StatusComplete, line: 13, archived: true},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d phases %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("phase %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// TestCurrentPosition checks the current-position rule on small trees.
func TestCurrentPosition(t *testing.T) {
	const roadmap = "# Roadmap\n\n- [x] **Phase 1: One** - a\n- [ ] **Phase 2: Two** - b\n- [ ] **Phase 3: Three** - c\n"
	plan := func(tasks ...string) string {
		return "---\nphase: x\nplan: 1\n---\n# Plan\n\n<tasks>\n" + strings.Join(tasks, "\n") + "\n</tasks>\n"
	}
	tests := []struct {
		name      string
		files     map[string]string
		wantPhase string // "" = none
		wantPlan  string
		wantTask  string
	}{
		{
			name: "front matter wins over body",
			files: map[string]string{
				"ROADMAP.md": roadmap,
				"STATE.md":   "---\ncurrent_phase: 3\n---\n# State\n\n## Current Position\n\nPhase: 2 of 3\n",
			},
			wantPhase: "3",
		},
		{
			name: "position section scoped, not session log",
			files: map[string]string{
				"ROADMAP.md":                     roadmap,
				"STATE.md":                       "# State\n\n## Session log\n\nPhase: 1 — old prose\n\n## Current Position\n\nPhase: **2 — Two (NEXT)**\nPlan: 02-02\n",
				"phases/02-two/02-01-PLAN.md":    plan(`<task type="auto"><name>First</name></task>`),
				"phases/02-two/02-01-SUMMARY.md": "# done\n",
				"phases/02-two/02-02-PLAN.md":    plan(`<task type="auto"><name>Wire it</name><files>a.go, b.go</files><action>Do</action><verify>go test</verify><done>ok</done></task>`, `<task type="auto"><name>Second</name></task>`),
			},
			wantPhase: "2", wantPlan: "phases/02-two/02-02-PLAN.md", wantTask: "Wire it",
		},
		{
			name: "None falls back to first unchecked roadmap phase",
			files: map[string]string{
				"ROADMAP.md":                  roadmap,
				"STATE.md":                    "# State\n\n## Current Position\n\nPhase: None\n",
				"phases/02-two/02-01-PLAN.md": "# Plan\n\n- [x] done thing\n- [-] skipped thing\n- [ ] open thing\n\n```\n- [ ] in code\n```\n",
			},
			wantPhase: "2", wantPlan: "phases/02-two/02-01-PLAN.md", wantTask: "open thing",
		},
		{
			// The state says the milestone is over: no current phase, even
			// with an open phase in the roadmap (docs/formats.md#finished-milestones).
			name: "between milestones names no current phase",
			files: map[string]string{
				"ROADMAP.md":                  roadmap,
				"STATE.md":                    "# State\n\n## Current Position\n\nPhase: None (between milestones)\n",
				"phases/02-two/02-01-PLAN.md": "# Plan\n\n- [ ] open thing\n",
			},
		},
		{
			name: "key/value table",
			files: map[string]string{
				"ROADMAP.md": roadmap,
				"STATE.md":   "# State\n\n## Current State\n\n| Field | Value |\n|---|---|\n| **Current Phase** | 3 — Three |\n| **Status** | Phase 3 complete |\n",
			},
			wantPhase: "3",
		},
		{
			name: "no state, all plans done on disk",
			files: map[string]string{
				"phases/01-one/01-01-PLAN.md":    plan(),
				"phases/01-one/01-01-SUMMARY.md": "# s\n",
			},
		},
		{
			name: "fire blueprint and record",
			files: map[string]string{
				"CONSCIENCE.md":                "# Project State\n\n## Current Position\n- **Phase:** 1 of 1\n",
				"phases/1-a/1-01-BLUEPRINT.md": "# p\n",
				"phases/1-a/1-01-RECORD.md":    "# r\n",
				"phases/1-a/1-02-BLUEPRINT.md": "# p\n\n<task id=\"1\" type=\"auto\">\n**Action:** Build the thing\n**Verification:** run it\n</task>\n",
			},
			wantPhase: "1", wantPlan: "phases/1-a/1-02-BLUEPRINT.md", wantTask: "Build the thing",
		},
		{
			name: "PLANNING.md is not a plan",
			files: map[string]string{
				"ROADMAP.md":                roadmap,
				"phases/02-two/PLANNING.md": "# notes\n\n- [ ] not a task\n",
			},
			wantPhase: "2",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := load(t, writeTree(t, tt.files))
			var phase, plan, task string
			if p.CurrentPhase != nil {
				phase = p.CurrentPhase.Number
			}
			if p.CurrentPlan != nil {
				plan = p.CurrentPlan.Path
			}
			if p.NextTask != nil {
				task = p.NextTask.Text
			}
			if phase != tt.wantPhase || plan != tt.wantPlan || task != tt.wantTask {
				t.Errorf("position = (%q, %q, %q), want (%q, %q, %q); diagnostics %v",
					phase, plan, task, tt.wantPhase, tt.wantPlan, tt.wantTask, p.Diagnostics)
			}
		})
	}
}

func TestGSDTaskFields(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"phases/01-a/01-01-PLAN.md": "---\nfiles_modified: [a.go, b.go]\ntype: tdd\n---\n# Plan\n\n<objective>\nMake it work.\n</objective>\n\n<tasks>\n<task type=\"auto\" tdd=\"true\">\n  <name>Task 1: Store</name>\n  <files>store.go, store_test.go</files>\n  <action>Write it</action>\n  <verify>go test ./...</verify>\n  <done>Tests pass</done>\n</task>\n</tasks>\n",
	})
	p := load(t, dir)
	if len(p.Phases) != 1 || len(p.Phases[0].Plans) != 1 {
		t.Fatalf("phases = %+v", p.Phases)
	}
	pl := p.Phases[0].Plans[0]
	if pl.Objective != "Make it work." || pl.Type != "tdd" || strings.Join(pl.FilesModified, ",") != "a.go,b.go" {
		t.Errorf("plan = objective %q type %q files %v", pl.Objective, pl.Type, pl.FilesModified)
	}
	if len(pl.Tasks) != 1 {
		t.Fatalf("tasks = %+v", pl.Tasks)
	}
	tk := pl.Tasks[0]
	if tk.Text != "Task 1: Store" || strings.Join(tk.Files, ",") != "store.go,store_test.go" ||
		tk.Action != "Write it" || tk.Verify != "go test ./..." || tk.Done != "Tests pass" ||
		tk.Attrs["tdd"] != "true" || tk.State != TaskTodo {
		t.Errorf("task = %+v", tk)
	}
}

// TestLoadBadInput feeds broken trees: Load must return a project and
// diagnostics, never an error or a panic.
func TestLoadBadInput(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		diagPath string // a diagnostic expected on this path ("" = none needed)
		diagText string
		check    func(t *testing.T, p *Project)
	}{
		{name: "empty tree", files: map[string]string{}, check: func(t *testing.T, p *Project) {
			if p.Flavor != FlavorNone || len(p.Phases) != 0 || p.CurrentPhase != nil {
				t.Errorf("empty tree = %+v", p)
			}
		}},
		{name: "invalid YAML", files: map[string]string{
			"STATE.md": "---\nstatus: [unclosed\nprovides: a: b\n---\n# State\n\n## Current Position\n\nPhase: 1\n",
		}, diagPath: "STATE.md", diagText: "YAML"},
		{name: "BOM and CRLF", files: map[string]string{
			"ROADMAP.md": "\uFEFF# Roadmap\r\n\r\n- [x] **Phase 1: A** - a\r\n- [ ] **Phase 2: B** - b\r\n",
		}, check: func(t *testing.T, p *Project) {
			if len(p.Phases) != 2 || p.CurrentPhase == nil || p.CurrentPhase.Number != "2" || p.CurrentPhase.Name != "B" {
				t.Errorf("phases %+v current %+v", p.Phases, p.CurrentPhase)
			}
		}},
		{name: "binary file", files: map[string]string{
			"blob.md": "\x00\x01\x02binary",
		}, diagPath: "blob.md", diagText: "binary"},
		{name: "non-UTF-8", files: map[string]string{
			"STATE.md": "# State\n\n## Current Position\n\nPhase: 1 caf\xe9\n",
		}, diagPath: "STATE.md", diagText: "UTF-8"},
		{name: "only BLOCKERS.md", files: map[string]string{
			"BLOCKERS.md": "# Project Blockers\n\n## Open Blockers\n\n### BLOCKER-001 [P1] Thing broken\n",
		}, check: func(t *testing.T, p *Project) {
			if p.Flavor != FlavorFire || p.State != nil || p.Roadmap != nil {
				t.Errorf("flavor %q state %v roadmap %v", p.Flavor, p.State, p.Roadmap)
			}
		}},
		{name: "unknown files listed", files: map[string]string{
			"notes.txt": "hello", "research/X.md": "# x\n",
		}, check: func(t *testing.T, p *Project) {
			if len(p.Files) != 2 || p.Files[0].Role != "unknown" || p.Files[1].Role != "unknown" {
				t.Errorf("files = %+v", p.Files)
			}
		}},
		{name: "state naming an unknown phase", files: map[string]string{
			"STATE.md": "# State\n\n## Current Position\n\nPhase: 9 of 9\n",
		}, diagPath: "STATE.md", diagText: "current phase 9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := load(t, writeTree(t, tt.files))
			if tt.diagPath != "" && !hasDiag(p, tt.diagPath, tt.diagText) {
				t.Errorf("no diagnostic on %s containing %q; got %v", tt.diagPath, tt.diagText, p.Diagnostics)
			}
			if tt.check != nil {
				tt.check(t, p)
			}
		})
	}
}

func TestLoadHugeFile(t *testing.T) {
	dir := writeTree(t, map[string]string{"ROADMAP.md": "# Roadmap\n\n- [ ] **Phase 1: A** - a\n"})
	f, err := os.Create(filepath.Join(dir, "STATE.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileSize + 1); err != nil { // sparse: no 8 MiB write
		t.Fatal(err)
	}
	f.Close()
	p := load(t, dir)
	if !hasDiag(p, "STATE.md", "limit") {
		t.Errorf("no size diagnostic: %v", p.Diagnostics)
	}
	want := Diagnostic{Path: "STATE.md", Line: 1, Message: fmt.Sprintf("file is %d bytes, over the %d-byte limit; skipped", MaxFileSize+1, MaxFileSize)}
	if p.State == nil || p.State.Failure == nil || *p.State.Failure != want || p.State.Markdown != nil {
		t.Errorf("state %+v, want a failure %v", p.State, want)
	}
	if p.CurrentPhase == nil || p.CurrentPhase.Number != "1" {
		t.Errorf("current %v", p.CurrentPhase)
	}
	for _, fl := range p.Files {
		if fl.Path == "STATE.md" && fl.Role != "skipped" {
			t.Errorf("STATE.md role = %q, want skipped", fl.Role)
		}
	}
}

func TestLoadUnreadableRoot(t *testing.T) {
	_, err := Load(os.DirFS(filepath.Join(t.TempDir(), "missing")))
	if err == nil {
		t.Fatal("Load of a missing root: want an error")
	}
}

func TestSummaryJSONDeterministic(t *testing.T) {
	// The examples ship with the repository: a missing one is a failure.
	dir := filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd", ".planning")
	a, err := load(t, dir).Summary().JSON()
	if err != nil {
		t.Fatal(err)
	}
	b, err := load(t, dir).Summary().JSON()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) {
		t.Error("two loads of the same tree give different JSON")
	}
}

// TestRealdataFrontMatter checks that every invalid front matter block of
// every realdata markdown file gets a diagnostic naming its file and a line
// inside the block, and that "invalid" agrees with yaml.v3 itself.
func TestRealdataFrontMatter(t *testing.T) {
	total := 0
	for name, dir := range realdataTrees(t) {
		p := load(t, dir)
		err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".md") {
				return err
			}
			rel, _ := filepath.Rel(dir, path)
			rel = filepath.ToSlash(rel)
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			doc := markdown.Parse(rel, data)
			for _, fm := range doc.FrontMatter {
				var v any
				yamlErr := yaml.Unmarshal([]byte(fm.Raw), &v)
				if (yamlErr != nil) == fm.Valid {
					t.Errorf("%s/%s:%d: markdown says valid=%v, yaml.v3 says %v", name, rel, fm.Line, fm.Valid, yamlErr)
				}
				if fm.Valid {
					continue
				}
				total++
				found := false
				for _, dg := range p.Diagnostics {
					if dg.Path == rel && dg.Line >= fm.Line && dg.Line <= fm.EndLine {
						found = true
					}
				}
				if !found {
					t.Errorf("%s/%s:%d: invalid front matter without a diagnostic", name, rel, fm.Line)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("%d invalid front matter blocks, each with a diagnostic", total)
	if total == 0 {
		t.Error("realdata has invalid front matter (kubectl-fields 02-02-SUMMARY.md); found none")
	}
}

// TestSummaryExamplesGolden compares the summary JSON of each example project
// (what `recite inspect --json` prints) with testdata/golden/examples-NAME.json;
// -update rewrites them.
func TestSummaryExamplesGolden(t *testing.T) {
	for _, name := range []string{"gsd", "fire"} {
		t.Run(name, func(t *testing.T) {
			// The examples ship with the repository: load fails the test
			// when one is missing.
			dir := filepath.Join(sharedtest.ModuleRoot(), "examples", name, ".planning")
			got, err := load(t, dir).Summary().JSON()
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "golden", "examples-"+name+".json")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run with -update to create): %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("summary of examples/%s differs from %s (-update to accept):\n%s", name, golden, got)
			}
		})
	}
}

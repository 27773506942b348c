package planning

import (
	"os"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestPlanIdentity: every spelling GSD writes of one plan is one identity
// (docs/formats.md#plan-and-summary-files).
func TestPlanIdentity(t *testing.T) {
	for _, tc := range []struct {
		name, phase, id string
		pure            bool
	}{
		{"25-01-PLAN.md", "25", "25-1", true},
		{"25-dashboard-surface-system-01-SUMMARY.md", "25", "25-1", true},
		{"25-dashboard-surface-system-12-PLAN.md", "25", "25-12", true},
		{"03-02-uat-PLAN.md", "3", "3-2", false},
		{"15.1-03-SUMMARY.md", "15.1", "15.1-3", true},
		{"PLAN-02-chart-widget.md", "26", "26-2", true},
		{"SUMMARY-02-chart.md", "26", "26-2", true},
		{"PLAN.md", "4", "", false},
		{"06-GAP-PLAN.md", "6", "", false},
	} {
		_, key := classifyPhaseFile(tc.name)
		id, pure := planIdentity(tc.name, key, tc.phase)
		if id != tc.id || pure != tc.pure {
			t.Errorf("planIdentity(%q) = %q, %v; want %q, %v", tc.name, id, pure, tc.id, tc.pure)
		}
	}
}

// TestSummaryPairing: a summary pairs with its plan whatever the spelling,
// at most once, and a plan with a word after its number keeps its own.
func TestSummaryPairing(t *testing.T) {
	p := load(t, writeTree(t, map[string]string{
		"ROADMAP.md":                                   "# Roadmap\n\n- [ ] **Phase 25: Surfaces** - s\n- [ ] **Phase 26: Widgets** - w\n",
		"phases/25-surfaces/25-01-PLAN.md":             "# P\n",
		"phases/25-surfaces/25-surfaces-01-SUMMARY.md": "# S\n",
		"phases/25-surfaces/25-02-PLAN.md":             "# P\n",
		"phases/25-surfaces/25-02-uat-PLAN.md":         "# P\n- [ ] uat\n",
		"phases/25-surfaces/25-02-SUMMARY.md":          "# S\n",
		"phases/26-widgets/plans/PLAN-01-list.md":      "# P\n",
		"phases/26-widgets/26-01-SUMMARY.md":           "# S\n",
		"phases/26-widgets/plans/PLAN-02-chart.md":     "# P\n- [ ] chart\n",
	}))
	done := map[string]bool{}
	for _, ph := range p.Phases {
		for _, pl := range ph.Plans {
			done[pl.Path] = pl.Done
		}
	}
	for path, want := range map[string]bool{
		"phases/25-surfaces/25-01-PLAN.md":         true,
		"phases/25-surfaces/25-02-PLAN.md":         true,
		"phases/25-surfaces/25-02-uat-PLAN.md":     false,
		"phases/26-widgets/plans/PLAN-01-list.md":  true,
		"phases/26-widgets/plans/PLAN-02-chart.md": false,
	} {
		if done[path] != want {
			t.Errorf("%s done = %v, want %v", path, done[path], want)
		}
	}
}

// TestWorkstreamView: the only stream of a tree with no top-level state is
// read; several streams with none active are a diagnostic and no stream is
// read; an active stream shadows the top level's STATE.md, with a
// diagnostic; a strict name without a folder is a failure.
func TestWorkstreamView(t *testing.T) {
	stream := func(n, phase string) map[string]string {
		return map[string]string{
			"workstreams/" + n + "/STATE.md":   "# State\n\n## Current Position\n\nPhase: " + phase + "\n",
			"workstreams/" + n + "/ROADMAP.md": "# Roadmap\n\n- [ ] **Phase " + phase + ": P" + phase + "** - x\n",
		}
	}
	merge := func(ms ...map[string]string) map[string]string {
		out := map[string]string{}
		for _, m := range ms {
			for k, v := range m {
				out[k] = v
			}
		}
		return out
	}
	one := load(t, writeTree(t, merge(stream("solo", "4"), map[string]string{"PROJECT.md": "# P\n"})))
	if one.Workstream == nil || one.Workstream.Name != "solo" || one.Workstream.Source != "the only workstream" ||
		one.CurrentPhase == nil || one.CurrentPhase.Number != "4" || one.Flavor != FlavorGSD || one.Brief == nil {
		t.Errorf("only stream: %+v %+v", one.Workstream, one.CurrentPhase)
	}
	two, err := LoadWith(os.DirFS(writeTree(t, merge(stream("a", "1"), stream("b", "2")))), nil, LoadOptions{AllWorkstreams: true})
	if err != nil {
		t.Fatal(err)
	}
	if two.Workstream != nil || two.CurrentPhase != nil || !hasDiag(two, "workstreams", "2 workstreams (a, b) and none is active") {
		t.Errorf("two streams, none active: %+v %v", two.Workstream, two.Diagnostics)
	}
	if len(two.Workstreams) != 2 || two.Workstreams[1].CurrentPhase == nil || two.Workstreams[1].CurrentPhase.Number != "2" {
		t.Errorf("streams listed: %+v", two.Workstreams)
	}
	shadow := load(t, writeTree(t, merge(stream("a", "1"), map[string]string{
		"active-workstream": "a\n",
		"STATE.md":          "# State\n\n## Current Position\n\nPhase: 9\n",
	})))
	if shadow.CurrentPhase == nil || shadow.CurrentPhase.Number != "1" || shadow.State.Path != "workstreams/a/STATE.md" ||
		!hasDiag(shadow, "STATE.md", "not read: workstream a is active (active-workstream); its STATE.md is workstreams/a/STATE.md") {
		t.Errorf("shadowed STATE.md: %+v %v", shadow.CurrentPhase, shadow.Diagnostics)
	}
	for _, f := range shadow.Files {
		if f.Path == "STATE.md" && f.Role != "shadowed" || f.Path == "active-workstream" && f.Role != "workstream" {
			t.Errorf("%s has role %s", f.Path, f.Role)
		}
	}
	dir := writeTree(t, merge(stream("a", "1"), map[string]string{"active-workstream": "a\n"}))
	var strict *Project
	strict, err = LoadWith(os.DirFS(dir), nil, LoadOptions{Workstream: "zz", WorkstreamSource: "recite.yaml target t", Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	if strict.Workstream != nil || len(strict.Failures) != 1 || !strings.Contains(strict.Failures[0].Message, `workstream "zz" named by recite.yaml target t has no folder`) {
		t.Errorf("strict missing stream: %+v %v", strict.Workstream, strict.Failures)
	}
	lenient, _ := LoadWith(os.DirFS(dir), nil, LoadOptions{Workstream: "../x", WorkstreamSource: "GSD_WORKSTREAM"})
	if lenient.Workstream == nil || lenient.Workstream.Name != "a" || len(lenient.Failures) != 0 {
		t.Errorf("a bad name from the environment: %+v %v", lenient.Workstream, lenient.Failures)
	}
}

// TestMilestoneStates: the state file says the milestone is over or not
// started, and then there is no current phase, whatever folder is open
// (docs/formats.md#finished-milestones).
func TestMilestoneStates(t *testing.T) {
	roadmap := "# Roadmap\n\n- [x] **Phase 1: A** - a\n- [x] **Phase 2: B** - b\n"
	open := "# Roadmap\n\n- [x] **Phase 1: A** - a\n- [ ] **Phase 2: B** - b\n"
	stale := "# Plan\n\n- [ ] an old task\n"
	for _, tc := range []struct {
		name, state, roadmap, status, phase string
	}{
		{"closeout", "## Current Position\n\nPhase: Milestone Closeout\nStatus: Complete\n", open, MilestoneComplete, ""},
		{"status says so", "## Current Position\n\nPhase: —\nStatus: milestone_completed\n", open, MilestoneComplete, ""},
		{"between milestones", "## Current Position\n\nPhase: None (between milestones)\n", roadmap, MilestoneComplete, ""},
		{"not started, all done", "## Current Position\n\n**Phase:** Not started\n", roadmap, MilestoneNotStarted, ""},
		{"not started, a phase open", "## Current Position\n\n**Phase:** Not started\n", open, MilestoneActive, "2"},
		{"all done, state completed", "## Current Position\n\nPhase: 2 of 2 (B)\nStatus: Phase complete\n", roadmap, MilestoneComplete, ""},
		{"all done, still verifying", "## Current Position\n\nPhase: 2 of 2 (B)\nStatus: Verifying\n", roadmap, MilestoneActive, "2"},
		{"a phase named like a milestone", "## Current Position\n\nPhase: 2 — Milestone archive UI complete\n", open, MilestoneActive, "2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := load(t, writeTree(t, map[string]string{
				"STATE.md": "# State\n\n" + tc.state, "ROADMAP.md": tc.roadmap,
				"phases/02-b/02-01-PLAN.md": stale, "phases/07-old/07-01-PLAN.md": stale,
			}))
			got := ""
			if p.CurrentPhase != nil {
				got = p.CurrentPhase.Number
			}
			if p.Milestone.Status != tc.status || got != tc.phase {
				t.Errorf("milestone %+v, current phase %q; want %s, %q", p.Milestone, got, tc.status, tc.phase)
			}
			if tc.phase == "" && (p.NextAction == nil || !strings.Contains(p.NextAction.Text, "/gsd-new-milestone")) {
				t.Errorf("next action %+v", p.NextAction)
			}
		})
	}
}

// TestStateLifecycleKeys reads GSD 1.40's STATE.md front matter:
// active_phase first, next_action with next_phases, the progress block.
func TestStateLifecycleKeys(t *testing.T) {
	roadmap := "# Roadmap\n\n- [x] **Phase 4: A** - a\n- [ ] **Phase 4.5: B** - b\n- [ ] **Phase 5: C** - c\n"
	p := load(t, writeTree(t, map[string]string{"ROADMAP.md": roadmap, "STATE.md": "---\nstatus: in_progress\nactive_phase: null\nnext_action: execute-phase\nnext_phases: [\"4.5\"]\nprogress:\n  total_phases: 17\n  completed_phases: 10\n  percent: 59\n---\n# State\n\n## Current Position\n\nPhase: 4 of 17 (A) — complete\n"}))
	if p.CurrentPhase == nil || p.CurrentPhase.Number != "4.5" {
		t.Errorf("current phase %+v, want 4.5 (next_phases after a complete phase)", p.CurrentPhase)
	}
	if p.NextAction == nil || p.NextAction.Text != "execute-phase 4.5" || p.NextAction.Source != "STATE.md:4" {
		t.Errorf("next action %+v", p.NextAction)
	}
	if pr := p.State.Progress; pr == nil || pr.TotalPhases != 17 || pr.CompletedPhases != 10 || pr.Percent != 59 || pr.TotalPlans != -1 {
		t.Errorf("progress %+v", p.State.Progress)
	}
	p = load(t, writeTree(t, map[string]string{"ROADMAP.md": roadmap, "STATE.md": "---\nactive_phase: \"5\"\nnext_action: plan-phase\nnext_phases: [\"4.5\"]\n---\n# State\n\n## Current Position\n\nPhase: 4\n"}))
	if p.CurrentPhase == nil || p.CurrentPhase.Number != "5" {
		t.Errorf("current phase %+v, want 5 (active_phase)", p.CurrentPhase)
	}
}

// TestFirstSentence: a task without a name is shown by its first sentence
// of prose, cut at TaskTextMax runes with a marker.
func TestFirstSentence(t *testing.T) {
	long := strings.Repeat("word ", 60)
	for _, tc := range []struct{ body, want string }{
		{"Add the ING format. Then the Rabobank one.", "Add the ING format."},
		{"```go\np := csv.NewReader(r)\n```\nMap the columns of main.go first.\nMore here.", "Map the columns of main.go first."},
		{"  - **Step:** wire it\n    into the router\n\nnext paragraph", "Step: wire it into the router"},
		{"```\nonly code\n```", "only code"},
		{"", ""},
	} {
		if got := firstSentence(tc.body); got != tc.want {
			t.Errorf("firstSentence(%q) = %q, want %q", tc.body, got, tc.want)
		}
	}
	got := firstSentence(long)
	if n := utf8.RuneCountInString(got); n > TaskTextMax || !strings.HasSuffix(got, TaskTextMarker) || strings.HasSuffix(got, "wor"+TaskTextMarker) {
		t.Errorf("long body: %q (%d runes)", got, utf8.RuneCountInString(got))
	}
}

// TestBlockersNoneLine: a "none" line opens an empty blocker section and
// the list under it is not blockers; a "- None" item does not hide the
// items after it; a "none … but:" line introduces blockers.
func TestBlockersNoneLine(t *testing.T) {
	for _, tc := range []struct {
		section string
		want    int
	}{
		{"No blockers.\n\n- Shipped the retry path\n- Deployed the image\n", 0},
		{"None currently\n- Shipped x\n", 0},
		{"- None\n- The API key expired\n", 1},
		{"No blockers for phase 3, but:\n\n- The staging DB is down\n", 1},
		{"- The API key expired\n", 1},
	} {
		p := load(t, writeTree(t, map[string]string{"STATE.md": "# State\n\n## Blockers\n\n" + tc.section}))
		if len(p.Blockers) != tc.want {
			t.Errorf("%q: %d blockers %+v, want %d", tc.section, len(p.Blockers), p.Blockers, tc.want)
		}
	}
}

// TestValidWorkstreamName matches GSD's ACTIVE_WORKSTREAM_RE
// (`^[a-zA-Z0-9][a-zA-Z0-9._-]*$`) with ".." refused.
func TestValidWorkstreamName(t *testing.T) {
	for name, want := range map[string]bool{
		"api-v2": true, "v2.9_ux": true, "A": true, "9": true, "a.": true,
		"": false, ".a": false, "-a": false, "_a": false, "a..b": false, "..": false,
		"a/b": false, "a b": false, "é": false, strings.Repeat("a", 256): false,
	} {
		if got := ValidWorkstreamName(name); got != want {
			t.Errorf("ValidWorkstreamName(%q) = %v, want %v", name, got, want)
		}
	}
}

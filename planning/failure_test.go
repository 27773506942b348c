package planning

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// TestLoadFailedFiles: a state file or plan that cannot be read (a NUL
// byte, over MaxFileSize) stays in the model with its Failure, at the line
// of the first NUL or at line 1 with the size and the limit, so that the
// engine can keep the last good render instead of dropping it.
func TestLoadFailedFiles(t *testing.T) {
	const plan = "phases/01-setup/01-01-PLAN.md"
	files := func() map[string]string {
		return map[string]string{
			"ROADMAP.md": "# Roadmap\n\n- [ ] **Phase 1: Setup** - a\n",
			"STATE.md":   "# Project State\n\n## Current Position\n\nPhase: 1 of 1 (Setup)\n",
			plan:         "---\nphase: 01\n---\n# Plan 01\n\n- [ ] write go.mod\n",
		}
	}
	huge := func(t *testing.T, dir, rel string) {
		f, err := os.Create(filepath.Join(dir, filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if err := f.Truncate(MaxFileSize + 1); err != nil { // sparse: no 8 MiB write
			t.Fatal(err)
		}
	}
	sizeMsg := fmt.Sprintf("file is %d bytes, over the %d-byte limit; skipped", MaxFileSize+1, MaxFileSize)
	for _, tc := range []struct {
		name    string
		content map[string]string // replaced files
		huge    string            // a file made MaxFileSize+1 bytes
		plan    *Diagnostic
		state   *Diagnostic
	}{
		{name: "readable"},
		{name: "NUL in the plan", content: map[string]string{plan: "---\nphase: 01\n---\n# Plan 01\n\n- [ ] write \x00go.mod\n\x00\n"},
			plan: &Diagnostic{Path: plan, Line: 6, Message: "binary content (NUL byte); skipped"}},
		{name: "NUL in the state", content: map[string]string{"STATE.md": "\x00# Project State\n"},
			state: &Diagnostic{Path: "STATE.md", Line: 1, Message: "binary content (NUL byte); skipped"}},
		{name: "plan over the size limit", huge: plan,
			plan: &Diagnostic{Path: plan, Line: 1, Message: sizeMsg}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := files()
			for k, v := range tc.content {
				fs[k] = v
			}
			dir := writeTree(t, fs)
			if tc.huge != "" {
				huge(t, dir, tc.huge)
			}
			p := load(t, dir)
			pl := p.CurrentPlan
			if pl == nil || pl.Path != plan {
				t.Fatalf("current plan %+v, want %s whatever its content", pl, plan)
			}
			if !sameDiag(pl.Failure, tc.plan) || (pl.Failure != nil) != (pl.Markdown == nil) {
				t.Errorf("plan failure %v (markdown %v), want %v", pl.Failure, pl.Markdown != nil, tc.plan)
			}
			if p.State == nil || !sameDiag(p.State.Failure, tc.state) || (p.State.Failure != nil) != (p.State.Markdown == nil) {
				t.Fatalf("state %+v, want failure %v", p.State, tc.state)
			}
			for _, want := range []*Diagnostic{tc.plan, tc.state} {
				if want != nil && !hasDiag(p, want.Path, want.Message) {
					t.Errorf("no diagnostic %v in %v", want, p.Diagnostics)
				}
			}
			// A cached load, whose files are not read again, marks them the same.
			c := NewCache()
			for round := 0; round < 2; round++ {
				q, err := LoadCached(os.DirFS(dir), c)
				if err != nil {
					t.Fatal(err)
				}
				if !sameDiag(q.CurrentPlan.Failure, tc.plan) || !sameDiag(q.State.Failure, tc.state) {
					t.Errorf("cached load %d: plan failure %v, state failure %v", round, q.CurrentPlan.Failure, q.State.Failure)
				}
			}
		})
	}
}

func sameDiag(a, b *Diagnostic) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

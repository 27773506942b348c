package planning

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// refuseFS is a real folder in which one path cannot be read, as a folder
// or file of mode 000 is for anyone but root: opening it, listing it and
// reading it fail with a permission error. It is how the test sees the
// fault as root, whom mode 000 does not stop.
type refuseFS struct {
	fs.FS
	refused string
}

func (r refuseFS) deny(op, name string) error {
	if name == r.refused || strings.HasPrefix(name, r.refused+"/") {
		return &fs.PathError{Op: op, Path: name, Err: fs.ErrPermission}
	}
	return nil
}

func (r refuseFS) Open(name string) (fs.File, error) {
	if err := r.deny("open", name); err != nil {
		return nil, err
	}
	return r.FS.Open(name)
}

func (r refuseFS) ReadDir(name string) ([]fs.DirEntry, error) {
	if err := r.deny("open", name); err != nil {
		return nil, err
	}
	return fs.ReadDir(r.FS, name)
}

func (r refuseFS) ReadFile(name string) ([]byte, error) {
	if err := r.deny("open", name); err != nil {
		return nil, err
	}
	return fs.ReadFile(r.FS, name)
}

// TestLoadUnreadable: a folder or file of the tree that cannot be read is
// a failure of the load with its path and the reason, never an empty
// folder or a missing file (docs/formats.md#unreadable-files); recite's
// own outputs (prompts/) are only diagnostics. It runs on a real folder
// made mode 000 when the test is not root, and through refuseFS always.
func TestLoadUnreadable(t *testing.T) {
	const plan = "phases/01-setup/01-01-PLAN.md"
	tree := map[string]string{
		"ROADMAP.md":       "# Roadmap\n\n- [ ] **Phase 1: Setup** - a\n",
		"STATE.md":         "# Project State\n\n## Current Position\n\nPhase: 1 of 1 (Setup)\n",
		plan:               "# Plan 01\n\n- [ ] write go.mod\n",
		"prompts/agent.md": "x\n",
	}
	for _, tc := range []struct {
		name, refused string
		want          string // the failure, "" for none
	}{
		{name: "readable"},
		{name: "the current phase's folder", refused: "phases/01-setup", want: "phases/01-setup: cannot read the folder: permission denied"},
		{name: "the current plan", refused: plan, want: plan + ": cannot read: permission denied"},
		{name: "the state file", refused: "STATE.md", want: "STATE.md: cannot read: permission denied"},
		{name: "recite's prompts", refused: "prompts"},
	} {
		check := func(t *testing.T, fsys fs.FS) {
			t.Helper()
			p, err := LoadWith(fsys, nil, LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range p.Failures {
				got = append(got, f.String())
			}
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("failures = %q, want none", got)
			case tc.want != "" && (len(got) != 1 || got[0] != tc.want):
				t.Errorf("failures = %q, want [%q]", got, tc.want)
			}
			if tc.want != "" && !hasDiagnostic(p, tc.want) {
				t.Errorf("diagnostics %v lack %q", p.Diagnostics, tc.want)
			}
		}
		t.Run(tc.name, func(t *testing.T) {
			dir := writeTree(t, tree)
			check(t, refuseFS{FS: os.DirFS(dir), refused: tc.refused})
			if tc.refused == "" || os.Geteuid() == 0 {
				return // root reads mode 000: refuseFS stands for it
			}
			p := filepath.Join(dir, filepath.FromSlash(tc.refused))
			if err := os.Chmod(p, 0); err != nil {
				t.Fatal(err)
			}
			defer os.Chmod(p, 0o755)
			check(t, os.DirFS(dir))
		})
	}
}

func hasDiagnostic(p *Project, s string) bool {
	for _, d := range p.Diagnostics {
		if d.String() == s {
			return true
		}
	}
	return false
}

package engine

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// TestNoteDiagnostics walks a sequence of commands through one project:
// what each prints in full (New) and counts (Known).
func TestNoteDiagnostics(t *testing.T) {
	dir := t.TempDir()
	e := New(dir)
	a := Diagnostic{Path: ".planning/STATE.md", Line: 3, Message: "invalid YAML front matter"}
	aMoved := a
	aMoved.Line = 5
	aChanged := a
	aChanged.Message = "binary content"
	b := Diagnostic{Path: ".planning/recite.yaml", Line: 2, Message: `target "agent": unknown role "boss"`}
	g := Diagnostic{Path: ".", Message: "files modified omitted: not a git repository"}
	steps := []struct {
		name      string
		diags     []Diagnostic
		by        string
		complete  bool
		new, know []Diagnostic
	}{
		{"first build prints all", []Diagnostic{a, b}, "build", true, []Diagnostic{a, b}, nil},
		{"second build counts them", []Diagnostic{a, b}, "build", true, nil, []Diagnostic{a, b}},
		{"status too, with a line moved", []Diagnostic{aMoved, b}, "status", true, nil, []Diagnostic{aMoved, b}},
		{"a changed message is new", []Diagnostic{aChanged, b}, "build", true, []Diagnostic{aChanged}, []Diagnostic{b}},
		{"preserve adds its own", []Diagnostic{aChanged, g}, "preserve", false, []Diagnostic{g}, []Diagnostic{aChanged}},
		{"and knows it next time", []Diagnostic{g}, "preserve", false, nil, []Diagnostic{g}},
		{"b is still known after a partial command", []Diagnostic{aChanged, b}, "build", true, nil, []Diagnostic{aChanged, b}},
		{"fixed", nil, "build", true, nil, nil},
		{"back again is new", []Diagnostic{b}, "build", true, []Diagnostic{b}, nil},
		{"two equal diagnostics are two", []Diagnostic{b, b}, "build", true, []Diagnostic{b}, []Diagnostic{b}},
	}
	for _, s := range steps {
		got := e.NoteDiagnostics(s.diags, s.complete, s.by)
		if !slices.Equal(got.New, s.new) || !slices.Equal(got.Known, s.know) {
			t.Errorf("%s: new %v known %v, want new %v known %v", s.name, got.New, got.Known, s.new, s.know)
		}
	}
	// The file stays out of git: CacheDir's .gitignore is written with it.
	if _, err := os.Stat(filepath.Join(dir, CacheDir, ".gitignore")); err != nil {
		t.Error(err)
	}
}

// TestNoteDiagnosticsTornFile: a torn, foreign or unreadable record
// counts as empty (every diagnostic printed again) and is replaced.
func TestNoteDiagnosticsTornFile(t *testing.T) {
	a := Diagnostic{Path: ".planning/STATE.md", Line: 3, Message: "invalid YAML front matter"}
	for _, body := range []string{`{"version":1,"shown":[{"path":".planning/ST`, "\x00\x01", `{"version":99,"shown":[]}`, `[]`} {
		dir := t.TempDir()
		p := filepath.Join(dir, filepath.FromSlash(ShownDiagnosticsFile))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		e := New(dir)
		if got := e.NoteDiagnostics([]Diagnostic{a}, true, "build"); len(got.New) != 1 {
			t.Errorf("%q: %+v, want the diagnostic new", body, got)
		}
		if got := e.NoteDiagnostics([]Diagnostic{a}, true, "build"); len(got.Known) != 1 {
			t.Errorf("%q: after a rewrite %+v, want it known", body, got)
		}
	}
}

// TestDiagnosticsLists: the planning tree's and recite.yaml's diagnostics
// read now, root-relative, plus what commands printed, with the command;
// nothing written (no redaction key, no record), from the project or its
// .planning folder.
func TestDiagnosticsLists(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".planning/STATE.md", "---\nstatus: [x\n---\n# Project State\n")
	write(".planning/recite.yaml", "targets:\n  - name: agent\n    providr: [markdown]\n")
	for _, d := range []string{dir, filepath.Join(dir, PlanningDir)} {
		pd, err := New(d).Diagnostics()
		if err != nil {
			t.Fatal(err)
		}
		if len(pd.Tree) != 2 || pd.Tree[0].Path != ".planning/STATE.md" || pd.Tree[1].Path != ".planning/recite.yaml" || pd.Tree[1].Line != 3 || len(pd.Printed) != 0 {
			t.Errorf("Diagnostics(%s) = %+v", d, pd)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, CacheDir)); !os.IsNotExist(err) {
		t.Errorf("Diagnostics wrote %s (%v)", CacheDir, err)
	}
	pd, _ := New(dir).Diagnostics()
	role := Diagnostic{Path: ".planning/recite.yaml", Line: 2, Message: `target "agent": unknown role "boss"`}
	New(dir).NoteDiagnostics(append(pd.Tree, role), true, "build")
	pd, err := New(dir).Diagnostics()
	if err != nil {
		t.Fatal(err)
	}
	if len(pd.Printed) != 1 || pd.Printed[0].Diagnostic != role || pd.Printed[0].By != "build" {
		t.Errorf("printed %+v, want the role diagnostic by build", pd.Printed)
	}
}

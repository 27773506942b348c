package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/templates"
)

// ShownDiagnosticsFile remembers which diagnostics the command line has
// printed, so that a command prints a diagnostic once and afterwards only
// counts it (NoteDiagnostics). It is relative to the project root, under
// CacheDir, whose .gitignore keeps it out of git. The file is one JSON
// document:
//
//	{"version": 1, "shown": [{"path": ".planning/STATE.md", "line": 2,
//	  "message": "invalid YAML front matter …", "by": "build"}]}
//
// A missing, torn or otherwise unreadable file counts as empty: the
// diagnostics are then printed again, nothing is lost. It is rewritten
// whole, without fsync: it is a convenience, never a record.
const ShownDiagnosticsFile = CacheDir + "/diagnostics-shown.json"

// shownVersion is the version of ShownDiagnosticsFile's format.
const shownVersion = 1

// maxShown bounds the entries kept in ShownDiagnosticsFile; diagnostics
// past it are printed again each time.
const maxShown = 5000

// ShownDiagnostic is one entry of ShownDiagnosticsFile: a diagnostic and
// the command that printed it first ("build", "status", "watch", "say",
// "preserve", "run").
type ShownDiagnostic struct {
	Diagnostic
	By string `json:"by"`
}

// shownState is the document in ShownDiagnosticsFile.
type shownState struct {
	Version int               `json:"version"`
	Shown   []ShownDiagnostic `json:"shown"`
}

// DiagnosticNews splits the diagnostics a command is about to print into
// those printed before (Known) and those not (New), both in the order the
// command reported them.
type DiagnosticNews struct {
	New   []Diagnostic
	Known []Diagnostic
}

// diagnosticKey identifies a diagnostic across commands and edits: its file
// and message. The line is left out, so a diagnostic whose file gained a
// line above it is still the one already shown; another message for the
// same file is a new diagnostic.
type diagnosticKey struct{ path, message string }

func diagKey(d Diagnostic) diagnosticKey { return diagnosticKey{d.Path, d.Message} }

// NoteDiagnostics compares a command's diagnostics with ShownDiagnosticsFile
// and records them there. by names the command. complete says diags is the
// whole project's set, as build, status and watch report it: the file then
// keeps exactly diags, so a diagnostic that went away and comes back is
// new again. A command that reports only a part (say, preserve, a
// conversation run) adds its diagnostics to the file. Keys are counted as
// a multiset: two equal diagnostics of one file are two entries. A failure
// to read or write the file is ignored: every diagnostic is then new.
func (e *Engine) NoteDiagnostics(diags []Diagnostic, complete bool, by string) DiagnosticNews {
	old := e.shownDiagnostics()
	left := map[diagnosticKey]int{}
	for _, s := range old {
		left[diagKey(s.Diagnostic)]++
	}
	var news DiagnosticNews
	var next []ShownDiagnostic
	firstBy := map[diagnosticKey][]string{}
	for _, s := range old {
		k := diagKey(s.Diagnostic)
		firstBy[k] = append(firstBy[k], s.By)
	}
	for _, d := range diags {
		k := diagKey(d)
		if left[k] > 0 {
			left[k]--
			news.Known = append(news.Known, d)
			b := firstBy[k][0]
			firstBy[k] = firstBy[k][1:]
			next = append(next, ShownDiagnostic{d, b})
			continue
		}
		news.New = append(news.New, d)
		next = append(next, ShownDiagnostic{d, by})
	}
	if !complete {
		// Keep what this command did not report.
		for _, s := range old {
			if k := diagKey(s.Diagnostic); left[k] > 0 {
				left[k]--
				next = append(next, s)
			}
		}
	}
	if len(next) > maxShown {
		next = next[:maxShown]
	}
	if !slices.Equal(next, old) {
		e.writeShown(next)
	}
	return news
}

// shownDiagnostics reads ShownDiagnosticsFile; nil when it is missing or
// not a document of the known version.
func (e *Engine) shownDiagnostics() []ShownDiagnostic {
	b, err := os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(ShownDiagnosticsFile)))
	if err != nil {
		return nil
	}
	var st shownState
	if json.Unmarshal(b, &st) != nil || st.Version != shownVersion {
		return nil
	}
	return st.Shown
}

// writeShown rewrites ShownDiagnosticsFile (creating CacheDir and its
// .gitignore when needed); errors are ignored.
func (e *Engine) writeShown(shown []ShownDiagnostic) {
	if shown == nil {
		shown = []ShownDiagnostic{}
	}
	b, err := json.Marshal(shownState{Version: shownVersion, Shown: shown})
	if err != nil {
		return
	}
	dir := filepath.Join(e.dir, filepath.FromSlash(CacheDir))
	if os.MkdirAll(dir, 0o755) != nil {
		return
	}
	gi := filepath.Join(dir, ".gitignore")
	if _, err := os.Stat(gi); errors.Is(err, fs.ErrNotExist) {
		text, err := templates.Init("prompts.gitignore", "")
		if err != nil || writeAtomic(gi, []byte(text)) != nil {
			return
		}
	}
	_ = os.WriteFile(filepath.Join(e.dir, filepath.FromSlash(ShownDiagnosticsFile)), append(b, '\n'), 0o644)
}

// ProjectDiagnostics are every diagnostic of a project, as `recite inspect`
// lists them.
type ProjectDiagnostics struct {
	// Tree are the diagnostics of the planning tree and of recite.yaml (a
	// file that does not load is one diagnostic with its file and line),
	// read now, sorted by path and line.
	Tree []Diagnostic
	// Printed are the other diagnostics the command line printed and
	// remembers (ShownDiagnosticsFile): those of the targets' inputs that
	// build, status and watch report, and those of preserve, say and
	// conversation runs, each with the command that printed it first.
	Printed []ShownDiagnostic
}

// Diagnostics returns every diagnostic of the project, paths relative to
// the project root, without writing anything and without rendering a
// prompt (no redaction key is made, no summarizer runs): the planning
// tree's and recite.yaml's read now, and the other diagnostics commands
// printed (ProjectDiagnostics). The project is Dir(), or its parent when
// Dir() is the .planning folder itself (as Inspect reads it). Errors:
// *InputError when the project has no readable planning tree.
func (e *Engine) Diagnostics() (*ProjectDiagnostics, error) {
	dir, err := inspectPlanningDir(e.Dir())
	if err != nil {
		return nil, err
	}
	proj, err := planning.LoadCached(os.DirFS(dir), e.parsed)
	if err != nil {
		return nil, &InputError{Err: fmt.Errorf("%s: %w", dir, err)}
	}
	root := New(filepath.Dir(dir))
	out := &ProjectDiagnostics{Tree: rootRelative(proj.Diagnostics)}
	if _, _, err := config.Load(root.dir); err != nil {
		d := Diagnostic{Path: config.FileName, Message: err.Error()}
		var ce *config.Error
		if errors.As(err, &ce) {
			d.Path, d.Line, d.Message = ce.Path, ce.Line, ce.Msg
		}
		out.Tree = append(out.Tree, d)
	}
	sortDiagnostics(out.Tree)
	left := map[diagnosticKey]int{}
	for _, d := range out.Tree {
		left[diagKey(d)]++
	}
	for _, s := range root.shownDiagnostics() {
		if k := diagKey(s.Diagnostic); left[k] > 0 {
			left[k]--
		} else {
			out.Printed = append(out.Printed, s)
		}
	}
	sort.SliceStable(out.Printed, func(i, j int) bool {
		a, b := out.Printed[i], out.Printed[j]
		return a.Path < b.Path || a.Path == b.Path && a.Line < b.Line
	})
	return out, nil
}

// rootRelative returns planning-tree diagnostics with their paths relative
// to the project root (".planning/STATE.md", not "STATE.md").
func rootRelative(diags []Diagnostic) []Diagnostic {
	out := make([]Diagnostic, 0, len(diags))
	for _, d := range diags {
		d.Path = PlanningDir + "/" + d.Path
		out = append(out, d)
	}
	return out
}

// sortDiagnostics orders diagnostics by path, then line, keeping the order
// of equal ones.
func sortDiagnostics(diags []Diagnostic) {
	sort.SliceStable(diags, func(i, j int) bool {
		a, b := diags[i], diags[j]
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.Line < b.Line
	})
}

// rootRelativeSummary rewrites the planning-relative paths of a summary
// (the current plan, blocker and decision sources, loop files,
// diagnostics) relative to the project root, as every other command writes
// them. A blocker whose id is its source (a GSD blocker, "STATE.md:64")
// keeps the two equal.
func rootRelativeSummary(s *PlanningSummary) {
	rel := func(p string) string {
		if p == "" {
			return p
		}
		return PlanningDir + "/" + p
	}
	if s.CurrentPlan != nil {
		s.CurrentPlan.Path = rel(s.CurrentPlan.Path)
	}
	for i := range s.Blockers {
		b := &s.Blockers[i]
		if b.ID == b.Source {
			b.ID = rel(b.ID)
		}
		b.Source = rel(b.Source)
	}
	for i := range s.Decisions {
		s.Decisions[i].Source = rel(s.Decisions[i].Source)
	}
	for i := range s.Loops {
		s.Loops[i].Path = rel(s.Loops[i].Path)
	}
	s.Diagnostics = rootRelative(s.Diagnostics)
}

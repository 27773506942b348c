package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/diagnostics"
	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/templates"
)

// ShownDiagnosticsFile remembers which diagnostics the command line has
// printed (engine/diagnostics, docs/formats.md#diagnostics-once), relative
// to the project root, under CacheDir, whose .gitignore keeps it out of
// git.
const ShownDiagnosticsFile = CacheDir + "/diagnostics-shown.json"

// ShownDiagnostic is one entry of ShownDiagnosticsFile: a diagnostic and
// the command that printed it first.
type ShownDiagnostic = diagnostics.Shown

// DiagnosticNews splits the diagnostics a command is about to print into
// those printed before (Known) and those not (New).
type DiagnosticNews = diagnostics.News

// shownMemory is the project's ShownDiagnosticsFile; writing it first
// makes CacheDir and its .gitignore.
func (e *Engine) shownMemory() diagnostics.Memory {
	return diagnostics.Memory{
		Path: filepath.Join(e.dir, filepath.FromSlash(ShownDiagnosticsFile)),
		Prepare: func() error {
			dir := filepath.Join(e.dir, filepath.FromSlash(CacheDir))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			gi := filepath.Join(dir, ".gitignore")
			if _, err := os.Stat(gi); !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			text, err := templates.Init("prompts.gitignore", "")
			if err != nil {
				return err
			}
			return writeAtomic(gi, []byte(text))
		},
	}
}

// NoteDiagnostics compares a command's diagnostics with ShownDiagnosticsFile
// and records them there (diagnostics.Memory.Note): by names the command,
// complete says diags is the whole project's set (build, status, watch).
// Errors reading or writing the file are ignored: every diagnostic is then
// new.
func (e *Engine) NoteDiagnostics(diags []Diagnostic, complete bool, by string) DiagnosticNews {
	return e.shownMemory().Note(diags, complete, by)
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
	proj, err := planning.LoadWith(fsutil.DirFS(dir), e.parsed, e.workstreamOptions(dir, nil))
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
	diagnostics.Sort(out.Tree)
	out.Printed = diagnostics.Printed(out.Tree, root.shownMemory().Read())
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

// rootRelativeSummary rewrites the planning-relative paths of a summary
// (the current plan, blocker and decision sources, loop files, the next
// action's and the milestone's sources, workstream folders, HANDOFF.json,
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
	if s.NextAction != nil {
		a := *s.NextAction
		a.Source = rel(a.Source)
		s.NextAction = &a
	}
	s.Milestone.Source = rel(s.Milestone.Source)
	for i := range s.Workstreams {
		s.Workstreams[i].Dir = rel(s.Workstreams[i].Dir)
	}
	if s.Handoff != nil {
		h := *s.Handoff
		h.Path = rel(h.Path)
		s.Handoff = &h
	}
	s.Diagnostics = rootRelative(s.Diagnostics)
}

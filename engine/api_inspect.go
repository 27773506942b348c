package engine

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/recite-dev/recite/planning"
)

// PlanningSummary is the parsed planning tree as `recite inspect` shows
// it: flavor, current phase, plan and next task, phases, blockers,
// decisions, loops and diagnostics, plain values in a fixed key order
// (planning.Summary).
type PlanningSummary = planning.Summary

// Inspect loads the planning tree and summarises it, paths relative to
// the project root (".planning/STATE.md"), every secret the planning files
// hold replaced by its placeholder (secrets.Redactor.Values). The tree is
// Dir()/.planning, or Dir() itself when it is named .planning. Errors, all
// *InputError: the project directory or its .planning folder is missing,
// unreadable or not a directory; the tree cannot be loaded (the error names
// the folder).
func (e *Engine) Inspect() (PlanningSummary, error) {
	dir, err := inspectPlanningDir(e.Dir())
	if err != nil {
		return PlanningSummary{}, err
	}
	opts := e.workstreamOptions(dir, nil)
	opts.AllWorkstreams = true // inspect lists every stream with its current phase
	proj, err := planning.LoadWith(fsutil.DirFS(dir), e.parsed, opts)
	if err != nil {
		return PlanningSummary{}, &InputError{Err: fmt.Errorf("%s: %w", dir, err)}
	}
	sum := proj.Summary()
	rootRelativeSummary(&sum)
	// An agent runs inspect too: its output shows placeholders, with the
	// key of the project the tree belongs to.
	red := e
	if filepath.Base(filepath.Clean(e.Dir())) == PlanningDir {
		red = New(filepath.Dir(filepath.Clean(e.Dir())))
	}
	red.redactor.Values(&sum)
	return sum, nil
}

// inspectPlanningDir finds the planning tree for dir: dir itself when it
// is named .planning, else dir/.planning.
func inspectPlanningDir(dir string) (string, error) {
	if filepath.Base(filepath.Clean(dir)) == PlanningDir {
		if st, err := os.Stat(dir); err == nil && st.IsDir() {
			return dir, nil
		}
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		return "", &InputError{Err: fmt.Errorf("project directory %s does not exist or is not a directory", dir)}
	}
	p := filepath.Join(dir, PlanningDir)
	st, err := os.Stat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", &InputError{Err: fmt.Errorf("no .planning folder in %s (run 'recite init' to create one, or pass -C DIR)", dir)}
	case err != nil:
		return "", &InputError{Err: fmt.Errorf("cannot read %s: %w", p, err)}
	case !st.IsDir():
		return "", &InputError{Err: fmt.Errorf("%s is not a directory", p)}
	}
	return p, nil
}

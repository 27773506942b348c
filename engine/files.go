package engine

import (
	"context"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/scope"
	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/recite-dev/recite/planning"
)

// FileEntry is one project file that may enter an agent's context
// (scope.FileEntry).
type FileEntry = scope.FileEntry

// ErrorPath is a project file named by a recorded error (scope.ErrorPath).
type ErrorPath = scope.ErrorPath

// PathRef is a file path named in a text, with the line it names
// (scope.PathRef).
type PathRef = scope.PathRef

// Explanation is the answer of Why (scope.Explanation).
type Explanation = scope.Explanation

// ExtractPaths finds the file paths an error text names, in order of first
// appearance, each once (scope.ExtractPaths).
func ExtractPaths(text string) []PathRef { return scope.ExtractPaths(text) }

// Files returns the project files that may enter context, sorted: what
// `.gitignore` files, `.git/info/exclude`, `.powerignore` and the current
// task type's exclude globs (recite.yaml files.task_types) leave, plus the
// never-exclude files that exist: files named by the current plan, by
// recorded errors (the targets' conversations, the latest preservation
// block, the active loop), by the targets' include lists and by include.
// The global excludes file is not read (scope.Scope.Files). Errors:
// *InputError for an include path outside the project, a bad recite.yaml
// or an unreadable ignore file.
func (e *Engine) Files(ctx context.Context, include []string) ([]FileEntry, error) {
	cfg, proj, err := e.loadScope(include)
	if err != nil {
		return nil, err
	}
	return e.scope.Files(ctx, cfg, proj, include)
}

// ErrNotInProject is Why's error for a path that does not exist or lies
// outside the project root (scope.ErrNotInProject); the CLI exits 1 on it.
var ErrNotInProject = scope.ErrNotInProject

// Why explains the verdict on one path like `git check-ignore -v`: the
// deciding file, line and pattern (a task-type glob names recite.yaml and
// the task type), or "never-exclude: named by …" (for a file named by an
// error: "never-exclude: named by error at SOURCE"), or, for a path under
// .git/ or beyond a symbolic link that leaves the project, "excluded: …"
// (scope.Scope.Why). Errors as for Files, and ErrNotInProject (wrapped)
// for a path that does not exist or lies outside the project root.
func (e *Engine) Why(ctx context.Context, rel string, include []string) (Explanation, error) {
	cfg, proj, err := e.loadScope(include)
	if err != nil {
		return Explanation{}, err
	}
	return e.scope.Why(ctx, cfg, proj, rel, include)
}

// loadScope checks the include paths and reads what the file scope depends
// on: recite.yaml (an error is an *InputError) and the planning tree (an
// empty Project when it cannot be read: a project without a planning tree
// still has files).
func (e *Engine) loadScope(include []string) (*config.Config, *planning.Project, error) {
	if err := scope.CheckIncludes(include); err != nil {
		return nil, nil, err
	}
	cfg, _, err := config.Load(e.dir)
	if err != nil {
		return nil, nil, &InputError{Err: err}
	}
	proj := &planning.Project{}
	if pdir, err := e.planningDir(); err == nil {
		if p, err := planning.LoadWith(fsutil.DirFS(pdir), e.parsed, e.workstreamOptions(pdir, nil)); err == nil {
			proj = p
		}
	}
	return cfg, proj, nil
}

package scope

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/ignore"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/planning"
)

// Files returns the project files that may enter context, sorted: what
// `.gitignore` files, `.git/info/exclude`, `.powerignore` and the current
// task type's exclude globs (recite.yaml files.task_types) leave, plus the
// never-exclude files that exist: files named by the current plan, by
// recorded errors (the targets' conversations, the latest preservation
// block, the active loop), by the targets' include lists and by include.
// The global excludes file is not read.
func (sp *Scope) Files(ctx context.Context, cfg *config.Config, proj *planning.Project, include []string) ([]FileEntry, error) {
	m, sc, err := sp.Matcher(ctx, cfg, proj, include)
	if err != nil {
		return nil, err
	}
	paths, err := m.Walk(ctx, ignore.WalkOptions{Include: sc.Includes})
	if err != nil {
		return nil, err
	}
	why := map[string]string{}
	for _, inc := range sc.Includes {
		if _, seen := why[inc.Path]; seen {
			continue
		}
		if fi, err := os.Stat(filepath.Join(sp.dir, filepath.FromSlash(inc.Path))); err == nil && !fi.IsDir() && m.Match(inc.Path, false).Ignored {
			why[inc.Path] = inc.Reason
		}
	}
	// Walk returns the paths sorted bytewise.
	out := make([]FileEntry, 0, len(paths))
	for _, p := range paths {
		out = append(out, FileEntry{Path: p, NeverExclude: why[p]})
	}
	return out, nil
}

// ErrNotInProject is Why's error for a path that does not exist or lies
// outside the project root.
var ErrNotInProject = errors.New("not in the project")

// Explanation is the answer of Why: what the ignore files and the
// never-exclude list decide (ignore.Explanation; its fields are inlined in
// JSON), or, for a path that never enters context whatever they say, the
// reason in Excluded.
type Explanation struct {
	ignore.Explanation
	// Excluded says why the path can never enter context: ".git/ is never
	// part of context", or "beyond a symbolic link that leaves the
	// project"; "" otherwise.
	Excluded string `json:"excluded,omitempty"`
}

// String renders x like `git check-ignore -v` (see ignore.Explanation),
// or "excluded: REASON", a TAB and the path.
func (x Explanation) String() string {
	if x.Excluded != "" {
		return "excluded: " + x.Excluded + "\t" + x.Path
	}
	return x.Explanation.String()
}

// Why explains the verdict on one path like `git check-ignore -v`: the
// deciding file, line and pattern (a task-type glob names recite.yaml and
// the task type), or "never-exclude: named by …" (for a file named by an
// error: "never-exclude: named by error at SOURCE"), or, for a path under
// .git/ or beyond a symbolic link that leaves the project, "excluded: …".
// A path that does not exist or lies outside the project root is
// ErrNotInProject (wrapped, naming the path).
func (sp *Scope) Why(ctx context.Context, cfg *config.Config, proj *planning.Project, rel string, include []string) (Explanation, error) {
	m, sc, err := sp.Matcher(ctx, cfg, proj, include)
	if err != nil {
		return Explanation{}, err
	}
	c, err := ignore.Clean(rel)
	if err != nil {
		return Explanation{}, fmt.Errorf("%s: %w: outside the project root", rel, ErrNotInProject)
	}
	isDir := strings.HasSuffix(rel, "/")
	st, statErr := os.Lstat(filepath.Join(sp.dir, filepath.FromSlash(c)))
	if statErr == nil {
		isDir = st.IsDir()
	}
	x := Explanation{Explanation: m.Explain(c, isDir, sc.Includes)}
	switch {
	case inGitDir(c):
		x.Excluded = ".git/ is never part of context"
	case !sp.resolvesInside(c):
		x.Excluded = "beyond a symbolic link that leaves the project"
	}
	if x.Excluded != "" {
		x.InContext, x.Include = false, nil
	} else if errors.Is(statErr, fs.ErrNotExist) {
		return Explanation{}, fmt.Errorf("%s: %w: no such file or directory", rel, ErrNotInProject)
	}
	return x, nil
}

// inGitDir reports whether slash path rel is a .git directory or inside
// one (the project's or a nested repository's): never listed, never
// read, whatever the ignore files or a never-exclude entry say.
func inGitDir(rel string) bool {
	for _, part := range strings.Split(rel, "/") {
		if part == ".git" {
			return true
		}
	}
	return false
}

// resolvesInside reports whether the directory of slash path rel,
// relative to the project, stays inside the project once every symbolic
// link on its way is resolved (issue 6 review: a plan naming
// src/dirlink/outside.txt, with src/dirlink a link to /tmp/x, must not
// list it). The last component is not followed: like git, recite lists a
// symbolic link as itself (src/dirlink), and the files section never
// reads one that leaves the project (projectFile). A directory that does
// not exist yet is judged by its longest existing ancestor.
func (sp *Scope) resolvesInside(rel string) bool {
	root, err := filepath.EvalSymlinks(sp.dir)
	if err != nil {
		return false
	}
	p := filepath.Dir(filepath.Join(sp.dir, filepath.FromSlash(rel)))
	for {
		real, err := filepath.EvalSymlinks(p)
		if err == nil {
			r, err := filepath.Rel(root, real)
			return err == nil && (r == "." || filepath.IsLocal(r))
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return false
		}
		parent := filepath.Dir(p)
		if parent == p {
			return false
		}
		p = parent
	}
}

// keepInside drops the never-exclude entries that name a path under .git
// or beyond a symbolic link that leaves the project (resolvesInside): git
// itself never lists a path beyond a symbolic link, and the walk of
// included paths would otherwise follow the link.
func (sp *Scope) keepInside(incs []ignore.Include) []ignore.Include {
	kept := incs[:0:0]
	for _, inc := range incs {
		if inGitDir(inc.Path) || !sp.resolvesInside(inc.Path) {
			continue
		}
		kept = append(kept, inc)
	}
	return kept
}

// CheckIncludes checks --include paths: each must be relative to the
// project and stay inside it, else a *layout.InputError naming it.
func CheckIncludes(include []string) error {
	for _, p := range include {
		if c := path.Clean(filepath.ToSlash(p)); !fs.ValidPath(strings.TrimPrefix(c, "./")) || c == "." {
			return &layout.InputError{Err: fmt.Errorf("--include %q: a path must be relative to the project and stay inside it", p)}
		}
	}
	return nil
}

// InsideProject rejects a project-relative path rel that resolves outside
// the project root through a symbolic link: the longest existing prefix of
// the path, with every link on it followed (a dangling last link judged by
// where it points), must stay inside root. Unlike resolvesInside it
// follows the last component too, for a path a caller is about to open or
// explain. Errors name rel: a path that resolves outside, or one whose
// links cannot be read.
func InsideProject(root, rel string) error {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return err
	}
	outside := fmt.Errorf("path %q resolves outside the project through a symbolic link", rel)
	within := func(real string) bool {
		r, err := filepath.Rel(realRoot, real)
		return err == nil && (r == "." || filepath.IsLocal(r))
	}
	for q := filepath.Join(root, filepath.FromSlash(rel)); ; q = filepath.Dir(q) {
		real, err := filepath.EvalSymlinks(q)
		if err == nil {
			if !within(real) {
				return outside
			}
			return nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("path %q: %w", rel, err)
		}
		if t, lerr := os.Readlink(q); lerr == nil {
			// A dangling link: judge it by where it points.
			if !filepath.IsAbs(t) {
				if dir, derr := filepath.EvalSymlinks(filepath.Dir(q)); derr == nil {
					t = filepath.Join(dir, t)
				}
			}
			if !within(filepath.Clean(t)) {
				return outside
			}
		}
		if filepath.Dir(q) == q {
			return outside
		}
	}
}

// Matcher loads the ignore files with the current task type's globs and
// computes the never-exclude list over every target's conversation, for
// the configuration cfg and the planning tree proj (an empty Project when
// it could not be read). Errors: *layout.InputError for an --include path
// outside the project or an unreadable ignore file; other load errors.
func (sp *Scope) Matcher(ctx context.Context, cfg *config.Config, proj *planning.Project, include []string) (*ignore.Matcher, Set, error) {
	if err := CheckIncludes(include); err != nil {
		return nil, Set{}, err
	}
	var convs []string
	for _, t := range cfg.Targets {
		if t.Conversation != "" {
			convs = append(convs, t.Conversation)
		}
	}
	sc := sp.Compute(ctx, cfg, proj, convs, cfg.Targets, include)
	sc.Includes = sp.keepInside(sc.Includes)
	m, err := ignore.Load(sp.dir)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, sc, &layout.InputError{Err: err}
		}
		return nil, sc, err
	}
	m.SetExtra(sc.Extra)
	return m, sc, nil
}

package scope

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// OutsideError is a file refused because a symbolic link on its way leads
// out of the folder it must stay in (the project, or the planning folder
// for planning files): Link is the link (a slash path as the caller named
// the file, so "AGENTS.md" or ".planning/templates/roles/x.md"), Target
// what it points to as written, Resolved where it leads once every link
// is followed ("" when the same as Target or dangling), Boundary the
// folder left ("the project").
type OutsideError struct {
	Path, Link, Target, Resolved, Boundary string
}

func (e *OutsideError) Error() string {
	to := e.Target
	if e.Resolved != "" && e.Resolved != e.Target {
		to += " (" + e.Resolved + ")"
	}
	if e.Link == e.Path {
		return fmt.Sprintf("%s is a symbolic link to %s, outside %s; not read", e.Link, to, e.Boundary)
	}
	return fmt.Sprintf("%s: %s is a symbolic link to %s, outside %s; not read", e.Path, e.Link, to, e.Boundary)
}

// linkOutside returns the *OutsideError for the slash path rel below root
// when a symbolic link on its way — a folder or the file itself, through
// any chain of links, dangling or not — resolves outside root (root's own
// links are followed first: a project reached through a link is fine);
// nil when rel stays inside or does not exist. shown is prefixed to paths
// in the error, boundary names root.
func linkOutside(root, rel, shown, boundary string) *OutsideError {
	abs, err := filepath.Abs(root)
	if err != nil {
		return nil
	}
	realRoot, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil
	}
	within := func(p string) bool {
		r, err := filepath.Rel(realRoot, p)
		return err == nil && (r == "." || filepath.IsLocal(r))
	}
	cur := realRoot
	parts := strings.Split(path.Clean(rel), "/")
	for i, part := range parts {
		next := filepath.Join(cur, part)
		fi, err := os.Lstat(next)
		if err != nil {
			return nil // missing: nothing is read
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		target, err := os.Readlink(next)
		if err != nil {
			return nil
		}
		resolved, err := filepath.EvalSymlinks(next)
		if err != nil {
			// Dangling: judge it by where it points.
			resolved = target
			if !filepath.IsAbs(resolved) {
				resolved = filepath.Join(cur, resolved)
			}
			resolved = filepath.Clean(resolved)
		}
		if !within(resolved) {
			e := &OutsideError{Path: shown + rel, Link: shown + strings.Join(parts[:i+1], "/"), Target: target, Boundary: boundary}
			if resolved != target {
				e.Resolved = resolved
			}
			return e
		}
		cur = resolved
	}
	return nil
}

// MaxPreservedFile bounds what is read of context-preserved.md through
// ReadFile, in bytes: the file is append-only and only its latest block
// counts, but it is read whole up to this size.
const MaxPreservedFile = 1 << 30

// ReadFile reads the project file rel (a slash path relative to the
// project root) when it resolves inside the root once every symbolic link
// on its way is followed, through an os.Root (so a link swapped in
// between the check and the open is refused too), at most limit bytes
// plus one (the caller sees that the file is longer). This is the one
// door for files recite reads into a prompt: system and default
// AGENTS.md/CLAUDE.md files, tools and skills, context-preserved.md, and
// the files section (task files, files named by errors, include lists);
// the rule is
// docs/formats.md#files-from-outside-the-project. Errors: an
// *OutsideError naming the link and its target (errors.As), a file that
// is not a regular file, the read's own (fs.ErrNotExist for a missing
// file).
func ReadFile(root, rel string, limit int64) ([]byte, error) {
	return readInside(root, rel, limit, "", "the project")
}

// readInside is ReadFile with the error's path prefix and boundary name.
func readInside(root, rel string, limit int64, shown, boundary string) ([]byte, error) {
	clean := path.Clean(filepath.ToSlash(rel))
	if !fs.ValidPath(clean) || clean == "." {
		return nil, fmt.Errorf("path %q leaves %s", rel, boundary)
	}
	if oe := linkOutside(root, clean, shown, boundary); oe != nil {
		return nil, oe
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	f, err := r.Open(filepath.FromSlash(clean))
	if err != nil {
		if oe := linkOutside(root, clean, shown, boundary); oe != nil {
			return nil, oe
		}
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s%s is not a regular file", shown, clean)
	}
	return io.ReadAll(io.LimitReader(f, limit+1))
}

// FS returns the folder dir as an fs.FS whose files must resolve inside
// dir once their symbolic links are followed, read through an os.Root: a
// link that leads out is an *OutsideError (wrapped in the *fs.PathError of
// the open) naming the link, its target and boundary, with shown (such as
// ".planning/") before the paths. The role templates under
// .planning/templates/ are read through it, with the planning folder as
// dir (a .planning that is itself a link to a folder elsewhere is
// followed: that folder is the boundary).
func FS(dir, shown, boundary string) fs.FS {
	return insideFS{dir: dir, shown: shown, boundary: boundary}
}

type insideFS struct{ dir, shown, boundary string }

// Open opens name (fs.FS).
func (f insideFS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	if oe := linkOutside(f.dir, name, f.shown, f.boundary); oe != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: oe}
	}
	r, err := os.OpenRoot(f.dir)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	file, err := r.Open(filepath.FromSlash(name))
	if err != nil {
		var oe *OutsideError
		if o := linkOutside(f.dir, name, f.shown, f.boundary); o != nil && !errors.As(err, &oe) {
			return nil, &fs.PathError{Op: "open", Path: name, Err: o}
		}
		return nil, err
	}
	return file, nil
}

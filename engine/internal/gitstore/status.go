package gitstore

import (
	"fmt"
	"os"
	"path"
	"path/filepath"
	"slices"

	"github.com/go-git/go-billy/v5"
	git "github.com/go-git/go-git/v5"
)

// ModifiedFiles lists the files of the work tree containing repoDir that
// differ from HEAD or the index — staged, unstaged or untracked and not
// ignored — as slash paths relative to the work-tree root, sorted. It uses
// go-git's Worktree.Status (docs/architecture.md#committing: slower than
// `git status` when many files are ignored).
//
// skip, when not nil, names work-tree paths (slash, from the root) the
// status must not read: they are hidden from the status, so their content
// is never hashed, and they are left out of the result. go-git hashes the
// whole of every file whose size or time differs from the index, which for
// a conversation log of hundreds of megabytes recite has just appended to
// is most of the cost of a hook event. Errors: ErrNoRepository, status
// errors (wrapped).
func ModifiedFiles(repoDir string, skip func(string) bool) ([]string, error) {
	repo, _, _, err := open(repoDir)
	if err != nil {
		return nil, err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoRepository, err)
	}
	if skip != nil {
		wt.Filesystem = hiding{wt.Filesystem, skip}
	}
	status, err := wt.Status()
	if err != nil {
		return nil, fmt.Errorf("git status: %w", err)
	}
	var out []string
	for p, st := range status {
		if st.Staging == git.Unmodified && st.Worktree == git.Unmodified || skip != nil && skip(p) {
			continue
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return out, nil
}

// hiding is a work tree whose directory listings leave out the paths skip
// names, so a status walk never opens them.
type hiding struct {
	billy.Filesystem
	skip func(string) bool
}

// ReadDir lists dir without the entries skip names.
func (h hiding) ReadDir(dir string) ([]os.FileInfo, error) {
	infos, err := h.Filesystem.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	base := filepath.ToSlash(filepath.Clean(dir))
	return slices.DeleteFunc(infos, func(fi os.FileInfo) bool {
		p := fi.Name()
		if base != "." && base != "/" && base != "" {
			p = path.Join(base, p)
		}
		return h.skip(p)
	}), nil
}

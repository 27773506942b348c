package gitstore

import (
	"fmt"
	"slices"

	git "github.com/go-git/go-git/v5"
)

// ModifiedFiles lists the files of the work tree containing repoDir that
// differ from HEAD or the index — staged, unstaged or untracked and not
// ignored — as slash paths relative to the work-tree root, sorted. It uses
// go-git's Worktree.Status (TRAPS.md §B3: slower than `git status` when many
// files are ignored). Errors: ErrNoRepository, status errors (wrapped).
func ModifiedFiles(repoDir string) ([]string, error) {
	repo, _, _, err := open(repoDir)
	if err != nil {
		return nil, err
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoRepository, err)
	}
	status, err := wt.Status()
	if err != nil {
		return nil, fmt.Errorf("git status: %w", err)
	}
	var out []string
	for p, st := range status {
		if st.Staging == git.Unmodified && st.Worktree == git.Unmodified {
			continue
		}
		out = append(out, p)
	}
	slices.Sort(out)
	return out, nil
}

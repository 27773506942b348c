package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Root is the nearest directory at or above dir holding a .git entry (a
// folder, or the file of a linked worktree), or "" when there is none or
// a .git entry cannot be read. dir should be absolute.
func Root(dir string) string {
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		} else if !errors.Is(err, os.ErrNotExist) {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// Head is the commit HEAD named at one moment: the zero Head is "not
// known" (outside a git repository, or HEAD could not be read); a known
// Head on an unborn branch (no commit yet) has the zero hash.
type Head struct {
	hash plumbing.Hash
	ok   bool
}

// openProject opens the repository holding the project at dir (found as
// Root finds it: the nearest .git at or above dir, linked worktrees
// included) and returns it with the project's slash-separated prefix
// inside the work tree ("." when the project is the work tree's root).
func openProject(dir string) (*git.Repository, string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", err
	}
	root := Root(abs)
	if root == "" {
		return nil, "", git.ErrRepositoryNotExists
	}
	prefix, err := filepath.Rel(root, abs)
	if err != nil {
		return nil, "", err
	}
	repo, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, "", err
	}
	return repo, filepath.ToSlash(prefix), nil
}

// HeadOf reads the commit HEAD of the repository holding the project at
// dir names now (one reference lookup). Any failure is the zero Head.
func HeadOf(dir string) Head {
	repo, _, err := openProject(dir)
	if err != nil {
		return Head{}
	}
	ref, err := repo.Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		return Head{ok: true} // unborn branch
	}
	if err != nil {
		return Head{}
	}
	return Head{hash: ref.Hash(), ok: true}
}

// ChangedSince lists the files that differ between the trees of the
// commit before named and the one HEAD names now, as slash paths from the
// work tree's root (each side of a rename counted), with the project's
// prefix in the work tree ("." for its root). When HEAD moved to an
// unrelated branch, that is every file the two trees hold differently; an
// unborn HEAD is the empty tree. ok is false, and nothing but HEAD is
// read, when before is not known or HEAD did not move; it is false too on
// any git failure or when ctx ends the diff.
func ChangedSince(ctx context.Context, dir string, before Head) (prefix string, paths []string, ok bool) {
	if !before.ok {
		return "", nil, false
	}
	repo, prefix, err := openProject(dir)
	if err != nil {
		return "", nil, false
	}
	var now plumbing.Hash
	if ref, err := repo.Head(); err == nil {
		now = ref.Hash()
	} else if !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return "", nil, false
	}
	if now == before.hash {
		return "", nil, false
	}
	tree := func(h plumbing.Hash) (*object.Tree, error) {
		if h.IsZero() {
			return nil, nil // unborn: the empty tree
		}
		c, err := repo.CommitObject(h)
		if err != nil {
			return nil, err
		}
		return c.Tree()
	}
	from, err := tree(before.hash)
	if err != nil {
		return "", nil, false
	}
	to, err := tree(now)
	if err != nil {
		return "", nil, false
	}
	changes, err := object.DiffTreeWithOptions(ctx, from, to, nil)
	if err != nil {
		return "", nil, false
	}
	for _, ch := range changes {
		for _, p := range []string{ch.From.Name, ch.To.Name} {
			if p != "" {
				paths = append(paths, p)
			}
		}
	}
	return prefix, paths, true
}

package gitstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-git/go-billy/v5"
	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/storage/filesystem"
	"github.com/go-git/go-git/v5/storage/filesystem/dotgit"
)

// openRepo opens the repository whose work tree holds dir, found as git
// finds it: the nearest .git at or above dir (Root), a folder or the
// "gitdir:" file of a linked worktree. It returns the repository, the
// work-tree root and the worktree's own git directory (where HEAD, the
// index and the state of a merge or rebase live; .git/worktrees/NAME for
// a linked worktree, whose objects, refs and configuration come from the
// common directory its commondir file names, as git's
// gitrepository-layout(5) describes).
//
// go-git's PlainOpen refuses every repository whose configuration sets
// extensions.worktreeConfig (go-git v5.19 compares the lowercased name
// with "worktreeConfig"), which `git sparse-checkout` and many `git
// worktree` setups turn on; the storage given to go-git hides that one
// extension (gitstore reads config.worktree itself where it matters:
// core.sparseCheckout). Other extensions go-git does not know still fail.
// Errors: git.ErrRepositoryNotExists outside a repository; a .git file
// or commondir that does not lead to a git directory; go-git's own.
func openRepo(dir string) (*git.Repository, string, string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, "", "", err
	}
	if fi, err := os.Stat(abs); err == nil && !fi.IsDir() {
		abs = filepath.Dir(abs)
	}
	top := Root(abs)
	if top == "" {
		return nil, "", "", git.ErrRepositoryNotExists
	}
	gitDir, err := gitDirOf(top)
	if err != nil {
		return nil, "", "", err
	}
	var fs billy.Filesystem = osfs.New(gitDir)
	if b, err := os.ReadFile(filepath.Join(gitDir, "commondir")); err == nil {
		common := strings.TrimSpace(string(b))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitDir, common)
		}
		if fi, err := os.Stat(common); err != nil || !fi.IsDir() {
			return nil, "", "", fmt.Errorf("%s/commondir names %s, which is not a git directory", gitDir, common)
		}
		fs = dotgit.NewRepositoryFilesystem(fs, osfs.New(common))
	}
	st := storage{filesystem.NewStorage(fs, cache.NewObjectLRUDefault())}
	repo, err := git.Open(st, osfs.New(top))
	if err != nil {
		return nil, "", "", err
	}
	return repo, top, gitDir, nil
}

// gitDirOf returns the git directory of the work tree top: top/.git when
// it is a folder, else the folder its "gitdir: PATH" line names (relative
// to top when not absolute).
func gitDirOf(top string) (string, error) {
	p := filepath.Join(top, ".git")
	fi, err := os.Stat(p)
	if err != nil {
		return "", err
	}
	if fi.IsDir() {
		return p, nil
	}
	b, err := os.ReadFile(p)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(b), "\n")
	gd, ok := strings.CutPrefix(strings.TrimSpace(line), "gitdir:")
	if !ok {
		return "", fmt.Errorf("%s has no gitdir: line", p)
	}
	gd = strings.TrimSpace(gd)
	if !filepath.IsAbs(gd) {
		gd = filepath.Join(top, gd)
	}
	if fi, err := os.Stat(gd); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s names %s, which is not a git directory", p, gd)
	}
	return gd, nil
}

// storage is the repository's filesystem storage with
// extensions.worktreeConfig hidden from go-git (see openRepo), and no way
// to write the configuration back without it.
type storage struct{ *filesystem.Storage }

// Config reads the repository's configuration, without
// extensions.worktreeConfig.
func (s storage) Config() (*config.Config, error) {
	cfg, err := s.Storage.Config()
	if err != nil || cfg.Raw == nil || !cfg.Raw.HasSection("extensions") {
		return cfg, err
	}
	cfg.Raw.Section("extensions").RemoveOption("worktreeConfig")
	return cfg, nil
}

// errConfigReadOnly: gitstore never writes the git configuration.
var errConfigReadOnly = errors.New("gitstore: the git configuration is read-only")

// SetConfig refuses: the configuration Config returns lacks an extension.
func (s storage) SetConfig(*config.Config) error { return errConfigReadOnly }

package gitstore

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/format/config"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/format/index"
)

// Sentinel errors of the repository's state.
const (
	// ErrInProgress: a merge, rebase, am, cherry-pick, revert or bisect is
	// in progress, or the index holds unmerged entries. git itself refuses
	// a partial commit (`git commit -- PATHS`) during a merge, cherry-pick
	// or revert and with unmerged files; recite refuses during the others
	// too, since its commit would land in the middle of the user's
	// operation (on a detached HEAD for a rebase or bisect).
	ErrInProgress Error = "refusing to commit during a git operation"
	// ErrIndexExtension: the index uses an extension go-git cannot read
	// and recite cannot write back (a split index, "link"; a sparse
	// index, "sdir").
	ErrIndexExtension Error = "the git index uses an extension recite cannot write"
	// ErrSparse: core.sparseCheckout is on and a history path is outside
	// the sparse checkout: git would not check it out, and a commit made
	// from the work tree would be lost at the next `git sparse-checkout
	// reapply`.
	ErrSparse Error = "the history paths are outside the sparse checkout"
)

// operation is a git operation that leaves a file in the git directory
// while it is in progress, as git's wt-status.c detects them.
type operation struct {
	file, what, fix string
}

// operations are checked in this order: git am and the apply backend of
// rebase share rebase-apply/ (am adds rebase-apply/applying).
var operations = []operation{
	{"rebase-apply/applying", "a git am", "`git am --continue` or `git am --abort`"},
	{"rebase-apply", "a rebase", "`git rebase --continue` or `git rebase --abort`"},
	{"rebase-merge", "a rebase", "`git rebase --continue` or `git rebase --abort`"},
	{"MERGE_HEAD", "a merge", "`git commit` or `git merge --abort`"},
	{"CHERRY_PICK_HEAD", "a cherry-pick", "`git cherry-pick --continue` or `git cherry-pick --abort`"},
	{"REVERT_HEAD", "a revert", "`git revert --continue` or `git revert --abort`"},
	{"BISECT_LOG", "a bisect", "`git bisect reset`"},
}

// checkOperation returns ErrInProgress, wrapped with the operation's name,
// the file that shows it and how to end it, when gitDir (the worktree's
// own git directory) shows one in progress.
func checkOperation(gitDir string) error {
	for _, op := range operations {
		if _, err := os.Lstat(filepath.Join(gitDir, filepath.FromSlash(op.file))); err == nil {
			file, _, _ := strings.Cut(op.file, "/")
			return fmt.Errorf("%w: %s is in progress (%s); finish it with %s, then commit the history", ErrInProgress, op.what, file, op.fix)
		}
	}
	return nil
}

// checkUnmerged returns ErrInProgress naming the first unmerged paths of
// idx (entries of stage 1 to 3), as `git commit` refuses "because you have
// unmerged files".
func checkUnmerged(idx *index.Index) error {
	var names []string
	for _, e := range idx.Entries {
		// Stage 0 is a merged entry (go-git's index.Merged constant is 1).
		if e.Stage != 0 && !slices.Contains(names, e.Name) {
			names = append(names, e.Name)
		}
	}
	if len(names) == 0 {
		return nil
	}
	slices.Sort(names)
	list := strings.Join(names[:min(len(names), 5)], ", ")
	if len(names) > 5 {
		list += fmt.Sprintf(", and %d more", len(names)-5)
	}
	return fmt.Errorf("%w: the index has unmerged files (%s); resolve them and `git add` them, or `git reset --merge`, then commit the history", ErrInProgress, list)
}

// indexExtensionHelp says how to turn off each index extension go-git
// cannot decode.
var indexExtensionHelp = map[string]string{
	"link": "a split index, from `git update-index --split-index` or core.splitIndex; run `git update-index --no-split-index` (and `git config core.splitIndex false` if it is set)",
	"sdir": "a sparse index, from `git sparse-checkout set --sparse-index` or index.sparse; run `git sparse-checkout reapply --no-sparse-index`",
}

// explainIndexError turns go-git's index.ErrUnknownExtension into
// ErrIndexExtension naming the extensions the index file at path holds
// that go-git does not read, and what to do about each; other errors come
// back as they are.
func explainIndexError(path string, err error) error {
	if !errors.Is(err, index.ErrUnknownExtension) {
		return err
	}
	b, rerr := os.ReadFile(path)
	if rerr != nil {
		return err
	}
	exts, perr := indexExtensions(b)
	if perr != nil {
		return fmt.Errorf("%w (%v): %w", ErrIndexExtension, perr, err)
	}
	var parts []string
	for _, x := range exts {
		if len(x) == 4 && (x[0] < 'A' || x[0] > 'Z') && x != "TREE" && x != "REUC" && x != "EOIE" {
			help := indexExtensionHelp[x]
			if help == "" {
				help = "unknown to recite; a newer git wrote it"
			}
			parts = append(parts, fmt.Sprintf("%q: %s", x, help))
		}
	}
	return fmt.Errorf("%w: extension %s; then commit the history", ErrIndexExtension, strings.Join(parts, "; "))
}

// sparseCheck is what checkSparse needs: the repository, its worktree's
// git directory, and the history prefixes (slash paths from the work-tree
// root) with whether each names a folder.
type sparseCheck struct {
	repo     *git.Repository
	gitDir   string
	prefixes map[string]bool
}

// check returns ErrSparse when core.sparseCheckout is on (in the
// repository's configuration or the worktree's config.worktree) and a
// prefix falls outside the patterns of the worktree's
// info/sparse-checkout, matched as git matches them (gitignore syntax; a
// cone's patterns are of that syntax too).
func (c sparseCheck) check() error {
	on, err := c.sparseOn()
	if err != nil || !on {
		return err
	}
	f, err := os.Open(filepath.Join(c.gitDir, "info", "sparse-checkout"))
	if errors.Is(err, os.ErrNotExist) {
		return nil // git checks out everything without the file
	}
	if err != nil {
		return fmt.Errorf("read sparse-checkout: %w", err)
	}
	defer f.Close()
	var ps []gitignore.Pattern
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSuffix(sc.Text(), "\r")
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		ps = append(ps, gitignore.ParsePattern(line, nil))
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read sparse-checkout: %w", err)
	}
	m := gitignore.NewMatcher(ps)
	var out []string
	for p, dir := range c.prefixes {
		if !m.Match(strings.Split(p, "/"), dir) {
			out = append(out, p)
		}
	}
	if len(out) == 0 {
		return nil
	}
	slices.Sort(out)
	top := strings.Split(out[0], "/")[0]
	return fmt.Errorf("%w: %s (core.sparseCheckout); run `git sparse-checkout add %s`, or `git sparse-checkout disable`, then commit the history", ErrSparse, strings.Join(out, ", "), top)
}

// sparseOn reports core.sparseCheckout, the worktree's config.worktree
// overriding the repository's configuration.
func (c sparseCheck) sparseOn() (bool, error) {
	cfg, err := c.repo.Config()
	if err != nil {
		return false, fmt.Errorf("read git config: %w", err)
	}
	on := gitBool(cfg.Raw.Section("core").Option("sparseCheckout"))
	if f, err := os.Open(filepath.Join(c.gitDir, "config.worktree")); err == nil {
		defer f.Close()
		raw := config.New()
		if err := config.NewDecoder(f).Decode(raw); err != nil {
			return false, fmt.Errorf("read config.worktree: %w", err)
		}
		if raw.Section("core").HasOption("sparseCheckout") {
			on = gitBool(raw.Section("core").Option("sparseCheckout"))
		}
	}
	return on, nil
}

// gitBool is a git configuration boolean (git-config(1) "Values").
func gitBool(v string) bool {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "true", "yes", "on", "1":
		return true
	}
	return false
}

// preflight checks what a commit needs of the repository before it looks
// at HEAD: no operation in progress (checkOperation), prefixes inside the
// work tree and not beyond a symbolic link (normPrefixes), and inside the
// sparse checkout when there is one. It returns the normalized prefixes.
func preflight(repo *git.Repository, repoDir, top, gitDir string, prefixes []string) ([]string, error) {
	if err := checkOperation(gitDir); err != nil {
		return nil, err
	}
	pfx, err := normPrefixes(repoDir, top, prefixes)
	if err != nil {
		return nil, err
	}
	dirs := map[string]bool{}
	for i, p := range prefixes {
		if one, err := normPrefixes(repoDir, top, prefixes[i:i+1]); err == nil {
			dirs[one[0]] = strings.HasSuffix(filepath.ToSlash(p), "/")
		}
	}
	if err := (sparseCheck{repo: repo, gitDir: gitDir, prefixes: dirs}).check(); err != nil {
		return nil, err
	}
	return pfx, nil
}

// projectPrefix is repoDir's slash path from the work-tree root top with a
// trailing "/", or "" when repoDir is the root (symbolic links resolved on
// both, as normPrefixes does).
func projectPrefix(repoDir, top string) (string, error) {
	abs, err := filepath.Abs(repoDir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	rel, err := filepath.Rel(top, abs)
	if err != nil || rel == "." {
		return "", err
	}
	return filepath.ToSlash(rel) + "/", nil
}

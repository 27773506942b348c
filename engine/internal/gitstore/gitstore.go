// Package gitstore is recite's one door to git, through
// github.com/go-git/go-git/v5: it commits recite's own files — conversation
// logs and preservation blocks — and nothing else
// (docs/architecture.md#commit-only-recites-paths),
// lists the work tree's modified files (ModifiedFiles), and answers the
// read-only history questions the engine asks: the files the commits of a
// run changed (HeadOf, ChangedSince) and the commits that settled an error
// or landed an approach (History.CommitsTouching). It is the only package
// of recite that imports go-git; it imports no package of this module.
//
// # How a commit is made
//
// CommitPaths does what `git commit` does for a pathspec, without touching
// the user's other work: it takes .git/index.lock exactly as git does
// (O_EXCL create; waiting while another process holds it, because go-git
// itself ignores the lock; docs/architecture.md#committing), builds new tree objects from
// HEAD's tree plus the current work-tree content under the given prefixes,
// writes a commit, moves the branch HEAD points to, and finally rewrites the
// index with only the entries of those prefixes replaced, renaming the lock
// over .git/index. Worktree.Add and Worktree.Commit are not used: they stage
// ignored files and commit everything staged.
//
// The history is append-only: a commit adds and
// updates files, and never deletes one. A file HEAD tracks under a prefix
// but the work tree lacks — a log moved away, or `.planning/` renamed for a
// moment — stays in the commit as HEAD has it, its index entry is left as
// it is, and Result.Kept names it. Deleting recite's files from the history
// is left to the user's own git (`git rm`).
//
// Untracked files that .gitignore, .git/info/exclude or the global excludes
// file ignore are never committed; tracked files are committed even when an
// ignore rule matches them, as git does. Committer.Select narrows the files
// further and Committer.Scan sees every content before it is written.
//
// # The repository's state
//
// A linked worktree (`git worktree add`) commits like the main one, on its
// own branch with its own index (openRepo). Nothing is committed while a
// merge, rebase, am, cherry-pick, revert or bisect is in progress or the
// index holds unmerged entries (ErrInProgress), while the index uses an
// extension go-git cannot read — a split index or a sparse index
// (ErrIndexExtension, naming the git command that turns it off) — or when
// a sparse checkout leaves the history paths out (ErrSparse).
package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// Error is the type of this package's sentinel errors; compare with
// errors.Is.
type Error string

func (e Error) Error() string { return string(e) }

// Sentinel errors callers branch on.
const (
	// ErrNoRepository: repoDir is not inside a git work tree.
	ErrNoRepository Error = "not a git repository"
	// ErrDetachedHead: HEAD names a commit, not a branch; recite refuses to
	// commit rather than leave a commit reachable from no branch.
	ErrDetachedHead Error = "HEAD is detached; refusing to commit"
	// ErrIndexLocked: .git/index.lock stayed in place for the whole wait;
	// another git process is running, or one crashed and left the lock.
	ErrIndexLocked Error = "git index is locked"
	// ErrNoAuthor: neither the Signature nor git's user.name/user.email
	// configuration names an author.
	ErrNoAuthor Error = "no commit author"
	// ErrNoCommits: the branch HEAD points to has no commit yet and
	// Committer.NoRootCommit is set.
	ErrNoCommits Error = "the repository has no commits yet"
	// ErrBeyondSymlink: a folder on the way to a prefix is a symbolic link
	// (a .planning/ kept elsewhere). git cannot track files through one
	// ("pathspec is beyond a symbolic link"), and committing them would
	// replace the tracked link with a folder.
	ErrBeyondSymlink Error = "path is beyond a symbolic link"
)

// Defaults of Committer.
const (
	// DefaultLockWait bounds the total wait for another process's
	// .git/index.lock.
	DefaultLockWait = 5 * time.Second
	// DefaultLockPoll is the interval between attempts to take the lock.
	DefaultLockPoll = 50 * time.Millisecond
)

// Signature names the author (and committer) of a commit. A zero When means
// the current time; an empty Name or Email falls back to the repository's,
// then the user's, git configuration (user.name, user.email).
type Signature struct {
	Name, Email string
	When        time.Time
}

// Committer commits recite's paths. The zero value uses the defaults.
type Committer struct {
	// LockWait bounds the total time spent waiting for another process's
	// .git/index.lock (default DefaultLockWait).
	LockWait time.Duration
	// LockPoll is the retry interval while the lock is held (default
	// DefaultLockPoll).
	LockPoll time.Duration
	// NoRootCommit refuses to make a repository's first commit: on an
	// unborn branch CommitPaths returns ErrNoCommits and writes nothing, so
	// the user's own first commit stays the root.
	NoRootCommit bool
	// Select, when set, decides which files under the prefixes the commit
	// may add or update: it gets each file's slash path relative to the
	// repoDir given to Commit and whether git tracks it (in HEAD or the
	// index). A file it rejects is neither committed nor listed in Kept.
	// Untracked files the ignore rules exclude are left out before it is
	// asked (Result.Ignored).
	Select func(path string, tracked bool) bool
	// Scan, when set, is shown the content of every file the commit is
	// about to add or update (path as for Select), in path order, before
	// any object is written; when it returns an error for any file, the
	// commit stops after all were shown, with nothing written, and Commit
	// returns the errors joined (errors.Join).
	Scan func(path string, content []byte) error
	// AppendOnly, when set, names the files (path as for Select) that only
	// grow: one whose new content has fewer lines than HEAD's is not
	// committed, and Commit returns a *ShrunkError for each (joined), with
	// nothing written. Rewriting lines in place (a redaction migration)
	// keeps their number and passes.
	AppendOnly func(path string) bool
	// Content, when set, gives the part of each file (path as for Select)
	// the commit may take, from its work-tree content: a log up to its
	// last whole record. An error refuses the commit, as Scan's do; Scan
	// and AppendOnly see what Content returned.
	Content func(path string, content []byte) ([]byte, error)
}

// ErrShrunk is wrapped by a *ShrunkError.
const ErrShrunk Error = "an append-only file would lose lines against HEAD"

// ShrunkError is an append-only file (Committer.AppendOnly) whose content
// in the work tree has fewer lines than HEAD's: committing it would drop
// records from the branch's newest commit.
type ShrunkError struct {
	Path             string // as for Select
	HeadLines, Lines int    // line counts in HEAD and in the work tree
}

func (e *ShrunkError) Error() string {
	return fmt.Sprintf("%s: %d lines in HEAD, %d now: %s", e.Path, e.HeadLines, e.Lines, ErrShrunk)
}

// Unwrap returns ErrShrunk.
func (e *ShrunkError) Unwrap() error { return ErrShrunk }

// CommitPaths is Committer{}.CommitPaths: commit only the files under
// prefixes with the default lock wait.
func CommitPaths(ctx context.Context, repoDir string, prefixes []string, msg string, author Signature) (string, error) {
	return Committer{}.CommitPaths(ctx, repoDir, prefixes, msg, author)
}

// Result is what Committer.Commit did.
type Result struct {
	// Hash is the new commit's hash in hex; "" when the tree would not
	// change (no empty commits).
	Hash string
	// Kept lists the files under the prefixes that HEAD tracks and the work
	// tree lacks (missing, or a directory in their place), as slash paths
	// relative to the work-tree root, sorted. They stay in the commit as
	// HEAD has them and their index entries are untouched: the history is
	// append-only, and deleting it is left to the user's own git.
	Kept []string
	// Ignored lists the untracked work-tree files under the prefixes that
	// .gitignore, .git/info/exclude or the global excludes file exclude,
	// which are never committed (a folder excluded whole as its path and a
	// "/"); slash paths relative to the repoDir given to Commit, sorted.
	Ignored []string
	// Blocked lists the work-tree files under the prefixes that were not
	// committed because committing them would delete a file of Kept (a new
	// file below a path HEAD holds as a file, or a file where HEAD holds a
	// directory of tracked files); sorted, like Kept. They stay untracked.
	Blocked []string
}

// CommitPaths is Commit returning only the new commit's hash ("" when
// nothing changed).
func (c Committer) CommitPaths(ctx context.Context, repoDir string, prefixes []string, msg string, author Signature) (string, error) {
	res, err := c.Commit(ctx, repoDir, prefixes, msg, author)
	return res.Hash, err
}

// Commit commits the current work-tree content of the files under the
// given path prefixes, and nothing else, on the branch HEAD points to.
//
// repoDir is a directory inside the work tree (usually the project root);
// prefixes are slash- or OS-separated paths relative to repoDir, each naming
// a file or a directory (".planning/conversations/",
// ".planning/context-preserved.md"). Under the prefixes the commit adds new
// files and updates changed ones; it never deletes one: a file HEAD tracks
// that the work tree lacks stays as HEAD has it and is listed in
// Result.Kept (see the package comment). Untracked ignored files are
// skipped (never staged or committed).
//
// Result.Hash is the new commit's hash in hex, or "" when the tree would
// not change (no empty commits). Afterwards the index entries of the
// committed paths match the commit, so `git status` shows them clean,
// while every other index entry — the user's staged and unstaged changes,
// and the entries of the Kept files — is kept byte for byte. Index
// extensions (cache tree, untracked cache, resolve-undo) are dropped; git
// rebuilds them.
//
// Errors: ErrNoRepository; ErrDetachedHead; ErrIndexLocked (wrapped, after
// waiting up to LockWait or until ctx is done) — nothing is written while
// another process holds the lock; ErrNoAuthor; a prefix outside the work
// tree; I/O and object errors (wrapped). A repository without commits gets a
// root commit, or ErrNoCommits when NoRootCommit is set.
func (c Committer) Commit(ctx context.Context, repoDir string, prefixes []string, msg string, author Signature) (Result, error) {
	hash, st, err := c.commit(ctx, repoDir, prefixes, msg, author)
	res := Result{Hash: hash}
	if st != nil {
		res.Kept, res.Blocked, res.Ignored = st.kept, st.blocked, st.ignored
	}
	return res, err
}

func (c Committer) commit(ctx context.Context, repoDir string, prefixes []string, msg string, author Signature) (string, *state, error) {
	t, err := c.target(repoDir, prefixes, author)
	if err != nil {
		return "", nil, err
	}
	lock, err := c.lockIndex(ctx, t.gitDir)
	if err != nil {
		return "", nil, err
	}
	lockPath := lock.Name()
	committed := false
	defer func() {
		if !committed {
			_ = lock.Close()
			_ = os.Remove(lockPath)
		}
	}()

	idx, err := readIndex(t.gitDir)
	if err != nil {
		return "", nil, err
	}
	if err := checkUnmerged(idx); err != nil {
		return "", nil, err
	}
	parent, baseTree, err := branchTip(t.repo, t.branch)
	if err != nil {
		return "", nil, err
	}
	st := &state{repo: t.repo, top: t.top, gitDir: t.gitDir, prefixes: t.prefixes, project: t.project, sel: c.Select, scan: c.Scan, appendOnly: c.AppendOnly, content: c.Content}
	tmp := tmpObjects(t.gitDir)
	if err := st.collect(baseTree, idx); err != nil {
		removeTmpObjects(t.gitDir, tmp)
		return "", st, err
	}
	hash, err := st.commitChanges(t, parent, baseTree, msg)
	if err != nil {
		removeTmpObjects(t.gitDir, tmp)
		return "", st, err
	}
	if !st.updateIndex(idx) {
		return hash, st, nil // the deferred cleanup removes our lock
	}
	if err := writeIndex(lock, idx, t.gitDir); err != nil {
		return hash, st, err
	}
	committed = true
	return hash, st, nil
}

// commitTarget is what a commit needs before it takes the index lock: the
// repository, its work-tree root and git directory, the normalized
// prefixes, the branch HEAD points to and the signature.
type commitTarget struct {
	repo     *git.Repository
	top      string
	gitDir   string
	prefixes []string
	branch   plumbing.ReferenceName
	sig      object.Signature
	// project is repoDir's slash path from the work-tree root, ending in
	// "/" ("" at the root).
	project string
}

// target opens the repository containing repoDir and checks what a commit
// needs: prefixes inside the work tree, HEAD on a branch, an author, and
// (with NoRootCommit) a born branch.
func (c Committer) target(repoDir string, prefixes []string, author Signature) (*commitTarget, error) {
	repo, top, gitDir, err := open(repoDir)
	if err != nil {
		return nil, err
	}
	pfx, err := preflight(repo, repoDir, top, gitDir, prefixes)
	if err != nil {
		return nil, err
	}
	head, err := repo.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return nil, fmt.Errorf("read HEAD: %w", err)
	}
	if head.Type() != plumbing.SymbolicReference {
		return nil, fmt.Errorf("%w (at %s)", ErrDetachedHead, head.Hash())
	}
	branch := head.Target()
	sig, err := signature(repo, author)
	if err != nil {
		return nil, err
	}
	if c.NoRootCommit {
		if _, err := repo.Storer.Reference(branch); errors.Is(err, plumbing.ErrReferenceNotFound) {
			return nil, fmt.Errorf("%w (branch %s is unborn)", ErrNoCommits, branch.Short())
		}
	}
	project, err := projectPrefix(repoDir, top)
	if err != nil {
		return nil, err
	}
	return &commitTarget{repo: repo, top: top, gitDir: gitDir, prefixes: pfx, branch: branch, sig: sig, project: project}, nil
}

// branchTip returns the reference branch points to and its commit's tree;
// both are nil on an unborn branch (the next commit is a root commit).
func branchTip(repo *git.Repository, branch plumbing.ReferenceName) (*plumbing.Reference, *object.Tree, error) {
	ref, err := repo.Storer.Reference(branch)
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		return nil, nil, nil
	case err != nil:
		return nil, nil, fmt.Errorf("read %s: %w", branch, err)
	}
	commit, err := repo.CommitObject(ref.Hash())
	if err != nil {
		return nil, nil, fmt.Errorf("read commit %s: %w", ref.Hash(), err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, nil, fmt.Errorf("read tree of %s: %w", ref.Hash(), err)
	}
	return ref, tree, nil
}

// commitChanges writes the tree with the collected changes applied to
// baseTree and, when it differs, a commit of it on top of parent (none: a
// root commit), moving the branch only if it still points to parent. It
// returns the new commit's hash, "" when nothing changed.
func (s *state) commitChanges(t *commitTarget, parent *plumbing.Reference, baseTree *object.Tree, msg string) (string, error) {
	if len(s.treeChanges) == 0 {
		return "", nil
	}
	var baseHash plumbing.Hash
	if baseTree != nil {
		baseHash = baseTree.Hash
	}
	newTree, err := s.rebuild(baseHash, buildChangeTree(s.treeChanges))
	if err != nil {
		return "", err
	}
	if newTree == baseHash {
		return "", nil
	}
	commit := &object.Commit{
		Author:    t.sig,
		Committer: t.sig,
		Message:   ensureNewline(msg),
		TreeHash:  newTree,
	}
	if parent != nil {
		commit.ParentHashes = []plumbing.Hash{parent.Hash()}
	}
	obj := s.repo.Storer.NewEncodedObject()
	if err := commit.Encode(obj); err != nil {
		return "", fmt.Errorf("encode commit: %w", err)
	}
	h, err := s.repo.Storer.SetEncodedObject(obj)
	if err != nil {
		return "", fmt.Errorf("write commit: %w", err)
	}
	if err := s.repo.Storer.CheckAndSetReference(plumbing.NewHashReference(t.branch, h), parent); err != nil {
		return "", fmt.Errorf("update %s: %w", t.branch, err)
	}
	return h.String(), nil
}

// writeIndex encodes idx into the held index lock file, syncs it and
// renames it over .git/index, as git does.
func writeIndex(lock *os.File, idx *index.Index, gitDir string) error {
	if err := index.NewEncoder(lock).Encode(idx); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	if err := lock.Sync(); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	if err := lock.Close(); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	if err := os.Rename(lock.Name(), filepath.Join(gitDir, "index")); err != nil {
		return fmt.Errorf("write index: %w", err)
	}
	return nil
}

// Check reports, without writing anything, whether CommitPaths could commit
// the given prefixes (none: no prefix check) in the repository containing
// repoDir: ErrNoRepository, ErrBeyondSymlink, ErrDetachedHead, or (with
// NoRootCommit) ErrNoCommits; nil otherwise. The index lock and the author
// are not checked.
func (c Committer) Check(repoDir string, prefixes ...string) error {
	repo, top, gitDir, err := open(repoDir)
	if err != nil {
		return err
	}
	if _, err := preflight(repo, repoDir, top, gitDir, prefixes); err != nil {
		return err
	}
	idx, err := readIndex(gitDir)
	if err != nil {
		return err
	}
	if err := checkUnmerged(idx); err != nil {
		return err
	}
	head, err := repo.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return fmt.Errorf("read HEAD: %w", err)
	}
	if head.Type() != plumbing.SymbolicReference {
		return fmt.Errorf("%w (at %s)", ErrDetachedHead, head.Hash())
	}
	if c.NoRootCommit {
		if _, err := repo.Storer.Reference(head.Target()); errors.Is(err, plumbing.ErrReferenceNotFound) {
			return fmt.Errorf("%w (branch %s is unborn)", ErrNoCommits, head.Target().Short())
		}
	}
	return nil
}

// open finds the repository containing dir (openRepo) and returns it with
// the work-tree root and the worktree's git directory. Errors:
// ErrNoRepository outside a work tree (or in a bare repository).
func open(dir string) (*git.Repository, string, string, error) {
	repo, top, gitDir, err := openRepo(dir)
	if errors.Is(err, git.ErrRepositoryNotExists) || errors.Is(err, fs.ErrNotExist) {
		return nil, "", "", fmt.Errorf("%w: %s", ErrNoRepository, dir)
	}
	if err != nil {
		return nil, "", "", fmt.Errorf("open repository at %s: %w", dir, err)
	}
	return repo, top, gitDir, nil
}

// normPrefixes turns prefixes relative to repoDir into clean slash paths
// relative to the work-tree root top.
func normPrefixes(repoDir, top string, prefixes []string) ([]string, error) {
	absDir, err := filepath.Abs(repoDir)
	if err != nil {
		return nil, err
	}
	if real, err := filepath.EvalSymlinks(absDir); err == nil {
		absDir = real
	}
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	var out []string
	for _, p := range prefixes {
		if filepath.IsAbs(p) {
			return nil, fmt.Errorf("prefix %q: must be relative", p)
		}
		rel, err := filepath.Rel(top, filepath.Join(absDir, filepath.FromSlash(p)))
		if err != nil {
			return nil, fmt.Errorf("prefix %q: %w", p, err)
		}
		rel = filepath.ToSlash(rel)
		if rel == "." || rel == ".." || strings.HasPrefix(rel, "../") || rel == ".git" || strings.HasPrefix(rel, ".git/") {
			return nil, fmt.Errorf("prefix %q: outside the work tree or the whole tree", p)
		}
		parts := strings.Split(rel, "/")
		for i := 1; i < len(parts); i++ {
			dir := path.Join(parts[:i]...)
			if fi, err := os.Lstat(filepath.Join(top, filepath.FromSlash(dir))); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				return nil, fmt.Errorf("%w: %s (%s is a symbolic link; git cannot track the files it leads to)", ErrBeyondSymlink, rel, dir)
			}
		}
		out = append(out, rel)
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

func under(p, prefix string) bool {
	return p == prefix || strings.HasPrefix(p, prefix+"/")
}

// lockIndex takes .git/index.lock with O_EXCL, as git does, retrying while
// another process holds it (git's lockfile.c).
func (c Committer) lockIndex(ctx context.Context, gitDir string) (*os.File, error) {
	wait, poll := c.LockWait, c.LockPoll
	if wait <= 0 {
		wait = DefaultLockWait
	}
	if poll <= 0 {
		poll = DefaultLockPoll
	}
	lockPath := filepath.Join(gitDir, "index.lock")
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	t := time.NewTicker(poll)
	defer t.Stop()
	start := time.Now()
	for {
		f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, fmt.Errorf("lock index: %w", err)
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("%w: %s exists after %v (another git process is running, or remove the stale lock)",
				ErrIndexLocked, lockPath, time.Since(start).Round(time.Millisecond))
		case <-t.C:
		}
	}
}

func readIndex(gitDir string) (*index.Index, error) {
	idx := &index.Index{Version: 2}
	f, err := os.Open(filepath.Join(gitDir, "index"))
	if errors.Is(err, fs.ErrNotExist) {
		return idx, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read index: %w", err)
	}
	defer f.Close()
	if err := index.NewDecoder(f).Decode(idx); err != nil {
		return nil, fmt.Errorf("read index: %w", explainIndexError(f.Name(), err))
	}
	if idx.Version > index.EncodeVersionSupported {
		return nil, fmt.Errorf("read index: version %d not supported", idx.Version)
	}
	return idx, nil
}

func signature(repo *git.Repository, s Signature) (object.Signature, error) {
	if s.Name == "" || s.Email == "" {
		for _, scope := range []config.Scope{config.LocalScope, config.GlobalScope, config.SystemScope} {
			cfg, err := repo.ConfigScoped(scope)
			if err != nil {
				continue
			}
			if s.Name == "" {
				s.Name = cfg.User.Name
			}
			if s.Email == "" {
				s.Email = cfg.User.Email
			}
		}
	}
	if s.Name == "" || s.Email == "" {
		return object.Signature{}, fmt.Errorf("%w: set user.name and user.email", ErrNoAuthor)
	}
	if s.When.IsZero() {
		s.When = time.Now()
	}
	return object.Signature{Name: s.Name, Email: s.Email, When: s.When}, nil
}

func ensureNewline(msg string) string {
	if !strings.HasSuffix(msg, "\n") {
		msg += "\n"
	}
	return msg
}

// Package gitstore commits recite's own files — conversation logs and
// preservation blocks — with github.com/go-git/go-git/v5, and nothing else
// (DESIGN.md invariant 14).
//
// # How a commit is made
//
// CommitPaths does what `git commit` does for a pathspec, without touching
// the user's other work: it takes .git/index.lock exactly as git does
// (O_EXCL create; waiting while another process holds it, because go-git
// itself ignores the lock, TRAPS.md row 14), builds new tree objects from
// HEAD's tree plus the current work-tree content under the given prefixes,
// writes a commit, moves the branch HEAD points to, and finally rewrites the
// index with only the entries of those prefixes replaced, renaming the lock
// over .git/index. Worktree.Add and Worktree.Commit are not used: they stage
// ignored files (TRAPS.md §B3) and commit everything staged.
//
// The history is append-only (issue 7 review, bug 3): a commit adds and
// updates files, and never deletes one. A file HEAD tracks under a prefix
// but the work tree lacks — a log moved away, or `.planning/` renamed for a
// moment — stays in the commit as HEAD has it, its index entry is left as
// it is, and Result.Kept names it. Deleting recite's files from the history
// is left to the user's own git (`git rm`).
//
// Untracked files that .gitignore, .git/info/exclude or the global excludes
// file ignore are never committed; tracked files are committed even when an
// ignore rule matches them, as git does.
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

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/format/index"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

// Error is the type of this package's sentinel errors; compare with
// errors.Is.
type Error string

func (e Error) Error() string { return string(e) }

// Sentinel errors callers branch on (STYLE.md practice 5).
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
}

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
		res.Kept, res.Blocked = st.kept, st.blocked
	}
	return res, err
}

func (c Committer) commit(ctx context.Context, repoDir string, prefixes []string, msg string, author Signature) (string, *state, error) {
	repo, top, gitDir, err := open(repoDir)
	if err != nil {
		return "", nil, err
	}
	pfx, err := normPrefixes(repoDir, top, prefixes)
	if err != nil {
		return "", nil, err
	}
	head, err := repo.Storer.Reference(plumbing.HEAD)
	if err != nil {
		return "", nil, fmt.Errorf("read HEAD: %w", err)
	}
	if head.Type() != plumbing.SymbolicReference {
		return "", nil, fmt.Errorf("%w (at %s)", ErrDetachedHead, head.Hash())
	}
	branch := head.Target()
	sig, err := signature(repo, author)
	if err != nil {
		return "", nil, err
	}

	if c.NoRootCommit {
		if _, err := repo.Storer.Reference(branch); errors.Is(err, plumbing.ErrReferenceNotFound) {
			return "", nil, fmt.Errorf("%w (branch %s is unborn)", ErrNoCommits, branch.Short())
		}
	}

	lock, err := c.lockIndex(ctx, gitDir)
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

	idx, err := readIndex(gitDir)
	if err != nil {
		return "", nil, err
	}
	var parent *plumbing.Reference
	var baseTree *object.Tree
	switch ref, err := repo.Storer.Reference(branch); {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		// Unborn branch: the root commit.
	case err != nil:
		return "", nil, fmt.Errorf("read %s: %w", branch, err)
	default:
		parent = ref
		commit, err := repo.CommitObject(ref.Hash())
		if err != nil {
			return "", nil, fmt.Errorf("read commit %s: %w", ref.Hash(), err)
		}
		if baseTree, err = commit.Tree(); err != nil {
			return "", nil, fmt.Errorf("read tree of %s: %w", ref.Hash(), err)
		}
	}

	st := &state{repo: repo, top: top, gitDir: gitDir, prefixes: pfx}
	if err := st.collect(baseTree, idx); err != nil {
		return "", st, err
	}

	hash := ""
	if len(st.treeChanges) > 0 {
		var baseHash plumbing.Hash
		if baseTree != nil {
			baseHash = baseTree.Hash
		}
		newTree, err := st.rebuild(baseHash, buildChangeTree(st.treeChanges))
		if err != nil {
			return "", st, err
		}
		if newTree != baseHash {
			commit := &object.Commit{
				Author:    sig,
				Committer: sig,
				Message:   ensureNewline(msg),
				TreeHash:  newTree,
			}
			if parent != nil {
				commit.ParentHashes = []plumbing.Hash{parent.Hash()}
			}
			obj := repo.Storer.NewEncodedObject()
			if err := commit.Encode(obj); err != nil {
				return "", st, fmt.Errorf("encode commit: %w", err)
			}
			h, err := repo.Storer.SetEncodedObject(obj)
			if err != nil {
				return "", st, fmt.Errorf("write commit: %w", err)
			}
			if err := repo.Storer.CheckAndSetReference(plumbing.NewHashReference(branch, h), parent); err != nil {
				return "", st, fmt.Errorf("update %s: %w", branch, err)
			}
			hash = h.String()
		}
	}

	if !st.updateIndex(idx) {
		return hash, st, nil // the deferred cleanup removes our lock
	}
	if err := index.NewEncoder(lock).Encode(idx); err != nil {
		return hash, st, fmt.Errorf("write index: %w", err)
	}
	if err := lock.Sync(); err != nil {
		return hash, st, fmt.Errorf("write index: %w", err)
	}
	if err := lock.Close(); err != nil {
		return hash, st, fmt.Errorf("write index: %w", err)
	}
	if err := os.Rename(lockPath, filepath.Join(gitDir, "index")); err != nil {
		return hash, st, fmt.Errorf("write index: %w", err)
	}
	committed = true
	return hash, st, nil
}

// Check reports, without writing anything, whether CommitPaths could commit
// the given prefixes (none: no prefix check) in the repository containing
// repoDir: ErrNoRepository, ErrBeyondSymlink, ErrDetachedHead, or (with
// NoRootCommit) ErrNoCommits; nil otherwise. The index lock and the author
// are not checked.
func (c Committer) Check(repoDir string, prefixes ...string) error {
	repo, top, _, err := open(repoDir)
	if err != nil {
		return err
	}
	if _, err := normPrefixes(repoDir, top, prefixes); err != nil {
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

// open finds the repository containing dir and returns it with the work-tree
// root and the git directory.
func open(dir string) (*git.Repository, string, string, error) {
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true})
	if errors.Is(err, git.ErrRepositoryNotExists) {
		return nil, "", "", fmt.Errorf("%w: %s", ErrNoRepository, dir)
	}
	if err != nil {
		return nil, "", "", fmt.Errorf("open repository at %s: %w", dir, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, "", "", fmt.Errorf("%w: %s: %v", ErrNoRepository, dir, err)
	}
	fsys, ok := repo.Storer.(*filesystem.Storage)
	if !ok {
		return nil, "", "", fmt.Errorf("open repository at %s: unexpected storage %T", dir, repo.Storer)
	}
	return repo, wt.Filesystem.Root(), fsys.Filesystem().Root(), nil
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
// another process holds it (TRAPS.md row 14).
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
		return nil, fmt.Errorf("read index: %w", err)
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

// wantFile is the desired state of one path: its blob, mode and the stat
// information of the work-tree file it was read from.
type wantFile struct {
	hash plumbing.Hash
	mode filemode.FileMode
	info os.FileInfo
}

// state holds one CommitPaths run's view of the paths under the prefixes.
type state struct {
	repo     *git.Repository
	top      string
	gitDir   string
	prefixes []string

	want        map[string]*wantFile // desired present files
	candidates  map[string]bool      // every path seen in HEAD, index or work tree
	treeChanges map[string]*wantFile // path → new content (never a deletion)
	kept        []string             // tracked in HEAD, missing from the work tree
	blocked     []string             // work-tree files whose commit would delete a kept file
}

func (s *state) underAny(p string) bool {
	for _, pre := range s.prefixes {
		if under(p, pre) {
			return true
		}
	}
	return false
}

// collect gathers HEAD's, the index's and the work tree's files under the
// prefixes, writes blobs for the work-tree files, and computes the tree
// changes: additions and updates only (the history is append-only; see the
// package comment).
func (s *state) collect(base *object.Tree, idx *index.Index) error {
	s.want = map[string]*wantFile{}
	s.candidates = map[string]bool{}
	s.treeChanges = map[string]*wantFile{}
	inHead := map[string]object.TreeEntry{}
	if base != nil {
		for _, pre := range s.prefixes {
			e, err := base.FindEntry(pre)
			if err != nil {
				continue // not in HEAD
			}
			switch {
			case e.Mode == filemode.Dir:
				sub, err := base.Tree(pre)
				if err != nil {
					return fmt.Errorf("read tree %s: %w", pre, err)
				}
				w := object.NewTreeWalker(sub, true, nil)
				for {
					name, ent, err := w.Next()
					if err != nil {
						break
					}
					if ent.Mode.IsFile() {
						inHead[pre+"/"+name] = ent
					}
				}
				w.Close()
			case e.Mode.IsFile():
				inHead[pre] = *e
			}
		}
	}
	tracked := map[string]bool{}
	for p := range inHead {
		tracked[p] = true
		s.candidates[p] = true
	}
	for _, e := range idx.Entries {
		if s.underAny(e.Name) {
			tracked[e.Name] = true
			s.candidates[e.Name] = true
		}
	}

	ignored, err := s.matcher()
	if err != nil {
		return err
	}
	for _, pre := range s.prefixes {
		root := filepath.Join(s.top, filepath.FromSlash(pre))
		err := filepath.WalkDir(root, func(fp string, d fs.DirEntry, err error) error {
			if err != nil {
				if errors.Is(err, fs.ErrNotExist) {
					return nil
				}
				return err
			}
			rel, err := filepath.Rel(s.top, fp)
			if err != nil {
				return err
			}
			rel = filepath.ToSlash(rel)
			parts := strings.Split(rel, "/")
			if d.IsDir() {
				if d.Name() == ".git" {
					return fs.SkipDir
				}
				if fp != root {
					if _, err := os.Lstat(filepath.Join(fp, ".git")); err == nil {
						return fs.SkipDir // a nested repository
					}
				}
				if ignored.Match(parts, true) && !hasTrackedBelow(tracked, rel) {
					return fs.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() && d.Type()&fs.ModeSymlink == 0 {
				return nil
			}
			if !tracked[rel] && ignored.Match(parts, false) {
				return nil // never stage an ignored untracked file
			}
			s.candidates[rel] = true
			return nil
		})
		if err != nil {
			return fmt.Errorf("walk %s: %w", pre, err)
		}
	}

	for p := range s.candidates {
		w, err := s.readWorktree(p, tracked[p], ignored)
		if err != nil {
			return err
		}
		if w != nil {
			s.want[p] = w
		}
		old, was := inHead[p]
		switch {
		case w == nil && was:
			s.kept = append(s.kept, p) // never commit a deletion
		case w != nil && (!was || old.Hash != w.hash || old.Mode != w.mode):
			s.treeChanges[p] = w
		}
	}
	// A change that cannot enter the tree without deleting a file HEAD
	// holds — a file below a path HEAD has as a file, or a file where HEAD
	// has a directory — is not committed either.
	headDirs := map[string]bool{}
	for p := range inHead {
		for d := path.Dir(p); d != "." && !headDirs[d]; d = path.Dir(d) {
			headDirs[d] = true
		}
	}
	for p := range s.treeChanges {
		blocked := headDirs[p]
		for d := path.Dir(p); !blocked && d != "."; d = path.Dir(d) {
			_, blocked = inHead[d]
		}
		if blocked {
			delete(s.treeChanges, p)
			delete(s.want, p)
			s.blocked = append(s.blocked, p)
		}
	}
	slices.Sort(s.kept)
	slices.Sort(s.blocked)
	return nil
}

func hasTrackedBelow(tracked map[string]bool, dir string) bool {
	for p := range tracked {
		if under(p, dir) {
			return true
		}
	}
	return false
}

// readWorktree returns the desired state of p from the work tree, writing
// its blob, or nil when p is absent (or an untracked ignored file).
func (s *state) readWorktree(p string, tracked bool, ignored gitignore.Matcher) (*wantFile, error) {
	fp := filepath.Join(s.top, filepath.FromSlash(p))
	fi, err := os.Lstat(fp)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscallENOTDIR()) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("stat %s: %w", p, err)
	}
	var content []byte
	var mode filemode.FileMode
	switch {
	case fi.Mode().IsRegular():
		if !tracked && ignored.Match(strings.Split(p, "/"), false) {
			return nil, nil
		}
		if content, err = os.ReadFile(fp); err != nil {
			return nil, fmt.Errorf("read %s: %w", p, err)
		}
		mode = filemode.Regular
		if fi.Mode()&0o111 != 0 {
			mode = filemode.Executable
		}
	case fi.Mode()&fs.ModeSymlink != 0:
		target, err := os.Readlink(fp)
		if err != nil {
			return nil, fmt.Errorf("read link %s: %w", p, err)
		}
		content, mode = []byte(filepath.ToSlash(target)), filemode.Symlink
	default:
		return nil, nil // a directory or special file where a file was
	}
	h, err := s.writeBlob(content)
	if err != nil {
		return nil, fmt.Errorf("write blob %s: %w", p, err)
	}
	return &wantFile{hash: h, mode: mode, info: fi}, nil
}

func (s *state) writeBlob(content []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(plumbing.BlobObject, content)
	if s.repo.Storer.HasEncodedObject(h) == nil {
		return h, nil
	}
	obj := s.repo.Storer.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	obj.SetSize(int64(len(content)))
	w, err := obj.Writer()
	if err != nil {
		return h, err
	}
	if _, err := w.Write(content); err != nil {
		return h, err
	}
	if err := w.Close(); err != nil {
		return h, err
	}
	return s.repo.Storer.SetEncodedObject(obj)
}

// matcher loads the ignore rules that can apply below the prefixes: the
// system and global excludes, .git/info/exclude, the .gitignore of every
// ancestor directory of a prefix, and every .gitignore below a prefix.
func (s *state) matcher() (gitignore.Matcher, error) {
	var ps []gitignore.Pattern
	root := osfs.New("/")
	if sys, err := gitignore.LoadSystemPatterns(root); err == nil {
		ps = append(ps, sys...)
	}
	if glob, err := gitignore.LoadGlobalPatterns(root); err == nil {
		ps = append(ps, glob...)
	}
	wt := osfs.New(s.top)
	seen := map[string]bool{}
	readOne := func(dir []string) error {
		key := strings.Join(dir, "/")
		if seen[key] {
			return nil
		}
		seen[key] = true
		b, err := os.ReadFile(filepath.Join(s.top, filepath.FromSlash(path.Join(append(slices.Clone(dir), ".gitignore")...))))
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscallENOTDIR()) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read .gitignore: %w", err)
		}
		for _, line := range strings.Split(string(b), "\n") {
			line = strings.TrimSuffix(line, "\r")
			if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
				continue
			}
			ps = append(ps, gitignore.ParsePattern(line, dir))
		}
		return nil
	}
	if b, err := os.ReadFile(filepath.Join(s.gitDir, "info", "exclude")); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
				continue
			}
			ps = append(ps, gitignore.ParsePattern(strings.TrimSuffix(line, "\r"), nil))
		}
	}
	for _, pre := range s.prefixes {
		parts := strings.Split(pre, "/")
		for i := 0; i < len(parts); i++ {
			if err := readOne(slices.Clone(parts[:i])); err != nil {
				return nil, err
			}
		}
		if fi, err := os.Stat(filepath.Join(s.top, filepath.FromSlash(pre))); err == nil && fi.IsDir() {
			sub, err := gitignore.ReadPatterns(wt, parts)
			if err != nil {
				return nil, fmt.Errorf("read .gitignore under %s: %w", pre, err)
			}
			ps = append(ps, sub...)
		}
	}
	return gitignore.NewMatcher(ps), nil
}

// changeNode is one directory level of the tree changes.
type changeNode struct {
	children map[string]*changeNode
	file     *wantFile // leaf: new content
	leaf     bool
}

func buildChangeTree(changes map[string]*wantFile) *changeNode {
	root := &changeNode{children: map[string]*changeNode{}}
	for p, w := range changes {
		n := root
		parts := strings.Split(p, "/")
		for _, part := range parts[:len(parts)-1] {
			c := n.children[part]
			if c == nil || c.leaf {
				c = &changeNode{children: map[string]*changeNode{}}
				n.children[part] = c
			}
			n = c
		}
		last := parts[len(parts)-1]
		if c := n.children[last]; c != nil && !c.leaf {
			if w == nil {
				continue // a deleted file replaced by a directory of changes
			}
		}
		n.children[last] = &changeNode{leaf: true, file: w}
	}
	return root
}

// rebuild writes the tree that results from applying n to the tree base
// (zero hash: empty) and returns its hash; an empty result gives the zero
// hash. Untouched entries, including submodules, are kept as they are.
func (s *state) rebuild(base plumbing.Hash, n *changeNode) (plumbing.Hash, error) {
	entries := map[string]object.TreeEntry{}
	if !base.IsZero() {
		t, err := object.GetTree(s.repo.Storer, base)
		if err != nil {
			return plumbing.ZeroHash, fmt.Errorf("read tree %s: %w", base, err)
		}
		for _, e := range t.Entries {
			entries[e.Name] = e
		}
	}
	for name, c := range n.children {
		if c.leaf {
			if c.file == nil {
				delete(entries, name)
			} else {
				entries[name] = object.TreeEntry{Name: name, Mode: c.file.mode, Hash: c.file.hash}
			}
			continue
		}
		var sub plumbing.Hash
		if e, ok := entries[name]; ok && e.Mode == filemode.Dir {
			sub = e.Hash
		}
		h, err := s.rebuild(sub, c)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if h.IsZero() {
			delete(entries, name)
		} else {
			entries[name] = object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
		}
	}
	if len(entries) == 0 {
		return plumbing.ZeroHash, nil
	}
	t := &object.Tree{}
	for _, e := range entries {
		t.Entries = append(t.Entries, e)
	}
	// git orders entries by name, comparing a tree's name as if it ended in
	// "/" (git's base_name_compare).
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	slices.SortFunc(t.Entries, func(a, b object.TreeEntry) int { return strings.Compare(key(a), key(b)) })
	obj := s.repo.Storer.NewEncodedObject()
	if err := t.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode tree: %w", err)
	}
	if s.repo.Storer.HasEncodedObject(obj.Hash()) == nil {
		return obj.Hash(), nil
	}
	return s.repo.Storer.SetEncodedObject(obj)
}

// updateIndex replaces the entries of the candidate paths present in the
// work tree with the desired state and reports whether anything changed.
// Other entries — including those of missing (kept) and blocked paths —
// are untouched.
func (s *state) updateIndex(idx *index.Index) bool {
	current := map[string][]*index.Entry{}
	for _, e := range idx.Entries {
		if s.candidates[e.Name] {
			current[e.Name] = append(current[e.Name], e)
		}
	}
	changed := false
	drop := map[string]bool{}
	var add []*index.Entry
	for p := range s.candidates {
		w := s.want[p]
		cur := current[p]
		if w == nil {
			continue // missing, ignored or blocked: the user's git decides
		}
		// Stage 0 is a merged entry; go-git's index.Merged constant is 1
		// (equal to AncestorMode), so compare with 0 directly.
		if len(cur) == 1 && cur[0].Stage == 0 && !cur[0].IntentToAdd && !cur[0].SkipWorktree &&
			cur[0].Hash == w.hash && cur[0].Mode == w.mode {
			continue
		}
		drop[p], changed = true, true
		add = append(add, newEntry(p, w))
	}
	if !changed {
		return false
	}
	kept := idx.Entries[:0]
	for _, e := range idx.Entries {
		if !drop[e.Name] {
			kept = append(kept, e)
		}
	}
	idx.Entries = append(kept, add...)
	idx.Cache = nil // the cache tree is stale; the encoder does not write it anyway
	idx.ResolveUndo = nil
	return true
}

func newEntry(p string, w *wantFile) *index.Entry {
	e := &index.Entry{
		Name:       p,
		Hash:       w.hash,
		Mode:       w.mode,
		ModifiedAt: w.info.ModTime(),
		Size:       uint32(w.info.Size()),
	}
	fillStat(e, w.info)
	return e
}

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

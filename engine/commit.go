package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/recite-dev/recite/engine/internal/gitstore"
)

// HistoryPaths are the project-relative paths `recite commit` and
// `recite watch --commit` commit, and the only ones (issue 7 "Build" §4;
// DESIGN.md invariant 14): the conversation logs and the preservation
// blocks.
var HistoryPaths = []string{PlanningDir + "/conversations/", PlanningDir + "/context-preserved.md"}

// Errors of Commit; compare with errors.Is.
var (
	// ErrNoRepository: the project is not inside a git work tree.
	ErrNoRepository = gitstore.ErrNoRepository
	// ErrNoCommits: the current branch has no commit yet. recite does not
	// make a repository's first commit, so the user's own commit stays the
	// root.
	ErrNoCommits = gitstore.ErrNoCommits
	// ErrDetachedHead: HEAD names a commit, not a branch.
	ErrDetachedHead = gitstore.ErrDetachedHead
	// ErrIndexLocked: .git/index.lock stayed for the whole wait (another git
	// process is running, or a crashed one left it).
	ErrIndexLocked = gitstore.ErrIndexLocked
	// ErrNoAuthor: git's user.name or user.email is not configured.
	ErrNoAuthor = gitstore.ErrNoAuthor
	// ErrBeyondSymlink: `.planning/` (or a folder on the way to a history
	// path) is a symbolic link; git cannot track files through it.
	ErrBeyondSymlink = gitstore.ErrBeyondSymlink
)

// DefaultCommitMessage is the message of a history commit without -m.
const DefaultCommitMessage = "recite: conversation history"

// CommitOptions configures Commit. The zero value uses the defaults.
type CommitOptions struct {
	// Message is the commit message (default DefaultCommitMessage).
	Message string
	// LockWait bounds the wait for another process's .git/index.lock
	// (default 5s); LockPoll is the retry interval (default 50ms).
	LockWait, LockPoll time.Duration
}

// CommitResult is what Commit did.
type CommitResult struct {
	// Hash is the new commit's hash in hex; "" when the history did not
	// change (no empty commits).
	Hash string
	// Kept lists the history files HEAD tracks that are missing from the
	// work tree (repository-relative slash paths, sorted). recite's history
	// is append-only: they stay in the commit as HEAD has them, and
	// deleting them is left to the user's own git (`git rm`).
	Kept []string
	// Blocked lists work-tree files under HistoryPaths left out because
	// committing them would delete a Kept file (a folder or a file in the
	// place of the other).
	Blocked []string
}

// Commit commits the current content of HistoryPaths, and nothing else, on
// the branch HEAD points to, with go-git: the commit is built from HEAD's
// tree plus those paths, so the user's staged and unstaged changes stay as
// they were, and untracked files that .gitignore ignores are never staged.
// It adds and updates files only: a tracked log or context-preserved.md
// missing from the work tree is kept as HEAD has it and listed in
// CommitResult.Kept (the history is append-only; issue 7 review, bug 3).
// The author is $GIT_AUTHOR_NAME and $GIT_AUTHOR_EMAIL when set, else git's
// user.name and user.email.
//
// Errors: the project has no `.planning/` folder (*InputError wrapping
// ErrNoPlanning; nothing is committed, since a missing folder is most often
// one moved away for a moment); ErrNoRepository, ErrNoCommits,
// ErrDetachedHead, ErrBeyondSymlink, ErrIndexLocked (after waiting LockWait
// or until ctx is done; nothing is written under another process's lock),
// ErrNoAuthor, wrapped I/O and object errors.
func (e *Engine) Commit(ctx context.Context, opts CommitOptions) (CommitResult, error) {
	if _, err := e.planningDir(); err != nil {
		if errors.Is(err, ErrNoPlanning) {
			return CommitResult{}, &InputError{Err: fmt.Errorf("%w in %s: nothing to commit (recite never commits the removal of the conversation history)", ErrNoPlanning, e.dir)}
		}
		return CommitResult{}, err
	}
	msg := opts.Message
	if msg == "" {
		msg = DefaultCommitMessage
	}
	c := gitstore.Committer{LockWait: opts.LockWait, LockPoll: opts.LockPoll, NoRootCommit: true}
	// As git does, $GIT_AUTHOR_NAME and $GIT_AUTHOR_EMAIL override the
	// configuration.
	sig := gitstore.Signature{Name: os.Getenv("GIT_AUTHOR_NAME"), Email: os.Getenv("GIT_AUTHOR_EMAIL")}
	res, err := c.Commit(ctx, e.dir, HistoryPaths, msg, sig)
	return CommitResult{Hash: res.Hash, Kept: res.Kept, Blocked: res.Blocked}, err
}

// gitstoreCheck reports, without writing, whether Commit could commit in
// the project's repository: ErrNoRepository, ErrBeyondSymlink,
// ErrDetachedHead, ErrNoCommits or nil.
func gitstoreCheck(dir string) error {
	return gitstore.Committer{NoRootCommit: true}.Check(dir, HistoryPaths...)
}

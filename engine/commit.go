package engine

import (
	"context"
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

// Commit commits the current content of HistoryPaths, and nothing else, on
// the branch HEAD points to, with go-git: the commit is built from HEAD's
// tree plus those paths, so the user's staged and unstaged changes stay as
// they were, and untracked files that .gitignore ignores are never staged.
// The author is $GIT_AUTHOR_NAME and $GIT_AUTHOR_EMAIL when set, else git's
// user.name and user.email.
//
// It returns the new commit's hash in hex, or "" when the history did not
// change (no empty commits). Errors: ErrNoRepository, ErrNoCommits,
// ErrDetachedHead, ErrIndexLocked (after waiting LockWait or until ctx is
// done; nothing is written under another process's lock), ErrNoAuthor,
// wrapped I/O and object errors.
func (e *Engine) Commit(ctx context.Context, opts CommitOptions) (string, error) {
	msg := opts.Message
	if msg == "" {
		msg = DefaultCommitMessage
	}
	c := gitstore.Committer{LockWait: opts.LockWait, LockPoll: opts.LockPoll, NoRootCommit: true}
	// As git does, $GIT_AUTHOR_NAME and $GIT_AUTHOR_EMAIL override the
	// configuration.
	sig := gitstore.Signature{Name: os.Getenv("GIT_AUTHOR_NAME"), Email: os.Getenv("GIT_AUTHOR_EMAIL")}
	return c.CommitPaths(ctx, e.dir, HistoryPaths, msg, sig)
}

// gitstoreCheck reports, without writing, whether Commit could commit in
// the project's repository: ErrNoRepository, ErrDetachedHead, ErrNoCommits
// or nil.
func gitstoreCheck(dir string) error {
	return gitstore.Committer{NoRootCommit: true}.Check(dir)
}

package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/recite-dev/recite/engine/internal/gitstore"
	"github.com/recite-dev/recite/engine/scope"
	"github.com/recite-dev/recite/planning/conversation"
)

// HistoryPaths are the project-relative paths `recite commit` and
// `recite watch --commit` commit, and the only ones
// (docs/architecture.md#commit-only-recites-paths): the conversation logs
// and the preservation blocks. Under the conversations folder only the
// logs themselves are committed (scope.HistoryFile).
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
	// ErrInProgress: a merge, rebase, am, cherry-pick, revert or bisect is
	// in progress, or the index holds unmerged files; the error names it
	// and how to end it.
	ErrInProgress = gitstore.ErrInProgress
	// ErrIndexExtension: the git index is split or sparse; the error names
	// the extension and the git command that turns it off.
	ErrIndexExtension = gitstore.ErrIndexExtension
	// ErrSparse: a sparse checkout leaves the history paths out; the error
	// names them and `git sparse-checkout add`.
	ErrSparse = gitstore.ErrSparse
	// ErrTornRecord: a conversation log holds a line that is not a whole
	// record before whole ones; the *conversation.TornError names the file
	// and line, and nothing is committed. A torn last line alone is left
	// out of the commit instead (docs/formats.md#torn-records).
	ErrTornRecord = conversation.ErrTorn
	// ErrLogShrunk: a conversation log has fewer lines than in HEAD (it was
	// truncated, emptied or replaced), so committing it would drop records
	// from the branch's newest commit; each log is a *gitstore.ShrunkError
	// naming it and both line counts. CommitOptions.AllowShrink commits it.
	ErrLogShrunk = gitstore.ErrShrunk
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
	// AllowSecrets commits files in which the scan finds secrets (the
	// findings are still returned in CommitResult.Secrets).
	AllowSecrets bool
	// AllowShrink commits a conversation log that has fewer lines than in
	// HEAD (see ErrLogShrunk).
	AllowShrink bool
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
	// Ignored lists the untracked history files left out because an ignore
	// file excludes them (.gitignore, .git/info/exclude, the global
	// excludes file, .powerignore; a folder as its path and a "/"),
	// project-relative and sorted.
	Ignored []string
	// Secrets are what the scan found in the committed files when
	// AllowSecrets let them through.
	Secrets []SecretFinding
}

// Commit commits the current content of HistoryPaths, and nothing else, on
// the branch HEAD points to, with go-git: the commit is built from HEAD's
// tree plus those paths, so the user's staged and unstaged changes stay as
// they were, and untracked files that .gitignore ignores are never staged.
// It adds and updates files only: a tracked log or context-preserved.md
// missing from the work tree is kept as HEAD has it and listed in
// CommitResult.Kept (the history is append-only: docs/architecture.md#append-only-logs).
// The author is $GIT_AUTHOR_NAME and $GIT_AUTHOR_EMAIL when set, else git's
// user.name and user.email.
//
// Errors: the project has no `.planning/` folder (*InputError wrapping
// ErrNoPlanning; nothing is committed, since a missing folder is most often
// one moved away for a moment); ErrNoRepository, ErrNoCommits,
// ErrDetachedHead, ErrBeyondSymlink, ErrIndexLocked (after waiting LockWait
// or until ctx is done; nothing is written under another process's lock),
// ErrNoAuthor, ErrLogShrunk (each log joined, nothing committed),
// ErrTornRecord, wrapped I/O and object errors. A conversation log is
// committed up to its last whole record; a failed commit leaves no
// temporary object files behind.
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
	sel, err := scope.NewHistorySelector(e.dir)
	if err != nil {
		return CommitResult{}, err
	}
	var found []SecretFinding
	c := gitstore.Committer{LockWait: opts.LockWait, LockPoll: opts.LockPoll, NoRootCommit: true, Select: sel.Select,
		// The logs are append-only (docs/architecture.md#append-only-logs):
		// one with fewer lines than in HEAD lost records.
		AppendOnly: func(path string) bool { return !opts.AllowShrink && strings.HasSuffix(path, ".jsonl") },
		// A torn record never reaches git: a log is committed up to its
		// last whole record (docs/formats.md#torn-records).
		Content: func(path string, content []byte) ([]byte, error) {
			if !strings.HasSuffix(path, ".jsonl") {
				return content, nil
			}
			return conversation.Committable(path, content)
		},
		Scan: func(path string, content []byte) error {
			fs, err := e.redactor.Scan(path, content)
			if err != nil {
				return err
			}
			found = append(found, fs...)
			if len(fs) > 0 && !opts.AllowSecrets {
				return errSecretsFound
			}
			return nil
		}}
	// As git does, $GIT_AUTHOR_NAME and $GIT_AUTHOR_EMAIL override the
	// configuration.
	sig := gitstore.Signature{Name: os.Getenv("GIT_AUTHOR_NAME"), Email: os.Getenv("GIT_AUTHOR_EMAIL")}
	res, err := c.Commit(ctx, e.dir, HistoryPaths, msg, sig)
	out := CommitResult{Hash: res.Hash, Kept: res.Kept, Blocked: res.Blocked, Ignored: sel.IgnoredWith(res.Ignored)}
	if errors.Is(err, errSecretsFound) {
		return out, &SecretsError{Findings: found}
	}
	if opts.AllowSecrets {
		out.Secrets = found
	}
	return out, err
}

// errSecretsFound is the Scan error of a file that holds a secret.
var errSecretsFound = errors.New("secrets found")

// gitstoreCheck reports, without writing, whether Commit could commit in
// the project's repository: ErrNoRepository, ErrBeyondSymlink,
// ErrDetachedHead, ErrNoCommits or nil.
func gitstoreCheck(dir string) error {
	return gitstore.Committer{NoRootCommit: true}.Check(dir, HistoryPaths...)
}

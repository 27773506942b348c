package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// commitOptions are the inputs of `recite commit`.
type commitOptions struct {
	io           IOStreams
	dir          string
	message      string
	lockWait     time.Duration
	allowSecrets bool
	allowShrink  bool
}

func newCommitCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *commitOptions) error) *cobra.Command {
	opts := &commitOptions{io: streams}
	cmd := &cobra.Command{
		Use:   "commit [-m MSG]",
		Short: "Commit the conversation history (and nothing else) to git",
		Long: `Commit the current content of ` + strings.Join(engine.HistoryPaths, " and ") + `
on the current branch, and nothing else. The commit is built from HEAD's
tree plus those paths, so your staged and unstaged changes stay exactly as
they were; ignored files are never staged. When the history did not
change, nothing is committed ("nothing to commit", exit 0).

The history is append-only: recite adds and updates files, and never
commits a deletion. A tracked log missing from the work tree stays in the
commit as it was ("kept N tracked files that are missing from the work
tree"); to delete it from the history, use git yourself (git rm).

Only recite's own files are committed: the logs
(.planning/conversations/ID.jsonl, and archive/ID.jsonl) and
.planning/context-preserved.md; other files beside the logs are yours. An
untracked log that .gitignore, .git/info/exclude, the global excludes file
or .powerignore excludes is left out and named; a tracked one is committed,
as git commits it.

Every file about to be committed is scanned for secrets with the rules
that redact prompts and logs. When one holds a secret (a log written
before recite redacted its logs, a line pasted by hand), nothing is
committed: each finding is printed as file:line: kind, and the exit status
is 1. Run 'recite redact' to replace them with placeholders, or pass
--allow-secrets to commit them anyway.

A log only grows: one with fewer lines than in HEAD (truncated, emptied,
replaced by an older copy) would drop records from the newest commit, so
nothing is committed, each such log is named with both line counts, and
the exit status is 1. 'recite redact' rewrites lines in place and keeps
their number; --allow-shrink commits a shorter log anyway.

The author is $GIT_AUTHOR_NAME/$GIT_AUTHOR_EMAIL, else git's user.name and
user.email. While another git process holds .git/index.lock, recite waits
(up to --lock-wait) and retries; it never writes the index under that lock.
A linked worktree (git worktree add) commits to its own branch.

Exit status: 0 committed or nothing to commit; 1 the index stayed locked
(try again), a file holds a secret, or a log lost lines; 2 no .planning folder, no git
repository, a repository without commits (recite does not make your first
commit), a detached HEAD, a merge, rebase, am, cherry-pick, revert or
bisect in progress or unmerged files, a split or sparse index, history
paths outside a sparse checkout, a .planning that is a symbolic link (git
cannot track files through it), or no author. Each says what to do.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.lockWait <= 0 {
				return usageError{fmt.Errorf("--lock-wait %v: want a positive duration", opts.lockWait)}
			}
			opts.dir = g.dir
			return runWith(cmd.Context(), opts, runF, commitRun)
		},
	}
	cmd.Flags().StringVarP(&opts.message, "message", "m", engine.DefaultCommitMessage, "commit `message`")
	cmd.Flags().DurationVar(&opts.lockWait, "lock-wait", 5*time.Second, "how long to wait for another git process's .git/index.lock")
	cmd.Flags().BoolVar(&opts.allowSecrets, "allow-secrets", false, "commit files in which the secret scan finds something")
	cmd.Flags().BoolVar(&opts.allowShrink, "allow-shrink", false, "commit a conversation log that has fewer lines than in HEAD")
	return cmd
}

func commitRun(ctx context.Context, opts *commitOptions) error {
	res, err := engine.New(opts.dir).Commit(ctx, engine.CommitOptions{Message: opts.message, LockWait: opts.lockWait, AllowSecrets: opts.allowSecrets, AllowShrink: opts.allowShrink})
	var secrets *engine.SecretsError
	if errors.As(err, &secrets) {
		for _, f := range secrets.Findings {
			fmt.Fprintln(opts.io.ErrOut, f)
		}
		return checkFailed{msg: secrets.Error()}
	}
	if errors.Is(err, engine.ErrLogShrunk) {
		fmt.Fprintln(opts.io.ErrOut, err)
		return checkFailed{msg: "a conversation log has fewer lines than in HEAD: records would be lost from the newest commit (git show HEAD:PATH has them); restore the log, or pass --allow-shrink to commit it as it is"}
	}
	if errors.Is(err, engine.ErrTornRecord) {
		fmt.Fprintln(opts.io.ErrOut, err)
		return checkFailed{msg: "a conversation log holds a torn record before whole ones: nothing committed (git never gets a torn record)"}
	}
	if err != nil {
		return commitHint(err)
	}
	out := opts.io.Out
	for _, f := range res.Secrets {
		fmt.Fprintf(opts.io.ErrOut, "%s (committed: --allow-secrets)\n", f)
	}
	if res.Hash == "" {
		fmt.Fprintln(out, "nothing to commit (the conversation history is unchanged)")
	} else {
		fmt.Fprintf(out, "committed %s: %s\n", res.Hash[:min(12, len(res.Hash))], firstLine(opts.message))
	}
	if len(res.Kept) > 0 {
		fmt.Fprintf(out, "%s (recite never commits a deletion; git rm removes a file from the history)\n", keptMissing(len(res.Kept)))
	}
	if len(res.Blocked) > 0 {
		fmt.Fprintf(out, "left out %d %s that would replace a kept file: %s\n", len(res.Blocked), plural(len(res.Blocked), "file", "files"), strings.Join(res.Blocked, ", "))
	}
	if len(res.Ignored) > 0 {
		fmt.Fprintf(out, "left out %d untracked %s that an ignore file excludes: %s\n", len(res.Ignored), plural(len(res.Ignored), "file", "files"), strings.Join(res.Ignored, ", "))
	}
	return nil
}

// commitHint adds what to do to a commit failure the user must fix (a
// setup error: exit 2); a held index lock (exit 1) and other errors are
// returned as they are.
func commitHint(err error) error {
	switch {
	case errors.Is(err, engine.ErrNoRepository):
		return usageError{fmt.Errorf("%w; run `git init` and make a first commit to keep the conversation history in git", err)}
	case errors.Is(err, engine.ErrNoCommits):
		return usageError{fmt.Errorf("%w; make a first commit yourself, then run `recite commit` again", err)}
	case errors.Is(err, engine.ErrDetachedHead):
		return usageError{fmt.Errorf("%w; switch to a branch (`git switch BRANCH`), then run `recite commit` again", err)}
	case errors.Is(err, engine.ErrNoAuthor):
		return usageError{err}
	case errors.Is(err, engine.ErrBeyondSymlink):
		return usageError{fmt.Errorf("%w; commit the history in the repository that holds the folder instead", err)}
	case errors.Is(err, engine.ErrInProgress), errors.Is(err, engine.ErrIndexExtension), errors.Is(err, engine.ErrSparse):
		// The message says what to do.
		return usageError{err}
	}
	return err
}

// keptMissing is the notice for n tracked history files missing from the
// work tree, which a commit keeps as HEAD has them.
func keptMissing(n int) string {
	return fmt.Sprintf("kept %d tracked %s that %s missing from the work tree", n, plural(n, "file", "files"), plural(n, "is", "are"))
}

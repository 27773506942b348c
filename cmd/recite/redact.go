package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// redactOptions are the inputs of `recite redact`.
type redactOptions struct {
	io   IOStreams
	dir  string
	json jsonFlag
}

func newRedactCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *redactOptions) error) *cobra.Command {
	opts := &redactOptions{io: streams}
	cmd := &cobra.Command{
		Use:   "redact [--json]",
		Short: "Replace the secrets already in the conversation logs and context-preserved.md with placeholders",
		Long: `Replace every secret in the conversation logs (` + engine.ConversationsDir + `/, the
archive included) and in ` + engine.PreservedFile + ` with its
⟨secret:KIND:hash8⟩ placeholder, the form recite writes them in now:
migrate logs written before recite redacted them, so 'recite commit'
commits them. Each file is rewritten in place, atomically, under the lock
its writers take; records keep their ids, times and order, and a record
without secrets keeps its bytes. With conversations.keep_raw: true the
records as they were go to ` + engine.RawDir + `/ first. It prints how many
values it replaced in which file; a second run replaces nothing.

Secrets already committed stay in git's history: rewriting history is
left to you (git filter-repo), and a leaked key must be revoked anyway.

Exit status: 0 done; 1 a line holds a secret recite could not replace
without changing how it reads (named; edit it by hand); 2 no .planning.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = g.dir
			return runWith(cmd.Context(), opts, runF, redactRun)
		},
	}
	opts.json.addFlag(cmd, "print the files changed as JSON")
	return cmd
}

func redactRun(ctx context.Context, opts *redactOptions) error {
	rep, err := engine.New(opts.dir).RedactHistory(ctx)
	if err != nil {
		return err
	}
	unredacted := 0
	for _, f := range rep.Files {
		unredacted += f.Unredacted
	}
	err = opts.json.print(opts.io.Out, rep, func(w io.Writer) error {
		for _, f := range rep.Files {
			if f.Replaced > 0 {
				fmt.Fprintf(w, "%s: replaced %d %s\n", f.Path, f.Replaced, plural(f.Replaced, "value", "values"))
			}
			if f.Unredacted > 0 {
				fmt.Fprintf(w, "%s: %d %s a secret recite could not replace; edit %s by hand\n", f.Path, f.Unredacted, plural(f.Unredacted, "line holds", "lines hold"), plural(f.Unredacted, "it", "them"))
			}
		}
		n := rep.Replaced()
		if n == 0 {
			fmt.Fprintln(w, "nothing to replace: no secret in the history files")
		} else {
			fmt.Fprintf(w, "replaced %d %s in %d %s\n", n, plural(n, "value", "values"), filesChanged(rep), plural(filesChanged(rep), "file", "files"))
		}
		return nil
	})
	if err == nil && unredacted > 0 {
		return checkFailed{msg: fmt.Sprintf("%d %s still hold a secret (see above; 'recite commit' names file and line)", unredacted, plural(unredacted, "line", "lines"))}
	}
	return err
}

// filesChanged counts the files of rep in which values were replaced.
func filesChanged(rep *engine.RedactReport) int {
	n := 0
	for _, f := range rep.Files {
		if f.Replaced > 0 {
			n++
		}
	}
	return n
}

package main

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// filesOptions are the inputs of `recite files`.
type filesOptions struct {
	io      IOStreams
	dir     string
	why     string
	include []string
	json    jsonFlag
}

func newFilesCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *filesOptions) error) *cobra.Command {
	opts := &filesOptions{io: streams}
	cmd := &cobra.Command{
		Use:   "files [--why PATH] [--include PATH]...",
		Short: "List the project files that may enter an agent's context",
		Long: `List, sorted, the project files that may enter an agent's context: what
.gitignore files, .git/info/exclude and .powerignore leave (as git ls-files
--others --exclude-standard --exclude-from=.powerignore would), minus the
globs recite.yaml's files.task_types gives the current task type, plus the
files that are never excluded: those the current plan names (tasks and
files_modified), those named by recorded errors (the targets' conversation
logs, the latest block of .planning/context-preserved.md, the active loop
file; path and path:line forms, existing files inside the project only),
the targets' include lists and --include. The global excludes file
(core.excludesFile) is not read.

Paths under .git/ and paths beyond a symbolic link that leaves the project
are never listed, even when named (git lists the link itself only).

--why explains one path like git check-ignore -v: FILE:LINE:PATTERN and the
path, "never-exclude: named by …" (e.g. "named by error at SOURCE"),
"excluded: .git/ is never part of context" or "excluded: beyond a symbolic
link that leaves the project"; "::" when no pattern matches. A PATH that
does not exist or lies outside the project root is said to be not in the
project, and the exit code is 1.
`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = g.dir
			return runWith(cmd.Context(), opts, runF, filesRun)
		},
	}
	cmd.Flags().StringVar(&opts.why, "why", "", "explain the verdict on `PATH`")
	cmd.Flags().StringArrayVar(&opts.include, "include", nil, "a `PATH` that always enters context")
	opts.json.addFlag(cmd, "print JSON")
	return cmd
}

func filesRun(ctx context.Context, opts *filesOptions) error {
	e := engine.New(opts.dir)
	if opts.why != "" {
		ex, err := e.Why(ctx, opts.why, opts.include)
		if err != nil {
			return err
		}
		return opts.json.print(opts.io.Out, ex, func(w io.Writer) error {
			fmt.Fprintln(w, ex.String())
			return nil
		})
	}
	files, err := e.Files(ctx, opts.include)
	if err != nil {
		return err
	}
	return opts.json.print(opts.io.Out, files, func(out io.Writer) error {
		// One write per 64 KiB, not per line: a monorepo lists ~10^5 paths.
		w := bufio.NewWriterSize(out, 64<<10)
		for _, f := range files {
			w.WriteString(f.Path)
			w.WriteByte('\n')
		}
		return w.Flush()
	})
}

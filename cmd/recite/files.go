package main

import (
	"bufio"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

func newFilesCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	var asJSON bool
	var why string
	var include []string
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
link that leaves the project"; "::" when no pattern matches.
`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e := engine.New(g.dir)
			if why != "" {
				ex, err := e.Why(cmd.Context(), why, include)
				if err != nil {
					return engineError(err)
				}
				if asJSON {
					return writeJSON(streams.Out, ex)
				}
				fmt.Fprintln(streams.Out, ex.String())
				return nil
			}
			files, err := e.Files(cmd.Context(), include)
			if err != nil {
				return engineError(err)
			}
			if asJSON {
				return writeJSON(streams.Out, files)
			}
			// One write per 64 KiB, not per line: a monorepo lists ~10^5 paths.
			w := bufio.NewWriterSize(streams.Out, 64<<10)
			for _, f := range files {
				w.WriteString(f.Path)
				w.WriteByte('\n')
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVar(&why, "why", "", "explain the verdict on `PATH`")
	cmd.Flags().StringArrayVar(&include, "include", nil, "a `PATH` that always enters context")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

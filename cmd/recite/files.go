package main

import (
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
		Long: `List, sorted, the project files that .gitignore files, .git/info/exclude
and .powerignore leave in context, plus the files the current plan, the
targets' include lists or --include name (never excluded). The global
excludes file (core.excludesFile) is not read. --why explains one path
like git check-ignore -v.`,
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
			for _, f := range files {
				fmt.Fprintln(streams.Out, f.Path)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&why, "why", "", "explain the verdict on `PATH`")
	cmd.Flags().StringArrayVar(&include, "include", nil, "a `PATH` that always enters context")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

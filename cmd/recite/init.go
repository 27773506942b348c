package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

func newInitCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	var flavor string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "init [--flavor gsd|fire]",
		Short: "Scaffold .planning/recite.yaml, prompts/.gitignore, .gitattributes and .powerignore",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			res, err := engine.Init(g.dir, flavor)
			if err != nil {
				return engineError(err)
			}
			if asJSON {
				return writeJSON(streams.Out, res)
			}
			for _, p := range res.Created {
				fmt.Fprintf(streams.Out, "created %s\n", p)
			}
			for _, p := range res.Updated {
				fmt.Fprintf(streams.Out, "updated %s\n", p)
			}
			for _, p := range res.Kept {
				fmt.Fprintf(streams.Out, "kept    %s\n", p)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&flavor, "flavor", "gsd", "planning layout: gsd or fire")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

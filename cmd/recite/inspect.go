package main

import (
	"github.com/spf13/cobra"
)

func newInspectCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "inspect",
		Short: "Show the parsed planning tree: flavor, phases, current plan, next task, blockers, diagnostics",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			// TODO: implement in the planning helper's CLI step.
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

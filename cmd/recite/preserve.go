package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// preserveOptions are the flags of `recite preserve`.
type preserveOptions struct {
	trigger       string
	conversations []string
	asJSON        bool
}

func newPreserveCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	o := &preserveOptions{}
	cmd := &cobra.Command{
		Use:   "preserve [--trigger manual|compaction|sabbath_rest]",
		Short: "Append a preservation block of the stop signals to .planning/context-preserved.md",
		Long: `Append one preservation block (FORMATS.md §2.8, canonical format) to
.planning/context-preserved.md: the errors verbatim, blocked marks, failed
approaches and why, stop requests, the circuit-breaker line, and the working
state (current task, last change, files modified according to git).

Signals come from the planning tree (loops, debug files, blockers) and the
conversations given with --conversation, by default those the targets carry
and the most recently active one.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			var convs []string
			if cmd.Flags().Changed("conversation") {
				convs = o.conversations
			}
			res, err := engine.New(g.dir).Preserve(cmd.Context(), engine.PreserveOptions{Trigger: o.trigger, Conversations: convs})
			if err != nil {
				return engineError(err)
			}
			if o.asJSON {
				return writeJSON(streams.Out, res)
			}
			fmt.Fprintf(streams.Out, "wrote a preservation block (trigger %s) to %s\n", res.Block.Trigger, res.Path)
			fmt.Fprintln(streams.Out, res.Summary)
			printDiagnostics(streams.Out, res.Diagnostics)
			return nil
		},
	}
	cmd.Flags().StringVar(&o.trigger, "trigger", "manual", "why the block is written: manual, compaction or sabbath_rest")
	cmd.Flags().StringArrayVar(&o.conversations, "conversation", nil, "conversation `id` to read signals from (repeatable)")
	cmd.Flags().BoolVar(&o.asJSON, "json", false, "print the block written as JSON")
	return cmd
}

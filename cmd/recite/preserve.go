package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// preserveOptions are the inputs of `recite preserve`.
type preserveOptions struct {
	io  IOStreams
	dir string
	// preserve's Conversations is nil unless --conversation was given (the
	// engine then picks them).
	preserve engine.PreserveOptions
	json     jsonFlag
}

func newPreserveCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *preserveOptions) error) *cobra.Command {
	opts := &preserveOptions{io: streams}
	var conversations []string
	cmd := &cobra.Command{
		Use:   "preserve [--trigger manual|compaction|sabbath_rest]",
		Short: "Append a preservation block of the stop signals to .planning/context-preserved.md",
		Long: `Append one preservation block (docs/formats.md#preservation-blocks) to
.planning/context-preserved.md: the errors verbatim, blocked marks, failed
approaches and why, stop requests, the circuit-breaker line, and the working
state (current task, last change, files modified according to git).

Signals come from the planning tree (loops, debug files, blockers) and the
conversations given with --conversation, by default those the targets carry
and the most recently active one.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = g.dir
			opts.preserve.Conversations = nil
			if cmd.Flags().Changed("conversation") {
				opts.preserve.Conversations = conversations
			}
			return runWith(cmd.Context(), opts, runF, preserveRun)
		},
	}
	cmd.Flags().StringVar(&opts.preserve.Trigger, "trigger", "manual", "why the block is written: manual, compaction or sabbath_rest")
	cmd.Flags().StringArrayVar(&conversations, "conversation", nil, "conversation `id` to read signals from (repeatable)")
	opts.json.addFlag(cmd, "print the block written as JSON")
	return cmd
}

func preserveRun(ctx context.Context, opts *preserveOptions) error {
	e := engine.New(opts.dir)
	res, err := e.Preserve(ctx, opts.preserve)
	if err != nil {
		return err
	}
	return opts.json.print(opts.io.Out, res, func(w io.Writer) error {
		fmt.Fprintf(w, "wrote a preservation block (trigger %s) to %s\n", res.Block.Trigger, res.Path)
		fmt.Fprintln(w, res.Summary)
		printDiagnosticsOnce(w, e, res.Diagnostics, byPreserve)
		return nil
	})
}

package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// statusOptions are the inputs of `recite status`.
type statusOptions struct {
	io      IOStreams
	dir     string
	json    jsonFlag
	noCache bool
}

func newStatusCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *statusOptions) error) *cobra.Command {
	opts := &statusOptions{io: streams}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show the budget, the cache tiers, the biggest sections, the cache outlook and the health",
		Long: `Show, per target, the token budget as a bar with the warning and critical
marks (recite.yaml's thresholds), a bar per cache tier (stable, semi,
dynamic), the biggest sections, what the next request reads from each
provider's prompt cache, the difficulty routing and the compression pass;
then the loop health, the circuit breaker and the open stop signals.

On a terminal the picture is coloured and as wide as the terminal (longer
lines are cut); piped, it is plain text with bars for 80 columns and lines
kept whole; NO_COLOR (https://no-color.org) turns the colour off. --json prints the full report (every section, file, render
record and signal).

Diagnostics already printed by an earlier command are counted, not
repeated; recite inspect lists them all.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = g.dir
			return runWith(cmd.Context(), opts, runF, statusRun)
		},
	}
	opts.json.addFlag(cmd, "print JSON")
	cmd.Flags().BoolVar(&opts.noCache, "no-cache", false, "neither read nor write the on-disk caches of .planning/.recite (token counts, parsed planning files)")
	return cmd
}

func statusRun(ctx context.Context, opts *statusOptions) error {
	e := engine.New(opts.dir, engine.WithNoCache(opts.noCache))
	rep, err := e.Status(ctx)
	if err != nil {
		return err
	}
	return opts.json.print(opts.io.Out, rep, func(w io.Writer) error {
		if opts.io.color(opts.json.on) {
			// The colours are escape sequences of the picture's own: what
			// came from files is escaped first, the picture written as is.
			termSafeValue(rep)
			w = opts.io.raw().Out
		}
		newPicture(w, opts.io.width(), opts.io.OutTerminal, opts.io.color(opts.json.on)).print(rep)
		if len(rep.Diagnostics) > 0 {
			fmt.Fprintln(w)
		}
		printDiagnosticsOnce(w, e, rep.Diagnostics, byStatus)
		return nil
	})
}

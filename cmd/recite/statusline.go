package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// statuslineOptions are the inputs of `recite statusline`.
type statuslineOptions struct {
	io   IOStreams
	opts engine.StatusLineOptions
	// inputWait bounds the wait for the statusLine JSON on stdin
	// (engine.StatusLineOptions.InputWait; 0 is its default, tests
	// shorten it).
	inputWait time.Duration
}

func newStatuslineCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *statuslineOptions) error) *cobra.Command {
	opts := &statuslineOptions{io: streams}
	return &cobra.Command{
		Use:   "statusline",
		Short: "Print one status line for Claude Code (reads its statusLine JSON on stdin)",
		Long: `Print one line for Claude Code's status line: the current phase and plan
progress, a bar of the session's context window use (when Claude Code's
statusLine JSON on stdin carries it), the loop health and circuit breaker,
and the number of open stop signals.

It reads .planning/.recite/status-summary.json, which the Claude Code hook
rewrites at each prompt and turn end, and computes it (a few milliseconds,
no build) only when a planning file or conversation log changed since. The project is the input's workspace.project_dir when it holds
.planning/, else the one at or above -C DIR, else at or above the input's
current dir. Install it with ` + "`recite init --claude --statusline`" + `.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if f := cmd.Flags().Lookup("dir"); f != nil && f.Changed {
				opts.opts.Dir = g.dir
			}
			return runWith(cmd.Context(), opts, runF, statuslineRun)
		},
	}
}

// statuslineRun prints the line; a terminal on stdin (run by hand) is
// read as no input rather than waited on.
func statuslineRun(ctx context.Context, opts *statuslineOptions) error {
	in := opts.io.In
	if opts.io.InTerminal || in == nil {
		in = strings.NewReader("")
	}
	opts.opts.InputWait = opts.inputWait
	line, err := engine.StatusLine(ctx, opts.opts, in)
	if err != nil {
		return err
	}
	_, err = io.WriteString(opts.io.Out, line+"\n")
	if err != nil {
		return fmt.Errorf("write status line: %w", err)
	}
	return nil
}

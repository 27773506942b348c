package main

import (
	"context"
	"fmt"
	"io"
	"strings"

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
		Short: "Show tokens per section, the budget, diagnostics and cache stability",
		Args:  cobra.NoArgs,
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
	rep, err := engine.NewWith(opts.dir, engine.Options{NoCache: opts.noCache}).Status(ctx)
	if err != nil {
		return err
	}
	return opts.json.print(opts.io.Out, rep, func(w io.Writer) error {
		printStatus(w, rep)
		return nil
	})
}

// printStatus writes the readable status: per target its sections, cuts,
// redactions and files, then the cache outlook, the signals and the
// diagnostics.
func printStatus(w io.Writer, rep *engine.Report) {
	fmt.Fprintf(w, "flavor %s; tokenizer %s; context window %d tokens\n", rep.Flavor, rep.Tokenizer, rep.ContextWindow)
	for _, t := range rep.Targets {
		fmt.Fprintf(w, "\ntarget %s (role %s): %d of %d tokens (%.1f%%) %s\n", t.Name, t.Role, t.Tokens, t.Budget, t.Percent, t.Status)
		if t.Kept != "" {
			fmt.Fprintf(w, "  %s\n", t.Kept)
		}
		fmt.Fprintf(w, "  %-8s %-14s %8s  %s\n", "tier", "section", "tokens", "sources")
		for _, s := range t.Sections {
			fmt.Fprintf(w, "  %-8s %-14s %8d  %s\n", s.Tier, s.ID, s.Tokens, strings.Join(s.Sources, ", "))
		}
		for _, c := range t.Cuts {
			fmt.Fprintf(w, "  cut: %s\n", c)
		}
		for _, r := range t.Redactions {
			fmt.Fprintf(w, "  redacted: %s\n", r)
		}
		for _, f := range t.Files {
			pct := 100.0
			if f.Bytes > 0 {
				pct = float64(f.PrefixBytes) * 100 / float64(f.Bytes)
			}
			fmt.Fprintf(w, "  %-40s %7d bytes, %6d tokens, unchanged prefix %d bytes (%.1f%%)\n", f.Path, f.Bytes, f.Tokens, f.PrefixBytes, pct)
		}
		printFileCuts(w, t)
	}
	printCacheStatus(w, rep)
	printSignals(w, rep)
	if len(rep.Diagnostics) > 0 {
		fmt.Fprintln(w)
	}
	printDiagnostics(w, rep.Diagnostics)
}

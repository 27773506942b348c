package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// buildOptions are the inputs of `recite build`.
type buildOptions struct {
	io      IOStreams
	dir     string
	json    jsonFlag
	check   bool
	noCache bool
}

func newBuildCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *buildOptions) error) *cobra.Command {
	opts := &buildOptions{io: streams}
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Regenerate every prompt file once",
		Long: `Regenerate the prompt files of every target in .planning/prompts/:
TARGET.md and TARGET.PROVIDER.json, ordered for prompt caching and fitted
to the token budget. Files whose bytes would not change are not written.
A diagnostic is printed the first time it appears; afterwards it is
counted ("recite inspect" lists them all).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = g.dir
			return runWith(cmd.Context(), opts, runF, buildRun)
		},
	}
	opts.json.addFlag(cmd, "print the report as JSON")
	cmd.Flags().BoolVar(&opts.check, "check", false, "validate every prompt file against its provider's request schema and the model's window; exit 1 when one would be rejected")
	cmd.Flags().BoolVar(&opts.noCache, "no-cache", false, "neither read nor write the on-disk caches of .planning/.recite (token counts, parsed planning files)")
	return cmd
}

func buildRun(ctx context.Context, opts *buildOptions) error {
	pr := newProgress(opts.io)
	e := engine.New(opts.dir, pr.option(), engine.WithNoCache(opts.noCache))
	rep, err := e.Build(ctx)
	pr.done()
	if err != nil {
		return err
	}
	err = opts.json.print(opts.io.Out, rep, func(w io.Writer) error {
		printBuild(w, rep)
		printDiagnosticsOnce(w, e, rep.Diagnostics, byBuild)
		return nil
	})
	if err == nil && opts.check {
		err = checkBuilt(ctx, e, opts.io.ErrOut, rep)
	}
	return err
}

// writeState says what a build did to a target's files: "wrote PATHS",
// "unchanged", or why it kept the last good render.
func writeState(t *engine.TargetReport) string {
	if t.Kept != "" {
		return t.Kept
	}
	var written []string
	for _, f := range t.Files {
		if f.Written {
			written = append(written, f.Path)
		}
	}
	if len(written) == 0 {
		return "unchanged"
	}
	return "wrote " + strings.Join(written, ", ")
}

// printBuild writes one line per target (tokens, budget, status, stable
// prefix, files written) and its cuts.
func printBuild(w io.Writer, rep *engine.Report) {
	for _, t := range rep.Targets {
		state := writeState(t)
		fmt.Fprintf(w, "%s: %d tokens, %.1f%% of %d, %s, stable prefix %d tokens; %s\n",
			t.Name, t.Tokens, t.Percent, t.Budget, t.Status, t.StableTokens, state)
		for _, c := range t.Cuts {
			fmt.Fprintf(w, "  cut: %s\n", c)
		}
		printFileCuts(w, t)
	}
}

// printFileCuts prints the cuts one provider's smaller context window
// made on top of the target's (FileReport.Cuts).
func printFileCuts(w io.Writer, t *engine.TargetReport) {
	for _, f := range t.Files {
		for _, c := range f.Cuts {
			fmt.Fprintf(w, "  cut for %s's context window: %s\n", f.Provider, c)
		}
	}
}

// renderOptions are the inputs of `recite render`.
type renderOptions struct {
	io       IOStreams
	dir      string
	target   string
	provider string
	check    bool
}

func newRenderCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *renderOptions) error) *cobra.Command {
	opts := &renderOptions{io: streams.raw()} // a request body, byte for byte
	cmd := &cobra.Command{
		Use:   "render --target T --provider P",
		Short: "Print one provider request body to stdout",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir = g.dir
			return runWith(cmd.Context(), opts, runF, renderRun)
		},
	}
	cmd.Flags().StringVar(&opts.target, "target", "agent", "target `name`")
	cmd.Flags().StringVar(&opts.provider, "provider", "anthropic", "provider: "+strings.Join(engine.Providers(), ", ")+", or one of recite.yaml's providers:")
	cmd.Flags().BoolVar(&opts.check, "check", false, "validate the body against the provider's request schema and the model's window; exit 1 when it would be rejected")
	return cmd
}

func renderRun(ctx context.Context, opts *renderOptions) error {
	e := engine.New(opts.dir)
	body, kept, err := e.RenderFile(ctx, opts.target, opts.provider)
	if err != nil {
		return err
	}
	if kept != "" {
		fmt.Fprintln(opts.io.ErrOut, kept)
	}
	if _, err = opts.io.Out.Write(body); err == nil && opts.check {
		err = checkRendered(e, opts.io.ErrOut, opts.target, opts.provider, body)
	}
	return err
}

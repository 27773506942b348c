package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// engineError classifies engine errors for the exit code: input errors are
// usage errors (exit 2).
func engineError(err error) error {
	var ie *engine.InputError
	if errors.As(err, &ie) {
		return usageError{err}
	}
	return err
}

func newBuildCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	var asJSON, check bool
	cmd := &cobra.Command{
		Use:   "build",
		Short: "Regenerate every prompt file once",
		Long: `Regenerate the prompt files of every target in .planning/prompts/:
TARGET.md and TARGET.PROVIDER.json, ordered for prompt caching and fitted
to the token budget. Files whose bytes would not change are not written.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e := engine.New(g.dir)
			rep, err := e.Build(cmd.Context())
			if err != nil {
				return engineError(err)
			}
			if asJSON {
				err = writeJSON(streams.Out, rep)
			} else {
				printBuild(streams.Out, rep)
			}
			if err == nil && check {
				err = checkBuilt(cmd.Context(), e, streams.ErrOut, rep)
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	cmd.Flags().BoolVar(&check, "check", false, "validate every prompt file against its provider's request schema and the model's window; exit 1 when one would be rejected")
	return cmd
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
	printDiagnostics(w, rep.Diagnostics)
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

func printDiagnostics(w io.Writer, diags []engine.Diagnostic) {
	for _, d := range diags {
		fmt.Fprintf(w, "diagnostic: %s\n", d)
	}
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func newRenderCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	var target, provider string
	var check bool
	cmd := &cobra.Command{
		Use:   "render --target T --provider P",
		Short: "Print one provider request body to stdout",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			e := engine.New(g.dir)
			body, kept, err := e.RenderFile(cmd.Context(), target, provider)
			if err != nil {
				return engineError(err)
			}
			if kept != "" {
				fmt.Fprintln(streams.ErrOut, kept)
			}
			if _, err = streams.Out.Write(body); err == nil && check {
				err = checkRendered(e, streams.ErrOut, target, provider, body)
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "validate the body against the provider's request schema and the model's window; exit 1 when it would be rejected")
	cmd.Flags().StringVar(&target, "target", "agent", "target `name`")
	cmd.Flags().StringVar(&provider, "provider", "anthropic", "provider: markdown, anthropic, openai, gemini, ollama or text")
	return cmd
}

func newStatusCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show tokens per section, the budget, diagnostics and cache stability",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := engine.New(g.dir).Status(cmd.Context())
			if err != nil {
				return engineError(err)
			}
			if asJSON {
				return writeJSON(streams.Out, rep)
			}
			printStatus(streams.Out, rep)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

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

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// verifyOptions are the inputs of `recite verify`.
type verifyOptions struct {
	io IOStreams
	// dir is the project, summary the summary file ("-": stdin).
	dir, summary string
	// verify's Conversations is nil unless --conversation was given (the
	// engine then picks them).
	verify engine.VerifyOptions
	json   jsonFlag
}

func newVerifyCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *verifyOptions) error) *cobra.Command {
	opts := &verifyOptions{io: streams}
	var conversations []string
	cmd := &cobra.Command{
		Use:   "verify SUMMARY_FILE|-",
		Short: "List the stop signals a compaction summary lost and print the block to re-inject",
		Long: `Check a compaction summary (a file, or - for stdin) for the stop signals it
lost: errors must appear verbatim (after whitespace folding); blocked marks,
failed approaches, circuit-breaker states and stop requests by id or key
phrase. Prints each lost signal, then the canonical block to re-inject after
the summary. Each signal is looked for in its raw form and with its secrets
replaced by placeholders (⟨secret:KIND:HASH8⟩), and printed only with the
placeholders.

Exit status: 0 when nothing was lost, 1 when any signal was lost, 2 when the
summary cannot be read or the project is unusable.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir, opts.summary = g.dir, args[0]
			opts.verify.Conversations = nil
			if cmd.Flags().Changed("conversation") {
				opts.verify.Conversations = conversations
			}
			return runWith(cmd.Context(), opts, runF, verifyRun)
		},
	}
	cmd.Flags().BoolVar(&opts.verify.FromBlock, "from-block", false, "check against the latest block of .planning/context-preserved.md instead of the sources")
	cmd.Flags().StringArrayVar(&conversations, "conversation", nil, "conversation `id` to read signals from (repeatable)")
	opts.json.addFlag(cmd, "print JSON")
	return cmd
}

func verifyRun(ctx context.Context, opts *verifyOptions) error {
	summary, err := readSummary(opts.summary, opts.io.In)
	if err != nil {
		return usageError{err}
	}
	res, err := engine.New(opts.dir).Verify(ctx, summary, opts.verify)
	if err != nil {
		return err
	}
	err = opts.json.print(opts.io.Out, res, func(w io.Writer) error {
		printVerify(w, res)
		return nil
	})
	if err != nil {
		return err
	}
	if len(res.Lost) > 0 {
		return checkFailed{fmt.Sprintf("the summary lost %d of %d stop signals", len(res.Lost), res.Checked)}
	}
	return nil
}

// readSummary reads the summary file, or stdin for "-".
func readSummary(name string, in io.Reader) (string, error) {
	if name == "-" {
		b, err := io.ReadAll(in)
		if err != nil {
			return "", fmt.Errorf("read summary from stdin: %w", err)
		}
		return string(b), nil
	}
	b, err := os.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("summary file %s does not exist", name)
	}
	if err != nil {
		return "", fmt.Errorf("read summary: %w", err)
	}
	return string(b), nil
}

// printVerify writes what the summary kept or lost and, when it lost
// anything, the block to re-inject.
func printVerify(w io.Writer, res *engine.VerifyResult) {
	if len(res.Lost) == 0 {
		fmt.Fprintf(w, "the summary keeps all %d stop signals (checked against %s)\n", res.Checked, res.Against)
		printDiagnostics(w, res.Diagnostics)
		return
	}
	fmt.Fprintf(w, "the summary lost %d of %d stop signals (checked against %s):\n", len(res.Lost), res.Checked, res.Against)
	for _, s := range res.Lost {
		fmt.Fprintf(w, "  %-16s %s: %s\n", s.Kind, s.Source, clip(firstTextLine(s.Text), 100))
	}
	printDiagnostics(w, res.Diagnostics)
	fmt.Fprintf(w, "\nre-inject after the summary:\n\n%s", res.Reinject)
}

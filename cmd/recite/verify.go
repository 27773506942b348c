package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// verifyOptions are the flags of `recite verify`.
type verifyOptions struct {
	fromBlock     bool
	conversations []string
	asJSON        bool
}

func newVerifyCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	o := &verifyOptions{}
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
			summary, err := readSummary(args[0], streams.In)
			if err != nil {
				return usageError{err}
			}
			var convs []string
			if cmd.Flags().Changed("conversation") {
				convs = o.conversations
			}
			res, err := engine.New(g.dir).Verify(cmd.Context(), summary, engine.VerifyOptions{FromBlock: o.fromBlock, Conversations: convs})
			if err != nil {
				return engineError(err)
			}
			if o.asJSON {
				if err := writeJSON(streams.Out, res); err != nil {
					return err
				}
			} else {
				printVerify(streams.Out, res)
			}
			if len(res.Lost) > 0 {
				return checkFailed{fmt.Sprintf("the summary lost %d of %d stop signals", len(res.Lost), res.Checked)}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&o.fromBlock, "from-block", false, "check against the latest block of .planning/context-preserved.md instead of the sources")
	cmd.Flags().StringArrayVar(&o.conversations, "conversation", nil, "conversation `id` to read signals from (repeatable)")
	cmd.Flags().BoolVar(&o.asJSON, "json", false, "print JSON")
	return cmd
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

// firstTextLine is the first non-blank line of s, trimmed.
func firstTextLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			return t
		}
	}
	return ""
}

// clip cuts s to n runes, ending in "…" when cut.
func clip(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

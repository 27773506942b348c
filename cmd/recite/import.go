package main

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// importOptions are the inputs of `recite import FORMAT FILE`.
type importOptions struct {
	io   IOStreams
	dir  string
	imp  engine.ImportOptions // Format is the subcommand's
	json jsonFlag
}

func newImportCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *importOptions) error) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Turn an agent transcript into a conversation log",
		Long: `Import an agent transcript into .planning/conversations/ID.jsonl. Records keep
ids derived from the source, so importing the same file again adds nothing.`,
	}
	cmd.AddCommand(
		newImportFormatCmd(g, streams, runF, engine.ImportClaudeCode, "a Claude Code session transcript (JSONL)"),
		newImportFormatCmd(g, streams, runF, engine.ImportAider, "an aider chat history (.aider.chat.history.md)"),
		newImportFormatCmd(g, streams, runF, engine.ImportCodex, "a Codex CLI session file (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl)"),
	)
	return cmd
}

func newImportFormatCmd(g *globalOptions, streams IOStreams, runF func(context.Context, *importOptions) error, format, what string) *cobra.Command {
	opts := &importOptions{io: streams, imp: engine.ImportOptions{Format: format}}
	cmd := &cobra.Command{
		Use:   format + " FILE",
		Short: "Import " + what,
		Long: "Import " + what + ` into a conversation. The id is --as, or one derived
from the file name (extension removed; characters outside [A-Za-z0-9._-]
replaced by "-"). The conversation is created if needed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.dir, opts.imp.Path = g.dir, args[0]
			return runWith(cmd.Context(), opts, runF, importRun)
		},
	}
	cmd.Flags().StringVar(&opts.imp.ID, "as", "", "conversation `id` to import into")
	opts.json.addFlag(cmd, "print the report as JSON")
	return cmd
}

func importRun(ctx context.Context, opts *importOptions) error {
	pr := newProgress(opts.io)
	res, err := engine.New(opts.dir, pr.option()).Import(ctx, opts.imp)
	pr.done()
	if err != nil {
		return err
	}
	return opts.json.print(opts.io.Out, res, func(w io.Writer) error {
		printImport(w, res)
		return nil
	})
}

// maxImportDiagnostics is how many per-line diagnostics `recite import`
// prints; the rest are counted (--json lists them all).
const maxImportDiagnostics = 5

// printImport writes what an import did: entries imported, records
// appended, skipped entries by reason, and the first diagnostics.
func printImport(w io.Writer, res *engine.ImportResult) {
	r := res.Report
	verb := "into"
	if res.Created {
		verb = "into new conversation"
	}
	fmt.Fprintf(w, "imported %d of %d entries %s %s: %d records, %d appended, %d already present\n",
		r.Imported, r.Entries, verb, engine.ConversationLog(res.Conversation), r.Records, res.Appended, res.Present)
	reasons := make([]string, 0, len(r.Skipped))
	for k := range r.Skipped {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	for _, k := range reasons {
		fmt.Fprintf(w, "  skipped %d: %s\n", r.Skipped[k], k)
	}
	unknown := make([]string, 0, len(r.Unknown))
	for k := range r.Unknown {
		unknown = append(unknown, k)
	}
	sort.Strings(unknown)
	for _, k := range unknown {
		fmt.Fprintf(w, "  unknown field %d: %s (not imported: a newer format? please report it)\n", r.Unknown[k], k)
	}
	if res.Renamed > 0 {
		fmt.Fprintf(w, "  renamed %d: their ids were taken by other records of the log (kept under ids ending in ~HASH)\n", res.Renamed)
	}
	diags := r.Diagnostics
	if len(diags) > maxImportDiagnostics {
		diags = diags[:maxImportDiagnostics]
	}
	printDiagnostics(w, diags)
	if n := len(r.Diagnostics) - len(diags); n > 0 {
		fmt.Fprintf(w, "diagnostic: … and %d more malformed lines (all of them with --json)\n", n)
	}
}

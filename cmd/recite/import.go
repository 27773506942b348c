package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
	"github.com/recite-dev/recite/planning/conversation"
)

// importer turns a transcript into records.
type importer func(io.Reader) ([]conversation.Record, conversation.Report, error)

// importResult is what `recite import --json` prints.
type importResult struct {
	Conversation string              `json:"conversation"`
	Created      bool                `json:"created"`
	Appended     int                 `json:"appended"`
	Present      int                 `json:"already_present"`
	Report       conversation.Report `json:"report"`
}

func newImportCmd(g *globalOptions, streams IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Turn an agent transcript into a conversation log",
		Long: `Import an agent transcript into .planning/conversations/ID.jsonl. Records keep
ids derived from the source, so importing the same file again adds nothing.`,
	}
	cmd.AddCommand(
		newImportFormatCmd(g, streams, "claude-code", "a Claude Code session transcript (JSONL)", conversation.ImportClaudeCode),
		newImportFormatCmd(g, streams, "aider", "an aider chat history (.aider.chat.history.md)", conversation.ImportAider),
		newImportFormatCmd(g, streams, "codex", "a Codex CLI session file (~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl)", conversation.ImportCodex),
	)
	return cmd
}

func newImportFormatCmd(g *globalOptions, streams IOStreams, name, what string, imp importer) *cobra.Command {
	var as string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   name + " FILE",
		Short: "Import " + what,
		Long: "Import " + what + ` into a conversation. The id is --as, or one derived
from the file name (extension removed; characters outside [A-Za-z0-9._-]
replaced by "-"). The conversation is created if needed.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id := as
			if id == "" {
				id = idFromFile(args[0], name)
			}
			if err := conversation.ValidateID(id); err != nil {
				return usageError{err}
			}
			f, err := os.Open(args[0])
			if err != nil {
				return usageError{fmt.Errorf("import %s: %w", name, err)}
			}
			defer func() { _ = f.Close() }()
			recs, rep, err := imp(f)
			var fe *conversation.FormatError
			if errors.As(err, &fe) {
				// The wrong importer: exit 2, create nothing.
				return usageError{fmt.Errorf("%s %w", args[0], err)}
			}
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			s, err := openStore(g.dir)
			if err != nil {
				return err
			}
			res := importResult{Conversation: id, Report: rep}
			err = s.Create(cmd.Context(), id, conversation.Meta{AgentType: name, Title: filepath.Base(args[0])})
			switch {
			case err == nil:
				res.Created = true
			case errors.Is(err, conversation.ErrExists):
			default:
				return convError(err)
			}
			n, err := s.AppendNew(cmd.Context(), id, recs...)
			if err != nil {
				return convError(err)
			}
			res.Appended, res.Present = n, len(recs)-n
			for i := range res.Report.Diagnostics {
				res.Report.Diagnostics[i].Path = args[0]
			}
			if asJSON {
				return writeJSON(streams.Out, res)
			}
			printImport(streams.Out, res)
			return nil
		},
	}
	cmd.Flags().StringVar(&as, "as", "", "conversation `id` to import into")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as JSON")
	return cmd
}

func printImport(w io.Writer, res importResult) {
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
	diags := r.Diagnostics
	if len(diags) > maxImportDiagnostics {
		diags = diags[:maxImportDiagnostics]
	}
	printDiagnostics(w, diags)
	if n := len(r.Diagnostics) - len(diags); n > 0 {
		fmt.Fprintf(w, "diagnostic: … and %d more malformed lines (all of them with --json)\n", n)
	}
}

// maxImportDiagnostics is how many per-line diagnostics `recite import`
// prints; the rest are counted (--json lists them all).
const maxImportDiagnostics = 5

var idUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// idFromFile derives a conversation id from a transcript's file name: the
// base name without its extension (and aider's ".aider.chat.history"),
// unsafe characters replaced by "-", leading non-alphanumerics dropped, cut
// to 128 characters; the format's name when nothing is left.
func idFromFile(path, format string) string {
	base := filepath.Base(path)
	base = strings.TrimSuffix(base, filepath.Ext(base))
	base = strings.TrimSuffix(base, ".aider.chat.history")
	id := idUnsafe.ReplaceAllString(base, "-")
	id = strings.TrimLeft(id, "._-")
	if len(id) > 128 {
		id = id[:128]
	}
	if id == "" || conversation.ValidateID(id) != nil {
		return format
	}
	return id
}

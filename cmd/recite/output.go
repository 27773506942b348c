package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/recite-dev/recite/engine"
)

// jsonFlag is the --json flag of the commands that print a result, and the
// one place such a result is printed.
type jsonFlag struct{ on bool }

// addFlag registers --json on cmd with the command's own usage text.
func (j *jsonFlag) addFlag(cmd *cobra.Command, usage string) {
	cmd.Flags().BoolVar(&j.on, "json", false, usage)
}

// print writes v as JSON (printJSON) with --json, else its text form.
func (j jsonFlag) print(w io.Writer, v any, text func(io.Writer) error) error {
	if j.on {
		return printJSON(w, v)
	}
	return text(w)
}

// printJSON writes v as one JSON document indented by two spaces, with
// <, > and & left as they are, and a final newline.
func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printJSONLine writes v as one compact JSON line (a stream of events, one
// object per line, as encoding/json.Marshal writes it).
func printJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// printDiagnostics writes one "diagnostic: FILE:LINE: MESSAGE" line each.
func printDiagnostics(w io.Writer, diags []engine.Diagnostic) {
	for _, d := range diags {
		fmt.Fprintf(w, "diagnostic: %s\n", d)
	}
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

// oneLine flattens s to one line of at most max runes.
func oneLine(s string, max int) string {
	return clip(strings.Join(strings.Fields(s), " "), max)
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// firstLine is s up to its first line feed.
func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

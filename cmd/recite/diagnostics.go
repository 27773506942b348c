package main

import (
	"fmt"
	"io"

	"github.com/recite-dev/recite/engine"
)

// The commands that print diagnostics once, as engine.NoteDiagnostics
// records them. build, status and watch report the whole project's
// diagnostics (complete); say, preserve and a conversation run a part.
const (
	byBuild    = "build"
	byStatus   = "status"
	byWatch    = "watch"
	bySay      = "say"
	byPreserve = "preserve"
	byRun      = "run"
)

// completeBy reports the commands whose diagnostics are the whole set.
func completeBy(by string) bool { return by == byBuild || by == byStatus || by == byWatch }

// printDiagnosticsOnce writes the diagnostics no command printed before
// ("diagnostic: FILE:LINE: MESSAGE"), then one line counting those
// printed before: "3 known diagnostics (recite inspect to list them)".
// What was printed is remembered in engine.ShownDiagnosticsFile.
func printDiagnosticsOnce(w io.Writer, e *engine.Engine, diags []engine.Diagnostic, by string) {
	news := e.NoteDiagnostics(diags, completeBy(by), by)
	printDiagnostics(w, news.New)
	printKnown(w, len(news.Known))
}

// printKnown writes the count line of n diagnostics printed before.
func printKnown(w io.Writer, n int) {
	if n > 0 {
		fmt.Fprintf(w, "%d known %s (recite inspect to list them)\n", n, plural(n, "diagnostic", "diagnostics"))
	}
}

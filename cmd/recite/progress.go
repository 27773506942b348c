package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/recite-dev/recite/engine"
)

// progressLine shows the steps of a long operation on one line of a
// terminal's stderr, each drawn over the last with a carriage return, and
// clears it at the end. A step is drawn when its text changes (for bytes:
// when the whole percent does), so a large import draws at most about a
// hundred times.
type progressLine struct {
	w     io.Writer
	width int
	last  string // the text on the line now
}

// newProgress returns the progress line of the stderr of streams when it
// is a terminal, else nil (no progress: piped and redirected output never
// carries it). A nil *progressLine is valid: it shows nothing.
func newProgress(s IOStreams) *progressLine {
	if !s.ErrTerminal {
		return nil
	}
	// Raw: the line is redrawn with carriage returns; its text is
	// escaped in show.
	return &progressLine{w: s.raw().ErrOut, width: s.width()}
}

// option is the engine option that reports progress to p.
func (p *progressLine) option() engine.Option {
	if p == nil {
		return func(*engine.Engine) {}
	}
	return engine.WithProgress(p.show)
}

// show draws one step.
func (p *progressLine) show(pr engine.Progress) {
	text := termText(progressText(pr))
	if text == p.last {
		return
	}
	text = ansi.Truncate(text, p.width-1, "…")
	pad := max(0, ansi.StringWidth(p.last)-ansi.StringWidth(text))
	fmt.Fprint(p.w, "\r"+text+strings.Repeat(" ", pad))
	p.last = text
}

// done clears the line; the command's own output follows.
func (p *progressLine) done() {
	if p == nil || p.last == "" {
		return
	}
	fmt.Fprint(p.w, "\r"+strings.Repeat(" ", ansi.StringWidth(p.last))+"\r")
	p.last = ""
}

// progressText is a step in words: "reading session.jsonl: 42% of 3.4
// MB", "building target agent (1 of 2)", "reading the planning tree…".
func progressText(pr engine.Progress) string {
	switch {
	case pr.Unit == "bytes" && pr.Total > 0:
		return fmt.Sprintf("%s: %d%% of %.1f MB", pr.Stage, pr.Done*100/pr.Total, float64(pr.Total)/1e6)
	case pr.Total > 0:
		return fmt.Sprintf("%s (%d of %d)", pr.Stage, pr.Done+1, pr.Total)
	}
	return pr.Stage + "…"
}

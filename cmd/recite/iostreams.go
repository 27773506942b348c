package main

import (
	"io"
	"os"

	"golang.org/x/term"
)

// defaultWidth is the width of the output when the terminal does not say
// (and when stdout is not a terminal).
const defaultWidth = 80

// IOStreams are the standard streams a command reads and writes, and what
// is known about the terminal behind them; tests pass buffers and set the
// terminal facts to fake one.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer

	// InTerminal, OutTerminal and ErrTerminal report that In, Out and
	// ErrOut are terminals.
	InTerminal, OutTerminal, ErrTerminal bool
	// Width is Out's terminal width in columns; 0 when unknown.
	Width int
	// NoColor is true when the environment asks for no colour: NO_COLOR
	// set to a non-empty value (https://no-color.org), or TERM=dumb.
	NoColor bool

	// rawOut and rawErr, when set, are Out and ErrOut before the
	// terminal-safe escaping (termWriter) systemStreams puts over them:
	// for the commands that speak a protocol or write data (raw).
	rawOut, rawErr io.Writer
}

// raw returns s with Out and ErrOut as the process's own streams, not
// escaped: for the hook (Claude Code reads its output), the MCP server
// (JSON-RPC) and render (a request body, byte for byte).
func (s IOStreams) raw() IOStreams {
	if s.rawOut != nil {
		s.Out = s.rawOut
	}
	if s.rawErr != nil {
		s.ErrOut = s.rawErr
	}
	return s
}

// flush writes what the terminal-safe writers hold back.
func (s IOStreams) flush() {
	for _, w := range []io.Writer{s.Out, s.ErrOut} {
		if t, ok := w.(*termWriter); ok {
			_ = t.Flush()
		}
	}
}

// systemStreams are the process's standard streams with the facts of the
// terminal they are attached to; getenv reads the environment.
func systemStreams(getenv func(string) string) IOStreams {
	// Every text for a terminal is escaped (termText): file names and
	// file text may hold control characters.
	s := IOStreams{
		In: os.Stdin, Out: &termWriter{w: os.Stdout}, ErrOut: &termWriter{w: os.Stderr},
		rawOut: os.Stdout, rawErr: os.Stderr,
		InTerminal:  term.IsTerminal(int(os.Stdin.Fd())),
		OutTerminal: term.IsTerminal(int(os.Stdout.Fd())),
		ErrTerminal: term.IsTerminal(int(os.Stderr.Fd())),
		NoColor:     getenv("NO_COLOR") != "" || getenv("TERM") == "dumb",
	}
	if s.OutTerminal {
		if w, _, err := term.GetSize(int(os.Stdout.Fd())); err == nil && w > 0 {
			s.Width = w
		}
	}
	return s
}

// color reports whether Out may carry colour: it is a terminal, the
// environment does not forbid colour, and the command prints text (not
// JSON).
func (s IOStreams) color(json bool) bool {
	return s.OutTerminal && !s.NoColor && !json
}

// width is Out's width in columns: the terminal's, else defaultWidth.
func (s IOStreams) width() int {
	if s.OutTerminal && s.Width > 0 {
		return s.Width
	}
	return defaultWidth
}

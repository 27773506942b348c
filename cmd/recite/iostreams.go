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
}

// systemStreams are the process's standard streams with the facts of the
// terminal they are attached to; getenv reads the environment.
func systemStreams(getenv func(string) string) IOStreams {
	s := IOStreams{
		In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr,
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

package engine

import "io"

// Progress is one step of a long operation (a build, an import), reported
// to the function given with WithProgress so that a terminal can show it.
type Progress struct {
	// Stage says what is being done: "reading the planning tree",
	// "building target agent", "reading session.jsonl".
	Stage string
	// Done and Total count the stage's units so far and in all (Total 0
	// when unknown); Unit names them: "targets" or "bytes".
	Done, Total int64
	Unit        string
}

// Option configures an Engine (New).
type Option func(*Engine)

// WithProgress makes the engine call f with each step of a build
// (reading the planning tree, then each target) and of an import (the
// bytes of the transcript read). f is called on the goroutine of the
// operation, never concurrently, and must not block for long.
func WithProgress(f func(Progress)) Option {
	return func(e *Engine) { e.progress = f }
}

// report calls the progress function, when there is one.
func (e *Engine) report(p Progress) {
	if e.progress != nil {
		e.progress(p)
	}
}

// progressReader reports the bytes read from r as Progress of stage,
// total bytes in all.
type progressReader struct {
	r     io.Reader
	e     *Engine
	stage string
	done  int64
	total int64
}

func (p *progressReader) Read(b []byte) (int, error) {
	n, err := p.r.Read(b)
	if n > 0 {
		p.done += int64(n)
		p.e.report(Progress{Stage: p.stage, Done: p.done, Total: p.total, Unit: "bytes"})
	}
	return n, err
}

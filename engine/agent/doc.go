// Package agent runs recite.yaml's agent.command for one turn of a
// conversation (Spawn: `sh -c` in the project, prompt on stdin or in a
// file, bounded by agent.timeout, in its own process group on Unix), tells
// the files the turn modified or committed (ModifiedFiles, Track), and
// makes the turn's iteration record (NextIteration, IterationRecord).
//
// It may import engine/config, engine/signals, engine/internal/gitstore,
// engine/internal/layout, engine/internal/textutil and
// planning/conversation; never engine.
package agent

package engine

import (
	"cmp"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/recite-dev/recite/engine/claudecode"
	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/health"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/engine/scope"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// PreservedFile is where preservation blocks are appended
// (docs/formats.md#preservation-blocks).
const PreservedFile = layout.PreservedFile

// SignalsReport is the stop-signal side of a status: the loop health and
// circuit breaker, and every stop signal of the sources (health.Report).
type SignalsReport = health.Report

// SignalMessages adapts a conversation's messages for signals.Extract
// (health.SignalMessages).
func SignalMessages(c *conversation.Conversation) []signals.Message { return health.SignalMessages(c) }

// IterationRecords adapts iteration records for signals.Evaluate
// (health.IterationRecords).
func IterationRecords(recs []conversation.Record) []signals.IterationRecord {
	return health.IterationRecords(recs)
}

// collectSignals reads the conversations of src and extracts the stop
// signals and health (health.Collect) of the project, its active loop
// and the Claude Code hook's agent filled in.
func (e *Engine) collectSignals(ctx context.Context, cfg *config.Config, proj *planning.Project, src health.Sources) (*health.Collected, []Diagnostic) {
	src.Active = scope.ActiveLoop(proj)
	src.HookAgents = claudecode.HookAgents
	src.Store = e.readStore()
	return health.Collect(ctx, e.dir, cfg, proj, src)
}

// promptHealth computes the prompt's health and approach lines from the
// project's health (health.PromptHealth: the active loop's rows, else the
// conversations' iteration records, as `recite status` reports them).
func (e *Engine) promptHealth(ctx context.Context, cfg *config.Config, proj *planning.Project) (lines, approach []string) {
	return health.PromptHealth(ctx, e.dir, e.readStore(), cfg, scope.ActiveLoop(proj))
}

// readStore is the project's conversation store for reading, sharing the
// engine's decoded records (Engine.records), or nil when the project has
// no conversations folder (reading creates none) or it cannot be opened
// (the readers then report why).
func (e *Engine) readStore() *conversation.Store {
	dir := filepath.Join(e.dir, filepath.FromSlash(ConversationsDir))
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return nil
	}
	s, err := conversation.Open(dir)
	if err != nil {
		return nil
	}
	s.Records = e.records
	return s
}

// readPreserved parses the preservation blocks of context-preserved.md
// (every layout signals.ParseBlocks knows); a missing file yields none. It
// enters the prompt, so it is read through scope.ReadFile: a symbolic link
// that leads out of the project is a *scope.OutsideError.
func (e *Engine) readPreserved() ([]signals.Block, []Diagnostic, error) {
	b, err := scope.ReadFile(e.dir, PreservedFile, scope.MaxPreservedFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	blocks, diags := signals.ParseBlocks(PreservedFile, b)
	return blocks, diags, nil
}

// latestPreserved returns the newest preservation block of
// context-preserved.md (signals.Latest of signals.ParseBlocks), rendered in
// the canonical format, with the parser's diagnostics. ok is false when the
// file is absent or holds no block.
func (e *Engine) latestPreserved() (f prompt.File, ok bool, diags []Diagnostic) {
	blocks, diags, err := e.readPreserved()
	if err != nil {
		return prompt.File{}, false, []Diagnostic{{Path: PreservedFile, Message: err.Error()}}
	}
	b, ok := signals.Latest(blocks)
	if !ok {
		return prompt.File{}, false, diags
	}
	return prompt.File{Path: PreservedFile, Text: signals.RenderBlock(b)}, true, diags
}

// addSignals sets rep.Signals from the planning tree and the default
// conversations (Status), their secrets redacted (redactSignals);
// problems become diagnostics, re-sorted by path and line.
func (e *Engine) addSignals(ctx context.Context, rep *Report) {
	cfg, _, proj, err := e.load()
	if err != nil {
		rep.Diagnostics = append(rep.Diagnostics, Diagnostic{Path: PlanningDir, Message: "stop signals: " + err.Error()})
		return
	}
	col, diags := e.collectSignals(ctx, cfg, proj, health.Sources{})
	sr := col.Report
	// Status is often run by the agent itself: no secret in its output.
	sr.Signals = e.redactSignals(sr.Signals)
	rep.Signals = sr
	if len(diags) == 0 {
		return
	}
	rep.Diagnostics = append(rep.Diagnostics, diags...)
	slices.SortStableFunc(rep.Diagnostics, func(a, b Diagnostic) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Line, b.Line))
	})
}

// LatestPreserved returns the newest preservation block of
// context-preserved.md in the canonical format, and false when the file is
// absent, unreadable or holds no block (its diagnostics come with Status
// and Build).
func (e *Engine) LatestPreserved() (text string, ok bool) {
	f, ok, _ := e.latestPreserved()
	return f.Text, ok
}

package engine

import (
	"context"
	"errors"
	"fmt"

	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recite-dev/recite/engine/agent"
	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/health"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning"
)

// PreserveOptions configures Preserve.
type PreserveOptions struct {
	// Trigger is manual (when ""), compaction or sabbath_rest
	// (docs/formats.md#preservation-blocks).
	Trigger string
	// Conversations are the conversation ids whose messages and iteration
	// records are read; nil reads the targets' conversations and the most
	// recently active one.
	Conversations []string
	// Now stamps the block; nil means time.Now.
	Now func() time.Time

	// tail, when > 0, reads only about the last tail messages of each
	// conversation (health.TailConversation), as the Claude Code hook does to stay
	// within its deadline on long logs.
	tail int
	// lenient is the hook's mode: a recite.yaml that does not load is a
	// diagnostic and config.Default() is used (loadLenient), and when ctx
	// ends before the block is complete, no block is written and that is
	// a diagnostic, not an error.
	lenient bool
	// ifChanged writes no block when it would say what the latest block
	// says, its time aside (Gemini CLI's PreCompress fires before every
	// model call, not only before a compression).
	ifChanged bool
}

// PreserveResult is what Preserve wrote.
type PreserveResult struct {
	// Path is the project-relative file the block was appended to
	// (PreservedFile).
	Path string `json:"path"`
	// Block is the block as written.
	Block signals.Block `json:"block"`
	// Health is the loop health the breaker line came from.
	Health signals.Health `json:"health"`
	// Summary is a one-line account of the block.
	Summary string `json:"summary"`
	// Diagnostics are problems met on the way (no git repository, an
	// unreadable conversation, a malformed planning file).
	Diagnostics []Diagnostic `json:"diagnostics"`
	// Unchanged reports that no block was written because the latest one
	// says the same (the hook's PreserveCompactionIfChanged).
	Unchanged bool `json:"unchanged,omitempty"`
}

// sameBlock reports a block about to be written that says what the
// latest (a) says: the same once their time, breaker counters and
// modified files are left aside (those move at every turn; the signals,
// the task, the last change and the hypothesis are what a compaction must
// keep).
func sameBlock(a, b signals.Block) bool {
	for _, x := range []*signals.Block{&a, &b} {
		x.Timestamp, x.Breaker, x.FilesModified, x.Line = time.Time{}, "", nil, 0
	}
	return signals.RenderBlock(a) == signals.RenderBlock(b)
}

// validTrigger reports a known preservation trigger.
func validTrigger(t string) bool {
	return t == signals.TriggerManual || t == signals.TriggerCompaction || t == signals.TriggerSabbathRest
}

// Preserve appends one preservation block to .planning/context-preserved.md
// (docs/formats.md#preservation-blocks, canonical format; docs/architecture.md#append-only-logs: append-only,
// one locked write): the stop signals of the planning tree and the selected
// conversations (signals.Extract), the circuit-breaker line of their health
// (signals.Evaluate with recite.yaml's circuit_breaker thresholds), and the
// working state: the current task, the last change, the open debug
// hypothesis, the last confidence and the files git reports modified (at
// most 50, recite's own outputs left out; no repository is a diagnostic).
// Every text of the block is redacted first (redactBlock): the file is
// committed by `recite commit`, so it never holds a secret. Errors: *InputError for a missing planning tree, a bad recite.yaml or an
// unknown trigger; the append's error otherwise.
func (e *Engine) Preserve(ctx context.Context, opts PreserveOptions) (*PreserveResult, error) {
	trigger := opts.Trigger
	if trigger == "" {
		trigger = signals.TriggerManual
	}
	if !validTrigger(trigger) {
		return nil, &InputError{Err: fmt.Errorf("unknown trigger %q (want manual, compaction or sabbath_rest)", trigger)}
	}
	var cfg *config.Config
	var proj *planning.Project
	var cfgDiags []Diagnostic
	var err error
	if opts.lenient {
		cfg, proj, cfgDiags, err = e.loadLenient()
	} else {
		cfg, _, proj, err = e.load()
	}
	if err != nil {
		return nil, err
	}
	now := time.Now
	if opts.Now != nil {
		now = opts.Now
	}
	res := &PreserveResult{Path: PreservedFile, Diagnostics: cfgDiags}
	if res.Diagnostics == nil {
		res.Diagnostics = []Diagnostic{}
	}
	for _, d := range proj.Diagnostics {
		d.Path = PlanningDir + "/" + d.Path
		res.Diagnostics = append(res.Diagnostics, d)
	}
	col, diags := e.collectSignals(ctx, cfg, proj, health.Sources{Conversations: opts.Conversations, Tail: opts.tail})
	res.Diagnostics = append(res.Diagnostics, diags...)
	b := signals.Block{Timestamp: now().UTC(), Trigger: trigger, Signals: col.Report.Signals, Breaker: col.Report.BreakerLine}
	health.WorkingState(&b, proj, col)
	files, err := agent.ModifiedFiles(ctx, e.dir)
	if err != nil {
		res.Diagnostics = append(res.Diagnostics, Diagnostic{Path: ".", Message: "files modified omitted: " + err.Error()})
	}
	b.FilesModified = files
	// context-preserved.md is committed (HistoryPaths) and printed by the
	// hook: it never holds a secret.
	b = e.redactBlock(b)
	if err := ctx.Err(); err != nil {
		// Out of time: what was collected may lack signals, and a block
		// is written whole or not at all, so none is written and the
		// previous one stays the latest (docs/architecture.md#hook-deadline).
		if !opts.lenient {
			return nil, fmt.Errorf("preserve: %w", err)
		}
		res.Diagnostics = append(res.Diagnostics, Diagnostic{Path: PreservedFile, Message: "deadline reached before the block was complete: no block written, the previous one stays: " + err.Error()})
		res.Summary = "no block written (deadline reached)"
		return res, nil
	}
	if opts.ifChanged {
		if blocks, _, err := e.readPreserved(); err == nil {
			if latest, ok := signals.Latest(blocks); ok && sameBlock(latest, b) {
				res.Block, res.Health = latest, col.Report.Health
				res.Summary = "no block written (the latest says the same)"
				res.Unchanged = true
				return res, nil
			}
		}
	}
	if err := signals.AppendBlock(ctx, filepath.Join(e.dir, filepath.FromSlash(PreservedFile)), b); err != nil {
		return nil, err
	}
	res.Block, res.Health = b, col.Report.Health
	res.Summary = blockSummary(b, col.Report.Health)
	return res, nil
}

// redactSignals returns a copy of sigs with every secret in their texts,
// details, ids, key lines, commands and resolutions replaced by its
// placeholder (secrets.Redactor.Text; docs/formats.md#secrets-in-committed-files):
// what goes into a preservation block, the hook's output and `recite
// verify`'s. The placeholders are deterministic per project, so the same
// error redacts to the same text and a summary written from redacted
// context can still be checked (signals.LostIndexes with both forms). A
// signal whose text changed gets the hash of the redacted text, so the
// block's hash cannot be used to test a guessed secret offline.
func (e *Engine) redactSignals(sigs []signals.Signal) []signals.Signal {
	out := slices.Clone(sigs)
	for i := range out {
		s := &out[i]
		if t := e.redactor.Text("", s.Text); t != s.Text {
			s.Text = t
			if s.Hash != "" {
				s.Hash = signals.Hash(t)
			}
		}
		s.Detail = e.redactor.Text("", s.Detail)
		s.ID = e.redactor.Text("", s.ID)
		s.KeyLine = e.redactor.Text("", s.KeyLine)
		s.Command = e.redactor.Text("", s.Command)
		s.ResolvedBy = e.redactor.Text("", s.ResolvedBy)
	}
	return out
}

// redactBlock is b with its signals (redactSignals) and its free-text
// working state (task, last change, hypothesis, files) redacted.
func (e *Engine) redactBlock(b signals.Block) signals.Block {
	b.Signals = e.redactSignals(b.Signals)
	b.Task = e.redactor.Text("", b.Task)
	b.LastChange = e.redactor.Text("", b.LastChange)
	b.Hypothesis = e.redactor.Text("", b.Hypothesis)
	b.Breaker = e.redactor.Text("", b.Breaker)
	if len(b.FilesModified) > 0 {
		files := make([]string, len(b.FilesModified))
		for i, f := range b.FilesModified {
			files[i] = e.redactor.Text("", f)
		}
		b.FilesModified = files
	}
	return b
}

// lostSignals returns the signals of sigs that summary lost, redacted
// (redactSignals): a signal counts as kept when the summary keeps either
// its raw or its redacted form, or the summary's own redaction keeps the
// redacted form, since a summary may be written from the raw conversation
// or from recite's redacted context, and the logs hold signals redacted.
func (e *Engine) lostSignals(summary string, sigs []signals.Signal) []signals.Signal {
	red := e.redactSignals(sigs)
	// The logs hold signals redacted: a summary written from the raw
	// conversation keeps them when its own redaction does.
	if r := e.redactor.Text("", summary); r != summary {
		summary += "\n\n" + r
	}
	lost := []signals.Signal{}
	for _, i := range signals.LostIndexes(summary, sigs, red) {
		lost = append(lost, red[i])
	}
	return lost
}

// loadLenient is load for the Claude Code hook, which must act even on a
// broken configuration: a recite.yaml that does not load is a diagnostic
// naming the file and line (its *config.Error), and config.Default() is
// used instead. A missing or unreadable planning tree is still an error.
func (e *Engine) loadLenient() (*config.Config, *planning.Project, []Diagnostic, error) {
	pdir, err := e.planningDir()
	if err != nil {
		return nil, nil, nil, err
	}
	var diags []Diagnostic
	cfg, _, err := config.Load(e.dir)
	if err != nil {
		d := Diagnostic{Path: config.FileName, Message: err.Error()}
		var ce *config.Error
		if errors.As(err, &ce) {
			d.Path, d.Line, d.Message = ce.Path, ce.Line, ce.Msg
		}
		d.Message += " (using the default configuration)"
		diags = append(diags, d)
		cfg = config.Default()
	}
	proj, err := e.loadPlanning(pdir)
	if err != nil {
		return nil, nil, nil, err
	}
	return cfg, proj, diags, nil
}

// blockSummary is one line: the signal counts by kind, the breaker and the
// number of files modified.
func blockSummary(b signals.Block, h signals.Health) string {
	n := map[signals.Kind]int{}
	for _, s := range b.Signals {
		n[s.Kind]++
	}
	plural := func(k int, one, many string) string {
		if k == 1 {
			return "1 " + one
		}
		return fmt.Sprintf("%d %s", k, many)
	}
	parts := []string{
		plural(n[signals.KindError], "error", "errors"),
		plural(n[signals.KindBlocked], "blocked", "blocked"),
		plural(n[signals.KindFailedApproach], "failed approach", "failed approaches"),
		plural(n[signals.KindCircuitBreaker], "circuit-breaker signal", "circuit-breaker signals"),
		plural(n[signals.KindStop], "stop", "stops"),
	}
	s := strings.Join(parts, ", ") + fmt.Sprintf("; breaker %s (%s)", h.Breaker, b.Breaker)
	return s + "; " + plural(len(b.FilesModified), "file modified", "files modified")
}

// VerifyOptions configures Verify.
type VerifyOptions struct {
	// FromBlock checks the summary against the latest preservation block
	// of context-preserved.md instead of the current sources.
	FromBlock bool
	// Conversations are read for signals when FromBlock is false; nil
	// reads the targets' conversations and the most recently active one.
	Conversations []string
}

// VerifyResult is what a summary lost.
type VerifyResult struct {
	// Checked is how many stop signals were looked for, and Against where
	// they came from ("sources" or the block's "path:line").
	Checked int    `json:"checked"`
	Against string `json:"against"`
	// Lost are the signals the summary lost, in signal order, with their
	// secrets redacted (a signal is kept when the summary keeps its raw or
	// its redacted form).
	Lost []signals.Signal `json:"lost"`
	// Reinject is the canonical block to re-inject after the summary
	// (signals.ReinjectBlock); "" when nothing was lost.
	Reinject string `json:"reinject"`
	// Diagnostics are problems met while reading the sources.
	Diagnostics []Diagnostic `json:"diagnostics"`
}

// Verify checks a compaction summary for the stop signals it lost
// (signals.Verify: errors verbatim after whitespace folding, the other
// kinds by id or key phrase), against the current sources (the planning
// tree and the selected conversations, as Preserve reads them) or, with
// FromBlock, the latest preservation block. Each signal is looked for in
// its raw and its redacted form; Lost and Reinject hold only the redacted
// form (no secret is printed). Errors: *InputError for a
// missing planning tree, a bad recite.yaml, or FromBlock without a block.
func (e *Engine) Verify(ctx context.Context, summary string, opts VerifyOptions) (*VerifyResult, error) {
	cfg, _, proj, err := e.load()
	if err != nil {
		return nil, err
	}
	res := &VerifyResult{Diagnostics: []Diagnostic{}, Lost: []signals.Signal{}}
	var sigs []signals.Signal
	if opts.FromBlock {
		blocks, diags, err := e.readPreserved()
		if err != nil {
			return nil, &InputError{Err: err}
		}
		res.Diagnostics = append(res.Diagnostics, diags...)
		b, ok := signals.Latest(blocks)
		if !ok {
			return nil, &InputError{Err: fmt.Errorf("%s holds no preservation block (run `recite preserve` first)", PreservedFile)}
		}
		sigs = b.Signals
		res.Against = fmt.Sprintf("%s:%d", PreservedFile, b.Line)
	} else {
		col, diags := e.collectSignals(ctx, cfg, proj, health.Sources{Conversations: opts.Conversations})
		res.Diagnostics = append(res.Diagnostics, diags...)
		sigs = col.Report.Signals
		res.Against = "sources"
	}
	res.Checked = len(sigs)
	// Compared raw and redacted; only the redacted form is reported.
	res.Lost = e.lostSignals(summary, sigs)
	res.Reinject = signals.ReinjectBlock(res.Lost)
	return res, nil
}

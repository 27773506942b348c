// Package health reads a project's loop health and stop signals: it
// collects the signals of the planning tree and of conversations (whole
// logs, or only their tails within a deadline), the open signals a new
// session must know (OpenSignals: the tails of the recent conversations),
// evaluates the circuit breaker on the project's iterations (Iterations:
// the active loop's rows, else the newest iteration records of the
// default conversations — the same for status, the recitation, the
// prompts and preservation blocks), renders the health and approach lines
// prompts carry, and fills a preservation block's working state.
//
// It may import engine/config, engine/signals, engine/internal/layout,
// engine/internal/textutil, planning, planning/conversation and markdown;
// never engine or its other subpackages (the active loop and the hook's
// agent name come in Sources).
package health

import (
	"cmp"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/internal/textutil"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// Report is the stop-signal side of a status: the loop health and
// circuit breaker, and every stop signal of the sources.
type Report struct {
	// Health is signals.Evaluate of the iterations with the thresholds of
	// recite.yaml's circuit_breaker block.
	Health signals.Health `json:"health"`
	// BreakerLine is Health.BreakerLine(): "stall: N/T | spin: N/T |
	// decline: N%" (T the BREAK thresholds).
	BreakerLine string `json:"breaker_line"`
	// Iterations is how many iterations were evaluated, and IterationSource
	// where they came from (a conversation log or a loop file; "" when
	// none).
	Iterations      int    `json:"iterations"`
	IterationSource string `json:"iteration_source,omitempty"`
	// Conversations are the conversation ids whose messages and iteration
	// records were read.
	Conversations []string `json:"conversations"`
	// Signals are the stop signals (signals.Extract order: by kind, then
	// first appearance).
	Signals []signals.Signal `json:"signals"`
}

// Collected is what Collect read: the report, and what else preservation
// needs of the sources (the active loop, the iterations evaluated and the
// conversations read).
type Collected struct {
	Report *Report
	// Loop is the active loop (nil: none); Iters the iteration records
	// Health was evaluated on; Convs the conversations read.
	Loop  *planning.Loop
	Iters []signals.IterationRecord
	Convs []*conversation.Conversation
}

// Sources selects the conversations read for stop signals.
type Sources struct {
	// Conversations are the ids to read; when nil, DefaultConversations
	// decides.
	Conversations []string
	// Tail, when > 0, reads only the last Tail messages of each
	// conversation and the iteration records among them
	// (ConversationWindow); 0 reads the horizon a build reads.
	Tail int
	// HookAgents name the agents whose iteration records carry the hash of
	// an error its session's tool messages already hold verbatim (the
	// Claude Code hook's turn records): that hash is not a second signal.
	HookAgents []string
	// Active is the active loop (nil: none).
	Active *planning.Loop
	// Store, when set, is the conversation store to read through (its
	// RecordCache shared with the process's other readers); nil opens the
	// project's.
	Store *conversation.Store
}

// DefaultConversations are the conversations a status or a manual preserve
// reads: those the targets carry, the most recently active conversation of
// the store (the session an agent hook records) and the most recently
// active one holding iteration records (the session that last worked, when
// a new one has only started), once each, sorted.
func DefaultConversations(cfg *config.Config, store *conversation.Store) []string {
	seen := map[string]bool{}
	var ids []string
	add := func(id string) {
		if id != "" && !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	for _, t := range cfg.Targets {
		add(t.Conversation)
	}
	newest := func(infos []conversation.Info) conversation.Info {
		return slices.MaxFunc(infos, func(a, b conversation.Info) int {
			return cmp.Or(a.LastActivity.Compare(b.LastActivity), cmp.Compare(a.ID, b.ID))
		})
	}
	if infos, _, err := store.Infos(context.Background()); err == nil && len(infos) > 0 {
		add(newest(infos).ID)
		worked := slices.DeleteFunc(infos, func(in conversation.Info) bool { return in.Iterations == 0 })
		if len(worked) > 0 {
			add(newest(worked).ID)
		}
	}
	slices.Sort(ids)
	return ids
}

// tailGrace bounds the health reads of a tail Collect whose context has
// ended (the lock waits of Store.Window).
const tailGrace = 250 * time.Millisecond

// Collect reads the conversations of src in the project at dir and
// extracts the stop signals of the project and those conversations, then
// evaluates the project's health on its iterations (Iterations: the Loop
// Progress rows of the current loop when it has any, else the newest
// iteration records of the default conversations). A conversation that
// is missing or unreadable is a diagnostic. Each log is read from its end
// through its index (ConversationWindow: the newest part, and the older
// stop and error records of its ledger), even after ctx ends.
func Collect(ctx context.Context, dir string, cfg *config.Config, proj *planning.Project, src Sources) (*Collected, []markdown.Diagnostic) {
	var diags []markdown.Diagnostic
	rep := &Report{Conversations: []string{}}
	col := &Collected{Report: rep, Loop: src.Active}
	store := src.Store
	if store == nil {
		var err error
		if store, err = conversation.Open(filepath.Join(dir, filepath.FromSlash(layout.ConversationsDir))); err != nil {
			diags = append(diags, markdown.Diagnostic{Path: layout.ConversationsDir, Message: err.Error()})
		}
	}
	ids := src.Conversations
	if ids == nil && store != nil {
		ids = DefaultConversations(cfg, store)
	}
	var msgs []signals.Message
	var convIters []conversation.Record
	for _, id := range ids {
		// Windows are bounded (TailMaxBytes, history.HorizonBytes) and
		// carry the newest errors: they are read even out of time.
		if store == nil {
			break
		}
		c, rdiags, err := readLate(ctx, store, id, src.Tail)
		for _, d := range rdiags {
			if rel, ok := layout.RelPath(dir, d.Path); ok {
				d.Path = rel
			}
			diags = append(diags, d)
		}
		if err != nil {
			diags = append(diags, markdown.Diagnostic{Path: layout.ConversationLog(id), Message: fmt.Sprintf("stop signals: %v", err)})
			continue
		}
		rep.Conversations = append(rep.Conversations, id)
		col.Convs = append(col.Convs, c)
		msgs = append(msgs, SignalMessages(c)...)
		convIters = append(convIters, c.Iterations...)
	}
	slices.SortStableFunc(convIters, func(a, b conversation.Record) int { return a.Time.Compare(b.Time) })
	var convRecs []signals.IterationRecord
	if len(convIters) > 0 {
		convRecs = IterationRecords(convIters)
	}
	// Health: the project's, as status, the recitation and the prompts
	// report it (Iterations), whatever conversations were read for
	// signals.
	hctx := ctx
	if src.Tail > 0 && ctx.Err() != nil {
		// Out of time, tails are still read (bounded), as above.
		var cancel context.CancelFunc
		hctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), tailGrace)
		defer cancel()
	}
	var hdiags []markdown.Diagnostic
	col.Iters, rep.IterationSource, hdiags = Iterations(hctx, store, cfg, col.Loop)
	diags = append(diags, relDiags(dir, hdiags)...)
	rep.Iterations = len(col.Iters)
	// A loop's rows are extracted from the project (FromLoop); only the
	// conversations' iteration records are passed on, or the loop's errors
	// would count twice.
	// The Claude Code hook's turn records carry the hash of an error the
	// session's tool messages already hold verbatim: not a second signal.
	extractRecs := slices.Clone(convRecs)
	for i, r := range convIters {
		if slices.Contains(src.HookAgents, r.Agent) {
			extractRecs[i].ErrorHash, extractRecs[i].ErrorText = "", ""
		}
	}
	rep.Signals = planningSources(proj, extractCached(dir, rep.Conversations, proj, msgs, extractRecs))
	if rep.Signals == nil {
		rep.Signals = []signals.Signal{}
	}
	rep.Health = signals.Evaluate(col.Iters, cfg.CircuitBreaker.Effective())
	rep.BreakerLine = rep.Health.BreakerLine()
	return col, diags
}

// planningSources gives the signals of planning files their sources
// relative to the project ("path:line" is relative to .planning; say so).
func planningSources(proj *planning.Project, sigs []signals.Signal) []signals.Signal {
	for i := range sigs {
		if s := &sigs[i]; s.Source != "" && !strings.HasPrefix(s.Source, layout.PlanningDir+"/") && !strings.HasPrefix(s.Source, "iteration ") && looksLikePlanningPath(proj, s.Source) {
			s.Source = layout.PlanningDir + "/" + s.Source
		}
	}
	return sigs
}

// looksLikePlanningPath reports whether a "path:line" source names a file
// of the planning tree.
func looksLikePlanningPath(proj *planning.Project, source string) bool {
	if proj == nil {
		return false
	}
	p := source
	if i := strings.LastIndexByte(p, ':'); i > 0 {
		p = p[:i]
	}
	for _, f := range proj.Files {
		if f.Path == p {
			return true
		}
	}
	return false
}

// SignalMessages adapts a conversation's messages for signals.Extract: every
// message that is not internal and not a compaction summary, with its
// source "LOG#ID" and, for a tool result, the command of the call it
// answers (conversation.CallCommands: the Bash command, else the tool and
// its main argument; "" when the call is not among c's messages); for the
// newest part of a log, the older records of the index's ledger
// (Conversation.Signals) first.
func SignalMessages(c *conversation.Conversation) []signals.Message {
	var out []signals.Message
	cmds := conversation.CallCommands(c.Messages)
	for _, r := range slices.Concat(c.Signals, c.Messages) {
		if r.Internal || r.CompactSummary {
			continue
		}
		id := r.Conversation
		if id == "" {
			id = c.ID
		}
		out = append(out, signals.Message{
			ID: r.ID, Role: r.Role, Content: r.Content, ToolName: r.ToolName, IsError: r.IsError,
			Timestamp: r.Time, Source: layout.ConversationLog(id) + "#" + r.ID, Command: cmds[r.ToolCallID],
		})
	}
	return out
}

// IterationRecords adapts iteration records (in the given order) for
// signals.Evaluate: N counts from 1, FilesChanged is len(FilesModified),
// ErrorText the content of a record flagged IsError, and OutputLines the
// number of content lines.
func IterationRecords(recs []conversation.Record) []signals.IterationRecord {
	out := make([]signals.IterationRecord, 0, len(recs))
	for i, r := range recs {
		it := signals.IterationRecord{N: i + 1, FilesChanged: len(r.FilesModified), Timestamp: r.Time}
		if r.IsError {
			it.ErrorText = r.Content
		}
		if c := strings.TrimRight(r.Content, "\n"); c != "" {
			it.OutputLines = strings.Count(c, "\n") + 1
		}
		// A `conversation run` record says what the agent printed and
		// hashed its error (engine/agent).
		if r.OutputLines != nil {
			it.OutputLines = *r.OutputLines
		}
		it.ErrorHash = r.ErrorHash
		out = append(out, it)
	}
	return out
}

// Lines are the Health section's lines and the recitation's health
// part (at most 3 shown there): the loop and its iteration, the health state
// with its first reason, and the circuit breaker with its counters against
// the BREAK thresholds.
func Lines(rep *Report, active *planning.Loop) []string {
	var lines []string
	if l := active; l != nil {
		line := "Loop " + l.ID
		if l.Status != "" {
			line += ": " + l.Status
		}
		if n := len(l.Iterations); n > 0 {
			line += fmt.Sprintf(", iteration %d", l.Iterations[n-1].N)
			if l.MaxIterations > 0 {
				line += fmt.Sprintf(" of %d", l.MaxIterations)
			}
		}
		lines = append(lines, line)
	}
	if rep.Iterations == 0 {
		return lines
	}
	h := rep.Health
	state := "State: " + h.State
	for _, r := range h.Reasons {
		if strings.HasPrefix(r, "external error: ") || strings.HasPrefix(r, "blocked: ") {
			state += " (" + r + ")"
			break
		}
	}
	lines = append(lines, state)
	lines = append(lines, fmt.Sprintf("Circuit breaker: %s (%s)", h.Breaker, rep.BreakerLine))
	return lines
}

// ApproachLines are the recitation's approach part: the current loop's last
// action, then the approaches tried, newest first (at most 4 lines).
func ApproachLines(l *planning.Loop) []string {
	if l == nil {
		return nil
	}
	var approach []string
	if n := len(l.Iterations); n > 0 && l.Iterations[n-1].Action != "" {
		approach = append(approach, "Last action: "+l.Iterations[n-1].Action)
	}
	for i := len(l.Approaches) - 1; i >= 0 && len(approach) < 4; i-- {
		a := l.Approaches[i]
		t := "Tried: " + a.Text
		if a.Result != "" {
			t += " — " + a.Result
		}
		approach = append(approach, t)
	}
	return approach
}

// TaskLine is the working state's current task: the current phase, plan and
// next task of the planning tree, joined by " · "; "" when none is known.
func TaskLine(proj *planning.Project) string {
	if proj == nil {
		return ""
	}
	var parts []string
	if ph := proj.CurrentPhase; ph != nil {
		s := "Phase " + ph.Number
		if len(proj.Phases) > 0 {
			s += fmt.Sprintf(" of %d", len(proj.Phases))
		}
		if ph.Name != "" {
			s += ": " + ph.Name
		}
		parts = append(parts, s)
	}
	if pl := proj.CurrentPlan; pl != nil {
		s := "Plan " + pl.ID
		if t := strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(pl.Title, "Plan "+pl.ID), ":")); t != "" {
			s += ": " + t
		}
		parts = append(parts, s)
	}
	if proj.NextTask != nil && proj.NextTask.Text != "" {
		parts = append(parts, "Next: "+proj.NextTask.Text)
	}
	return strings.Join(parts, " · ")
}

// WorkingState fills a block's Working State from the planning tree and the
// sources col read: the current task, the last successful change (the last
// iteration that changed files without an error: a conversation's, else
// the loop's), the open debug file's hypothesis and the last reported
// confidence.
func WorkingState(b *signals.Block, proj *planning.Project, col *Collected) {
	b.Task = TaskLine(proj)
	var last *conversation.Record
	var conf *float64
	var lastAt time.Time
	for _, c := range col.Convs {
		for i := range c.Iterations {
			r := &c.Iterations[i]
			// A successful change: files changed and no error.
			if len(r.FilesModified) > 0 && !r.IsError && r.ErrorHash == "" && !r.Time.Before(lastAt) {
				last, lastAt = r, r.Time
			}
			if r.Confidence != nil {
				v := *r.Confidence
				conf = &v
			}
		}
	}
	switch {
	case last != nil:
		b.LastChange = strings.Join(last.FilesModified, ", ")
		if t := textutil.FirstLine(last.Content); t != "" {
			b.LastChange += " (" + t + ")"
		}
	case col.Loop != nil:
		// The last row that changed files without an error (a row with an
		// error hash, or whose error is not recorded, is no success).
		recs := signals.IterationsFromLoop(col.Loop)
		for i := len(recs) - 1; i >= 0; i-- {
			r, it := recs[i], col.Loop.Iterations[i]
			if r.FilesChanged > 0 && !r.ErrorUnknown && r.ErrorHash == "" && r.ErrorText == "" && it.Action != "" {
				b.LastChange = fmt.Sprintf("%s (iteration %d)", it.Action, it.N)
				break
			}
		}
	}
	if proj != nil {
		for _, d := range proj.Debug {
			if d != nil && !d.Resolved && d.Hypothesis != "" {
				b.Hypothesis = d.Hypothesis
			}
		}
	}
	if conf != nil && *conf > 0 && *conf <= 1 {
		b.Confidence = max(1, int(*conf*100+0.5))
	}
}

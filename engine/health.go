package engine

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recite-dev/recite/engine/claudecode"
	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/internal/textutil"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/engine/scope"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// PreservedFile is where preservation blocks are appended (DESIGN.md §2).
const PreservedFile = layout.PreservedFile

// SignalsReport is the stop-signal side of a status: the loop health and
// circuit breaker, and every stop signal of the sources.
type SignalsReport struct {
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

	loop  *planning.Loop
	iters []signals.IterationRecord
	convs []*conversation.Conversation
}

// signalSources selects the conversations read for stop signals.
type signalSources struct {
	// conversations are the ids to read; when nil, defaultConversations
	// decides.
	conversations []string
	// tail, when > 0, reads only the end of each conversation's log
	// (tailConversation): about the last tail messages and their iteration
	// records. 0 reads whole logs.
	tail int
}

// defaultConversations are the conversations a status or a manual preserve
// reads: those the targets carry, plus the most recently active
// conversation of the store (the session an agent hook records), once
// each, sorted.
func (e *Engine) defaultConversations(cfg *config.Config, store *conversation.Store) []string {
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
	if list, err := store.List(); err == nil && len(list) > 0 {
		latest := slices.MaxFunc(list, func(a, b conversation.Summary) int {
			return cmp.Or(a.LastActivity.Compare(b.LastActivity), cmp.Compare(a.ID, b.ID))
		})
		add(latest.ID)
	}
	slices.Sort(ids)
	return ids
}

// collectSignals reads the conversations of src and extracts the stop
// signals of the project and those conversations, then evaluates health:
// the Loop Progress rows of the current loop when it has any, else the
// iteration records of the conversations (in time order). A conversation
// that is missing or unreadable is a diagnostic. With src.tail only the
// end of each log is read (tailConversation), even after ctx ends.
func (e *Engine) collectSignals(ctx context.Context, cfg *config.Config, proj *planning.Project, src signalSources) (*SignalsReport, []Diagnostic) {
	var diags []Diagnostic
	rep := &SignalsReport{loop: scope.ActiveLoop(proj), Conversations: []string{}}
	store, err := e.OpenConversations()
	if err != nil {
		diags = append(diags, Diagnostic{Path: ConversationsDir, Message: err.Error()})
	}
	ids := src.conversations
	if ids == nil && store != nil {
		ids = e.defaultConversations(cfg, store)
	}
	var msgs []signals.Message
	var convIters []conversation.Record
	for _, id := range ids {
		// Out of time, whole logs are not read; tails are bounded
		// (tailMaxBytes) and carry the newest errors, so they still are.
		if store == nil || (ctx.Err() != nil && src.tail <= 0) {
			break
		}
		var c *conversation.Conversation
		var rdiags []planning.Diagnostic
		if src.tail > 0 {
			c, rdiags, err = tailConversation(store, id, src.tail, tailMaxBytes)
		} else {
			c, rdiags, err = store.Read(id)
		}
		for _, d := range rdiags {
			if rel, ok := e.relPath(d.Path); ok {
				d.Path = rel
			}
			diags = append(diags, d)
		}
		if err != nil {
			diags = append(diags, Diagnostic{Path: ConversationLog(id), Message: fmt.Sprintf("stop signals: %v", err)})
			continue
		}
		rep.Conversations = append(rep.Conversations, id)
		rep.convs = append(rep.convs, c)
		msgs = append(msgs, SignalMessages(c)...)
		convIters = append(convIters, c.Iterations...)
	}
	slices.SortStableFunc(convIters, func(a, b conversation.Record) int { return a.Time.Compare(b.Time) })
	// Health: the current loop's Loop Progress rows when it has any (the
	// workflow's own iteration count), else the conversations' iteration
	// records.
	var convRecs []signals.IterationRecord
	if len(convIters) > 0 {
		convRecs = IterationRecords(convIters)
	}
	if rep.loop != nil && len(rep.loop.Iterations) > 0 {
		rep.iters = signals.IterationsFromLoop(rep.loop)
		rep.IterationSource = PlanningDir + "/" + rep.loop.Path
	} else if len(convRecs) > 0 {
		rep.iters = convRecs
		rep.IterationSource = ConversationLog(convIters[len(convIters)-1].Conversation)
	}
	rep.Iterations = len(rep.iters)
	// A loop's rows are extracted from the project (FromLoop); only the
	// conversations' iteration records are passed on, or the loop's errors
	// would count twice.
	// The Claude Code hook's turn records carry the hash of an error the
	// session's tool messages already hold verbatim: not a second signal.
	extractRecs := slices.Clone(convRecs)
	for i, r := range convIters {
		if r.Agent == claudecode.Agent {
			extractRecs[i].ErrorHash, extractRecs[i].ErrorText = "", ""
		}
	}
	rep.Signals = signals.Extract(proj, msgs, extractRecs)
	for i := range rep.Signals {
		// Planning sources are relative to .planning; say so.
		if s := &rep.Signals[i]; s.Source != "" && !strings.HasPrefix(s.Source, PlanningDir+"/") && !strings.HasPrefix(s.Source, "iteration ") && looksLikePlanningPath(proj, s.Source) {
			s.Source = PlanningDir + "/" + s.Source
		}
	}
	if rep.Signals == nil {
		rep.Signals = []signals.Signal{}
	}
	rep.Health = signals.Evaluate(rep.iters, cfg.CircuitBreaker.Effective())
	rep.BreakerLine = rep.Health.BreakerLine()
	return rep, diags
}

// tailMaxBytes bounds how much of a log's end tailConversation reads.
const tailMaxBytes = 8 << 20

// tailFirstWindow is the first window tailConversation reads.
const tailFirstWindow = 256 << 10

// tailConversation reads the end of conversation id's log: windows of
// 256 KiB, 512 KiB, … up to maxBytes from its end, until one holds at least
// n messages; the records of that window (the first, partial line
// dropped) are normalised as Store.Read does, and the last n messages and
// every iteration record from the first kept message on are returned, so
// the cost depends on n and record sizes, not on the log's length. A log
// no longer than the window, and a fork (whose start lives in its parent),
// is read whole with Store.Read. Meta comes from the records read (a long
// log's first meta record is not seen). Malformed lines in the window are
// diagnostics naming the log, their line numbers counted from the window's
// start. Errors: a missing log ([conversation.ErrNotFound]), an invalid
// id, an unreadable file.
func tailConversation(store *conversation.Store, id string, n int, maxBytes int64) (*conversation.Conversation, []planning.Diagnostic, error) {
	p, err := store.Path(id)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		// Archived, missing or unreadable: Store.Read says which.
		return store.Read(id)
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("read %q: %w", id, err)
	}
	size := st.Size()
	for window := int64(tailFirstWindow); ; window *= 2 {
		window = min(window, maxBytes)
		if size <= window {
			return store.Read(id)
		}
		data := make([]byte, window)
		if _, err := f.ReadAt(data, size-window); err != nil {
			return nil, nil, fmt.Errorf("read %q: %w", id, err)
		}
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
		recs, diags := conversation.ParseLog(p, data)
		recs = conversation.Normalize(recs)
		c := &conversation.Conversation{ID: id}
		for _, r := range recs {
			if r.Kind == conversation.KindMeta && r.Meta != nil && r.Meta.Parent != "" {
				return store.Read(id) // a fork: its start is in the parent
			}
		}
		msgs := 0
		for _, r := range recs {
			if r.Kind == conversation.KindMessage {
				msgs++
			}
		}
		if msgs < n && window < maxBytes {
			continue
		}
		skip := max(0, msgs-n)
		for _, r := range recs {
			if r.Time.After(c.LastActivity) {
				c.LastActivity = r.Time
			}
			switch r.Kind {
			case conversation.KindMessage:
				if skip > 0 {
					skip--
					continue
				}
				c.Messages = append(c.Messages, r)
			case conversation.KindIteration:
				if len(c.Messages) > 0 {
					c.Iterations = append(c.Iterations, r)
				}
			case conversation.KindMeta:
				if r.Event != "" {
					c.Events = append(c.Events, r)
				}
			}
		}
		return c, diags, nil
	}
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
// source "LOG#ID".
func SignalMessages(c *conversation.Conversation) []signals.Message {
	var out []signals.Message
	for _, r := range c.Messages {
		if r.Internal || r.CompactSummary {
			continue
		}
		id := r.Conversation
		if id == "" {
			id = c.ID
		}
		out = append(out, signals.Message{
			ID: r.ID, Role: r.Role, Content: r.Content, ToolName: r.ToolName, IsError: r.IsError,
			Timestamp: r.Time, Source: ConversationLog(id) + "#" + r.ID,
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
		// hashed its error (engine/conversation_iter.go).
		if r.OutputLines != nil {
			it.OutputLines = *r.OutputLines
		}
		it.ErrorHash = r.ErrorHash
		out = append(out, it)
	}
	return out
}

// healthLines are the Health section's lines and the recitation's health
// part (at most 3 shown there): the loop and its iteration, the health state
// with its first reason, and the circuit breaker with its counters against
// the BREAK thresholds.
func healthLines(rep *SignalsReport) []string {
	var lines []string
	if l := rep.loop; l != nil {
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

// approachLines are the recitation's approach part: the current loop's last
// action, then the approaches tried, newest first (at most 4 lines).
func approachLines(l *planning.Loop) []string {
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

// conversationHealth computes the prompt's health lines from the iteration
// records of conversation c, for a target whose loop is driven by `recite
// conversation run` or the Claude Code hook rather than a fire-flow loop
// file, so the prompt and `recite status` agree. It returns nil when c
// holds no iteration record.
func conversationHealth(cfg *config.Config, c *conversation.Conversation) []string {
	if c == nil || len(c.Iterations) == 0 {
		return nil
	}
	rep := &SignalsReport{iters: IterationRecords(c.Iterations)}
	rep.Iterations = len(rep.iters)
	rep.Health = signals.Evaluate(rep.iters, cfg.CircuitBreaker.Effective())
	rep.BreakerLine = rep.Health.BreakerLine()
	return healthLines(rep)
}

// promptHealth computes the prompt's health and approach lines from the
// project alone (the current loop's iterations; conversations feed the
// prompt through their own sections), with recite.yaml's thresholds.
func promptHealth(cfg *config.Config, proj *planning.Project) (health, approach []string) {
	rep := &SignalsReport{loop: scope.ActiveLoop(proj)}
	if rep.loop == nil {
		return nil, nil
	}
	rep.iters = signals.IterationsFromLoop(rep.loop)
	rep.Iterations = len(rep.iters)
	rep.Health = signals.Evaluate(rep.iters, cfg.CircuitBreaker.Effective())
	rep.BreakerLine = rep.Health.BreakerLine()
	return healthLines(rep), approachLines(rep.loop)
}

// readPreserved parses the preservation blocks of context-preserved.md
// (every layout signals.ParseBlocks knows); a missing file yields none.
func (e *Engine) readPreserved() ([]signals.Block, []Diagnostic, error) {
	b, err := os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(PreservedFile)))
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

// taskLine is the working state's current task: the current phase, plan and
// next task of the planning tree, joined by " · "; "" when none is known.
func taskLine(proj *planning.Project) string {
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

// workingState fills a block's Working State from the planning tree and the
// sources of rep: the current task, the last successful change (the last
// iteration that changed files without an error: a conversation's, else
// the loop's), the open debug file's hypothesis and the last reported
// confidence.
func workingState(b *signals.Block, proj *planning.Project, rep *SignalsReport) {
	b.Task = taskLine(proj)
	var last *conversation.Record
	var conf *float64
	var lastAt time.Time
	for _, c := range rep.convs {
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
	case rep.loop != nil:
		// The last row that changed files without an error (a row with an
		// error hash, or whose error is not recorded, is no success).
		recs := signals.IterationsFromLoop(rep.loop)
		for i := len(recs) - 1; i >= 0; i-- {
			r, it := recs[i], rep.loop.Iterations[i]
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

// addSignals sets rep.Signals from the planning tree and the default
// conversations (Status), their secrets redacted (redactSignals);
// problems become diagnostics, re-sorted by path and line.
func (e *Engine) addSignals(ctx context.Context, rep *Report) {
	cfg, _, proj, err := e.load()
	if err != nil {
		rep.Diagnostics = append(rep.Diagnostics, Diagnostic{Path: PlanningDir, Message: "stop signals: " + err.Error()})
		return
	}
	sr, diags := e.collectSignals(ctx, cfg, proj, signalSources{})
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

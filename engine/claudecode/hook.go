package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/recite-dev/recite/internal/fsutil"

	"github.com/recite-dev/recite/engine/history"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning/conversation"
)

// Limits of the Claude Code hook (docs/providers.md#claude-code-hooks).
// Its time budget comes from the settings (Budget, ConfiguredTimeout).
const (
	// HookMaxOutput is the most characters SessionStart prints, counted as
	// Claude Code counts them: UTF-16 code units (JavaScript string
	// length). Claude Code caps hook output strings at 10,000 characters.
	HookMaxOutput = 10000
	// hookMaxInput bounds the event read from stdin, in bytes.
	hookMaxInput = 8 << 20
	// hookMaxContent bounds one recorded tool result or message, in bytes.
	hookMaxContent = 64 << 10
	// HookTail is how many of the session's last messages PreCompact
	// reads for stop signals, so a long log does not cost its length: the
	// horizon a build reads (history.HorizonMessages), so the preservation
	// block and the prompt files see the same part of the conversation;
	// older stops and errors reach both through the index's ledger
	// (docs/architecture.md#long-conversations).
	HookTail = history.HorizonMessages
	// hookMaxTranscriptLine bounds one transcript line kept while looking
	// for the compact summary, in bytes; longer lines are skipped.
	hookMaxTranscriptLine = 2 << 20
	// hookMaxTranscript bounds how much of a transcript is scanned, in
	// bytes.
	hookMaxTranscript = 256 << 20
	// hookStateDir holds the hook's per-session state, under the cache
	// folder (not in git).
	hookStateDir = layout.CacheDir + "/hooks"
	// hookLockDir holds the per-session hook locks.
	hookLockDir = layout.CacheDir + "/locks"
)

// Agent names Claude Code on the records the hook appends.
const Agent = "claude-code"

// Options configures Run.
type Options struct {
	// ProjectDir is $CLAUDE_PROJECT_DIR, which Claude Code sets for hook
	// commands; when it holds a .planning folder it is the project,
	// whatever Dir and the event's cwd say.
	ProjectDir string
	// Dir is the project directory given explicitly (-C); "" takes the
	// event's cwd, else ".". The project root is the nearest directory at
	// or above it holding a .planning folder.
	Dir string
	// Budget bounds the work; 0 means Budget(ConfiguredTimeout): Claude
	// Code's timeout for the event's hook, as the project's settings give
	// it, less HookMargin (docs/architecture.md#hook-deadline). The work
	// itself stops at three quarters of it (the soft deadline), so what
	// it found can still be written or printed.
	Budget time.Duration
	// Deadline derives a context that ends after a duration; nil means
	// context.WithTimeout (the wall clock). Run calls it three times, on
	// its caller's context: while it reads the event, with the default
	// budget (or Budget); then with the budget (the hard deadline, after
	// which Run returns whatever the work has done); then, on that
	// context, with three quarters of the budget (the soft one, which the
	// work watches).
	// Tests pass one that never ends, or one that has ended, so no test
	// depends on the machine's speed.
	Deadline func(parent context.Context, d time.Duration) (context.Context, context.CancelFunc)
	// MaxOutput bounds SessionStart's output in UTF-16 code units; 0 means
	// HookMaxOutput.
	MaxOutput int
	// Now stamps preservation blocks; nil means time.Now.
	Now func() time.Time
	// Agent is the agent that runs the hook: "" or Agent (Claude Code),
	// AgentCodex (`recite hook codex`) or AgentGemini (`recite hook
	// gemini`); see docs/agents.md.
	Agent string
}

// result is what one handled event prints: stdout context (plain text,
// or Claude Code's JSON output when json is set, which is printed as it
// is), and notes for stderr.
type result struct {
	out   string
	json  bool
	notes []string
}

func (r *result) notef(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

// partialOutput is what an event has to print so far, for Run to
// print when the work runs out of time: SessionStart sets the latest
// preservation block before it renders the recitation.
type partialOutput struct {
	mu  sync.Mutex
	out string
}

func (p *partialOutput) set(s string) {
	p.mu.Lock()
	p.out = s
	p.mu.Unlock()
}

func (p *partialOutput) get() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out
}

// Run handles one Claude Code hook event read from in
// (`recite hook claude-code`; docs/providers.md#claude-code-hooks,
// docs/architecture.md#data-flow-of-a-hook-event):
//
//   - SessionStart: prints plain-text context to out (Claude Code adds plain
//     stdout to the context). For source compact, only the stop signals
//     the compaction summary lost, as a canonical block: those PostCompact
//     found, else those missing from the transcript's compact summary
//     entry, else (nothing to check against) the whole latest block; a
//     faithful summary prints nothing. For any other source (startup,
//     clear, resume), the recitation and one block of the stop signals
//     still open: the latest preservation block's (with its working state)
//     and those of the project's recent conversations and planning files
//     (Engine.OpenSignals), a signal resolved later left out. At most
//     MaxOutput UTF-16 code units (fitOutput, signals.Fit): every signal
//     gets its command and key line first, newest errors first, then the
//     lines around its key line and the head and tail of its output as
//     room allows; an error is never paraphrased, only cut at line
//     boundaries with a "⟨N lines omitted⟩" marker; the recitation goes
//     when even the key lines do not fit beside it; a note counts what was
//     shortened. Out of time, it prints the latest block alone rather
//     than nothing.
//   - PreCompact: appends a preservation block (trigger compaction) from
//     the planning tree and the last HookTail messages of the session's
//     conversation; prints nothing (this event cannot inject context).
//     The block is written whole or not at all: out of time before it is
//     complete, nothing is written and the previous block stays
//     (docs/architecture.md#hook-deadline).
//   - PostCompact: verifies compact_summary against the latest block,
//     records the lost signals under .planning/.recite/hooks/ for the next
//     SessionStart, and logs the boundary and the summary.
//   - UserPromptSubmit: appends the prompt as a user message (an error
//     when it holds a failed background task's <task-notification>); when
//     the previous turn had no Stop, first closes it with its iteration
//     record. Then prints the recitation as additionalContext in Claude
//     Code's JSON output when the session was not given it yet, it
//     changed, or hooks.recite_every prompts passed (promptRecitation),
//     and rewrites the status summary (as PostToolUseFailure and Stop do).
//   - PostToolUse: appends the tool call and its result (the text of
//     tool_response, conversation.ToolOutput, flagged is_error when the
//     response says the call failed), and adds to the turn's pending
//     state the files it changed — the file_path of Write, Edit, MultiEdit
//     and NotebookEdit, or for other tools that may write (Bash, MCP
//     tools) the files whose size or mtime changed in git's list of
//     modified files since the last check —, whether it tried to change
//     something (signals.ChangeAttempt) and the key line of an error in
//     its output.
//   - PostToolUseFailure: appends the tool call and the error verbatim as a
//     tool message with is_error, and keeps the error's key line as the
//     turn's last (not a harmless probe's); a user interrupt is recorded as
//     an internal note, not an error.
//   - Stop: appends last_assistant_message as an assistant message, then,
//     when the turn was an iteration (it tried to change something,
//     changed a file or ended on an error; a turn that only answered or
//     only read is none), its iteration record: the files it modified
//     (possibly none: a stall), the lines of the reply as output lines,
//     and the signals.Hash of the turn's last error as error_hash, so the
//     circuit breaker sees stalls and spins.
//
// Every record the hook appends has its secrets replaced by placeholders
// (the engine's conversation store redacts every record it writes: the
// logs are committed), and everything it prints is redacted, preservation
// blocks included.
//
// The project is $CLAUDE_PROJECT_DIR (ProjectDir) when it holds a
// .planning folder, else the nearest at or above Dir (-C), else at or above
// the event's cwd. A configuration that does not load is reported (file
// and line) and the defaults are used. The session's conversation id is
// "cc-" + the session id with characters outside [A-Za-z0-9._-] replaced by
// "-" (docs/architecture.md#safe-conversation-ids); it is created on first use. The turn
// state lives in .planning/.recite/hooks/, changed under a per-session
// lock in .planning/.recite/locks/ so parallel events count once.
// Run never blocks the agent: it returns nothing, recovers from
// panics, and reports every problem as a line on errOut; the work is
// bounded by the budget (Options.Budget: by default Claude Code's timeout
// for the event's hook less HookMargin, 8.5 s for the 10 s `init --claude`
// writes; docs/architecture.md#hook-deadline). Other events are ignored.
func Run(ctx context.Context, opts Options, open Opener, in io.Reader, out, errOut io.Writer) {
	var res result
	defer func() {
		if res.out != "" {
			_, _ = io.WriteString(out, res.out)
		}
		for _, n := range res.notes {
			_, _ = fmt.Fprintln(errOut, "recite hook "+dialectOf(opts.Agent).command+":", n)
		}
	}()
	d := dialectOf(opts.Agent)
	if d.jsonOnly {
		// Gemini CLI reads stdout as JSON only, and shows stderr to the
		// user when stdout is empty: print an object whatever happens.
		defer func() {
			if res.out == "" {
				res.out = "{}\n"
			}
		}()
	}
	h, budget, ok := prepareWithin(ctx, opts, open, in, &res)
	if !ok {
		return
	}
	ctx, cancel := opts.withDeadline(ctx, budget)
	defer cancel()
	// The work stops at the soft deadline; the rest is left to write or
	// print what it has (docs/architecture.md#hook-deadline).
	soft, cancelSoft := opts.withDeadline(ctx, budget-budget/4)
	defer cancelSoft()
	done := make(chan result, 1)
	go func() {
		var hres result
		defer func() {
			if p := recover(); p != nil {
				hres = result{notes: []string{fmt.Sprintf("internal error: %v", p)}}
			}
			done <- hres
		}()
		hres = h.run(soft)
	}()
	select {
	case r := <-done:
		res.out, res.notes = r.out, append(res.notes, r.notes...)
	case <-ctx.Done():
		res.out = h.partial.get()
		if res.out != "" && d.jsonOnly {
			res.out = h.contextOutput(res.out)
		}
		note := fmt.Sprintf("gave up after %s: %v", budget, ctx.Err())
		if res.out != "" {
			note += " (printed the latest preservation block only)"
		}
		res.notes = append(res.notes, note)
	}
}

// prepareWithin runs prepare, giving up when reading the event takes
// longer than the budget of the default timeout (or opts.Budget): Claude
// Code writes the event and closes stdin, but a stdin left open must not
// hang the hook.
func prepareWithin(ctx context.Context, opts Options, open Opener, in io.Reader, res *result) (*claudeHook, time.Duration, bool) {
	limit := opts.Budget
	if limit <= 0 {
		limit = Budget(DefaultHookTimeout)
	}
	rctx, cancel := opts.withDeadline(ctx, limit)
	defer cancel()
	type prepared struct {
		h      *claudeHook
		budget time.Duration
		ok     bool
		res    result
	}
	ready := make(chan prepared, 1)
	go func() {
		var p prepared
		p.h, p.budget, p.ok = prepare(opts, open, in, &p.res)
		ready <- p
	}()
	select {
	case p := <-ready:
		res.notes = append(res.notes, p.res.notes...)
		return p.h, p.budget, p.ok
	case <-rctx.Done():
		res.notef("gave up reading the event after %s: %v", limit, rctx.Err())
		return nil, 0, false
	}
}

// prepare reads and decodes the event, finds its project and the time
// budget (opts.Budget, else Budget of the project's ConfiguredTimeout for
// the event), noting on res what went wrong; ok is false when there is
// nothing to do. It reads at most hookMaxInput bytes and the settings
// files' first hookMaxSettings bytes.
func prepare(opts Options, open Opener, in io.Reader, res *result) (h *claudeHook, budget time.Duration, ok bool) {
	defer func() {
		if p := recover(); p != nil {
			res.notes = append(res.notes, fmt.Sprintf("internal error: %v", p))
			h, ok = nil, false
		}
	}()
	raw, err := io.ReadAll(io.LimitReader(in, hookMaxInput+1))
	if err != nil {
		res.notef("read event: %v", err)
		return nil, 0, false
	}
	if len(raw) > hookMaxInput {
		// Handle the event when its JSON ends within the limit (what
		// follows is ignored); else give up.
		dec := json.NewDecoder(bytes.NewReader(raw[:hookMaxInput]))
		var first json.RawMessage
		if err := dec.Decode(&first); err != nil {
			res.notef("event larger than %d bytes and incomplete within them; ignored", hookMaxInput)
			return nil, 0, false
		}
		raw = first
	}
	ev, err := decodeEvent(raw)
	if err != nil {
		res.notef("parse event: %v", err)
		return nil, 0, false
	}
	h, err = newClaudeHook(opts, open, ev)
	if err != nil {
		res.notef("%s: %v", ev.HookEventName, err)
		return nil, 0, false
	}
	budget = opts.Budget
	if budget <= 0 {
		timeout, _, err := h.d.configuredTimeout(h.dir, ev.HookEventName)
		if err != nil {
			res.notef("%s: %v; assuming %s", ev.HookEventName, err, timeout)
		}
		budget = Budget(timeout)
	}
	return h, budget, true
}

// run handles the event under ctx (the soft deadline) and returns what it
// prints, redacted and cut to the output limit.
func (h *claudeHook) run(ctx context.Context) result {
	var res result
	if err := h.handle(ctx, &res); err != nil {
		res.notef("%s: %v", h.ev.HookEventName, err)
	}
	if res.out != "" && !res.json {
		// Every part was redacted on its way in; this pass makes sure no
		// secret reaches the agent's context whatever part it came from.
		// (JSON output is built from text redacted and cut the same way.)
		res.out = signals.CutUTF16(h.e.RedactText(res.out), h.limit())
		if h.d.jsonOnly {
			res.out, res.json = h.contextOutput(res.out), true
		}
	}
	return res
}

// claudeHook is one event being handled.
type claudeHook struct {
	e       Engine
	d       *dialect
	dir     string
	ev      Event
	opts    Options
	conv    string
	partial *partialOutput
	// dirsReady records that ensureDirs ran for this event.
	dirsReady bool
	// recited is the recitation block the event rendered ("" when none),
	// for the session's recitation state (sessionRecited).
	recited string
	// callName and callArgs, when set, are the tool call as the agent's
	// transcript names it (Codex's rollout), recorded in place of the
	// event's tool_name and tool_input.
	callName, callArgs string
}

// ensureDirs creates the cache folder with its .gitignore (Engine's
// ensureDirs, as a build does), once per event, so hook state never shows
// in git as untracked.
func (h *claudeHook) ensureDirs() error {
	if h.dirsReady {
		return nil
	}
	if err := h.e.EnsureDirs(); err != nil {
		return err
	}
	h.dirsReady = true
	return nil
}

func newClaudeHook(opts Options, open Opener, ev Event) (*claudeHook, error) {
	root, err := hookRoot(opts, ev)
	if err != nil {
		return nil, err
	}
	d := dialectOf(opts.Agent)
	return &claudeHook{e: open(root), d: d, dir: root, ev: ev, opts: opts, conv: d.conversationID(ev.SessionID), partial: &partialOutput{}}, nil
}

// hookRoot is the project an event acts on: opts.ProjectDir
// ($CLAUDE_PROJECT_DIR) when it holds a .planning folder, else the
// nearest directory with one at or above opts.Dir (-C given), else at or
// above the event's cwd, else at or above ".".
func hookRoot(opts Options, ev Event) (string, error) {
	if p := opts.ProjectDir; p != "" && layout.HasPlanning(p) {
		return filepath.Abs(p)
	}
	dir := cmpOr(opts.Dir, ev.Cwd)
	if dir == "" {
		dir = "."
	}
	return layout.ProjectRoot(dir)
}

// SessionConversation is the conversation id of a Claude Code session:
// "cc-" + the session id, every character outside [A-Za-z0-9._-] replaced
// by "-", cut to the 128 characters a conversation id may have; "" for an
// empty session id. (Codex CLI's sessions are "codex-ID", Gemini CLI's
// "gemini-ID": SessionConversationOf.)
func SessionConversation(sessionID string) string {
	return claudeDialect.conversationID(sessionID)
}

// SessionConversationOf is the conversation id of a session of agent
// (Options.Agent): "cc-", "codex-" or "gemini-" + the session id, as
// SessionConversation makes it.
func SessionConversationOf(agent, sessionID string) string {
	return dialectOf(agent).conversationID(sessionID)
}

func (h *claudeHook) handle(ctx context.Context, res *result) error {
	if h.d == geminiDialect {
		return h.handleGemini(ctx, res)
	}
	switch h.ev.HookEventName {
	case "SessionStart":
		err := h.sessionStart(ctx, res)
		return errors.Join(err, h.sessionRecited(ctx, h.recited, res.out))
	case "PreCompact":
		return h.preCompact(ctx, res)
	case "PostCompact":
		return h.postCompact(ctx)
	case "UserPromptSubmit":
		err := errors.Join(h.userPromptSubmit(ctx), h.promptRecitation(ctx, res))
		h.recordStatus(ctx, res)
		return err
	case "PostToolUse":
		return h.postToolUse(ctx, res)
	case "PostToolUseFailure":
		err := h.postToolUseFailure(ctx)
		h.recordStatus(ctx, res)
		return err
	case "Stop":
		err := h.stop(ctx)
		h.recordStatus(ctx, res)
		return err
	}
	return nil
}

// append adds records to the session's conversation, creating it first
// when it does not exist.
func (h *claudeHook) append(ctx context.Context, recs ...conversation.Record) error {
	if h.conv == "" {
		return errors.New("no session_id: nothing recorded")
	}
	if len(recs) == 0 {
		return nil
	}
	for i := range recs {
		recs[i].Agent = h.d.agent
		if recs[i].Source == "" {
			recs[i].Source = h.d.agent + ":" + h.ev.HookEventName
		}
	}
	if err := h.ensureDirs(); err != nil {
		return err
	}
	store, err := h.e.OpenConversations()
	if err != nil {
		return err
	}
	err = store.Append(ctx, h.conv, recs...)
	if errors.Is(err, conversation.ErrNotFound) {
		meta := conversation.Meta{AgentType: h.d.agent, Title: h.d.name + " session " + h.ev.SessionID}
		if cerr := store.Create(ctx, h.conv, meta); cerr != nil && !errors.Is(cerr, conversation.ErrExists) {
			return cerr
		}
		err = store.Append(ctx, h.conv, recs...)
	}
	return err
}

// redactRecord replaces the secrets in a record the hook is about to
// write, as the conversation store replaces them in every record it
// writes (conversation.RedactRecord, with the engine's redaction), so
// what the hook keeps of the record (the turn's last error) is the text
// the log holds.
func (h *claudeHook) redactRecord(r *conversation.Record) {
	conversation.RedactRecord(r, func(text string) (string, int) {
		out := h.e.RedactText(text)
		if out == text {
			return out, 0
		}
		return out, 1
	})
}

// hookTurn is the pending state of the session's current agent turn, kept
// in .planning/.recite/hooks/ID.turn.json between events.
type hookTurn struct {
	// Open is set by the turn's first event and cleared when the turn's
	// iteration record is written.
	Open bool `json:"open"`
	// Files are the project-relative files the turn's tools changed,
	// sorted, once each.
	Files []string `json:"files"`
	// Tools counts the turn's tool calls, and Attempts those that tried
	// to change the project (signals.ChangeAttempt).
	Tools    int `json:"tools"`
	Attempts int `json:"attempts,omitempty"`
	// LastError is the key line of the turn's last tool error that is not
	// a harmless probe ("" when none; turnError).
	LastError string `json:"last_error,omitempty"`
}

// statePath is the path of the session's state file with the given
// suffix ("turn", "worktree", "compact").
func (h *claudeHook) statePath(kind string) string {
	return filepath.Join(h.dir, filepath.FromSlash(hookStateDir), h.conv+"."+kind+".json")
}

// readState reads a state file into v; a missing or unreadable file
// leaves v as it is and reports false.
func (h *claudeHook) readState(kind string, v any) bool {
	b, err := os.ReadFile(h.statePath(kind))
	return err == nil && json.Unmarshal(b, v) == nil
}

// writeState writes v to a state file atomically, creating the cache
// folder with its .gitignore (ensureDirs) first.
func (h *claudeHook) writeState(kind string, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := h.ensureDirs(); err != nil {
		return err
	}
	p := h.statePath(kind)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return fsutil.WriteFile(p, b, 0o644)
}

// locked runs fn holding the session's hook lock
// (.planning/.recite/locks/hook-ID.lock), so parallel events of one
// session (Claude Code runs hooks of parallel tool calls at once) read and
// write its state one at a time. Waiting honours ctx.
func (h *claudeHook) locked(ctx context.Context, fn func() error) error {
	if h.conv == "" {
		return errors.New("no session_id: nothing recorded")
	}
	if err := h.ensureDirs(); err != nil {
		return err
	}
	dir := filepath.Join(h.dir, filepath.FromSlash(hookLockDir))
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	unlock, ok, err := fsutil.TryLock(ctx, filepath.Join(dir, "hook-"+h.conv+".lock"), 5*time.Millisecond)
	if err != nil {
		return fmt.Errorf("hook state lock: %w", err)
	}
	if !ok {
		return errors.New("hook state lock not acquired")
	}
	defer func() { _ = unlock() }()
	return fn()
}

package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/recite-dev/recite/internal/fsutil"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/gitstore"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning/conversation"
)

// Limits of the Claude Code hook (PROVIDERS.md §3).
const (
	// HookTimeout bounds one hook invocation; Claude Code's own timeout is
	// longer, so recite always answers in time.
	HookTimeout = 2 * time.Second
	// HookMaxOutput is the most characters SessionStart prints, counted as
	// Claude Code counts them: UTF-16 code units (JavaScript string
	// length). Claude Code caps hook output strings at 10,000 characters.
	HookMaxOutput = 10000
	// hookMaxInput bounds the event read from stdin, in bytes.
	hookMaxInput = 8 << 20
	// hookMaxContent bounds one recorded tool result or message, in bytes.
	hookMaxContent = 64 << 10
	// hookTail is about how many of the session's last messages PreCompact
	// reads for stop signals (tailConversation), so a long log does not
	// cost its length.
	hookTail = 2000
	// hookMaxTranscriptLine bounds one transcript line kept while looking
	// for the compact summary, in bytes; longer lines are skipped.
	hookMaxTranscriptLine = 2 << 20
	// hookMaxTranscript bounds how much of a transcript is scanned, in
	// bytes.
	hookMaxTranscript = 256 << 20
	// hookStateDir holds the hook's per-session state, under the cache
	// folder (not in git).
	hookStateDir = CacheDir + "/hooks"
	// hookLockDir holds the per-session hook locks.
	hookLockDir = CacheDir + "/locks"
	// ccAgent names Claude Code on the records the hook appends.
	ccAgent = "claude-code"
)

// HookOptions configures RunClaudeHook.
type HookOptions struct {
	// ProjectDir is $CLAUDE_PROJECT_DIR, which Claude Code sets for hook
	// commands; when it holds a .planning folder it is the project,
	// whatever Dir and the event's cwd say.
	ProjectDir string
	// Dir is the project directory given explicitly (-C); "" takes the
	// event's cwd, else ".". The project root is the nearest directory at
	// or above it holding a .planning folder.
	Dir string
	// Timeout bounds the work; 0 means HookTimeout. The work itself stops
	// at three quarters of it, to leave time to write what it has.
	Timeout time.Duration
	// MaxOutput bounds SessionStart's output in UTF-16 code units; 0 means
	// HookMaxOutput.
	MaxOutput int
	// Now stamps preservation blocks; nil means time.Now.
	Now func() time.Time
}

// ClaudeHookEvent is one Claude Code hook event as read from stdin
// (PROVIDERS.md §3, Claude Code's hooks reference): the common fields, then
// each event's own. Fields that carry free text or JSON (prompt, tool
// input and response, error, last assistant message, compact summary) are
// kept raw, so a value of an unexpected JSON type is still recorded; the
// scalar fields are read tolerant of type (decodeClaudeEvent).
type ClaudeHookEvent struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	HookEventName  string `json:"hook_event_name"`
	PermissionMode string `json:"permission_mode,omitempty"`
	// Source is SessionStart's startup, resume, clear, compact or fork.
	Source string `json:"source,omitempty"`
	// Prompt is UserPromptSubmit's prompt.
	Prompt json.RawMessage `json:"prompt,omitempty"`
	// ToolName, ToolInput, ToolResponse and ToolUseID describe the tool
	// call of PostToolUse and PostToolUseFailure.
	ToolName     string          `json:"tool_name,omitempty"`
	ToolInput    json.RawMessage `json:"tool_input,omitempty"`
	ToolResponse json.RawMessage `json:"tool_response,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	// Error and IsInterrupt are PostToolUseFailure's failure text and
	// whether the user interrupted the tool.
	Error       json.RawMessage `json:"error,omitempty"`
	IsInterrupt bool            `json:"is_interrupt,omitempty"`
	// LastAssistantMessage is Stop's final assistant text.
	LastAssistantMessage json.RawMessage `json:"last_assistant_message,omitempty"`
	// Trigger is PreCompact's and PostCompact's manual or auto.
	Trigger string `json:"trigger,omitempty"`
	// CompactSummary is PostCompact's summary of the compacted conversation.
	CompactSummary json.RawMessage `json:"compact_summary,omitempty"`
}

// decodeClaudeEvent reads one event leniently: the payload must be a JSON
// object, and each known field is read whatever its JSON type, so a wrong
// type in one field never drops the event. Scalar fields take a string's
// value, a number's or a boolean's literal text ("5", "true"), "" for null,
// and the compact JSON of an object or array; is_interrupt is true for
// true, "true" (any case), a non-zero number or "1". Errors: the payload
// is not a JSON object.
func decodeClaudeEvent(raw []byte) (ClaudeHookEvent, error) {
	var ev ClaudeHookEvent
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return ev, err
	}
	if m == nil {
		return ev, errors.New("event is null, not a JSON object")
	}
	str := func(k string) string { return scalarText(m[k]) }
	ev.SessionID, ev.TranscriptPath, ev.Cwd, ev.HookEventName = str("session_id"), str("transcript_path"), str("cwd"), str("hook_event_name")
	ev.PermissionMode, ev.Source, ev.ToolName, ev.ToolUseID, ev.Trigger = str("permission_mode"), str("source"), str("tool_name"), str("tool_use_id"), str("trigger")
	ev.Prompt, ev.ToolInput, ev.ToolResponse, ev.Error = m["prompt"], m["tool_input"], m["tool_response"], m["error"]
	ev.LastAssistantMessage, ev.CompactSummary = m["last_assistant_message"], m["compact_summary"]
	ev.IsInterrupt = truthy(m["is_interrupt"])
	return ev, nil
}

// scalarText is a JSON value as one field's text: a string's value, ""
// for null or absent, else the value's compact JSON (a number's or a
// boolean's literal).
func scalarText(raw json.RawMessage) string {
	t, isString := jsonText(raw)
	if isString || t == "" {
		return t
	}
	var b bytes.Buffer
	if json.Compact(&b, []byte(t)) == nil {
		return b.String()
	}
	return t
}

// truthy reads a flag leniently: true, "true"/"yes"/"1" in any case, or a
// non-zero number.
func truthy(raw json.RawMessage) bool {
	s := strings.ToLower(strings.TrimSpace(scalarText(raw)))
	switch s {
	case "true", "yes", "1":
		return true
	case "", "false", "no", "0":
		return false
	}
	f, err := strconv.ParseFloat(s, 64)
	return err == nil && f != 0
}

// hookResult is what one handled event prints: stdout context, and notes
// for stderr.
type hookResult struct {
	out   string
	notes []string
}

func (r *hookResult) notef(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
}

// hookPartial is what an event has to print so far, for RunClaudeHook to
// print when the work runs out of time: SessionStart sets the latest
// preservation block before it renders the recitation.
type hookPartial struct {
	mu  sync.Mutex
	out string
}

func (p *hookPartial) set(s string) {
	p.mu.Lock()
	p.out = s
	p.mu.Unlock()
}

func (p *hookPartial) get() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out
}

// RunClaudeHook handles one Claude Code hook event read from in
// (`recite hook claude-code`; PROVIDERS.md §3, issue 5):
//
//   - SessionStart: prints plain-text context to out (Claude Code adds plain
//     stdout to the context). For source compact, only the stop signals
//     the compaction summary lost, as a canonical block: those PostCompact
//     found, else those missing from the transcript's compact summary
//     entry, else (nothing to check against) the whole latest block; a
//     faithful summary prints nothing. For any other source, the
//     recitation block and the latest preservation block. At most
//     MaxOutput UTF-16 code units: the least important parts go first
//     (files modified and working state, approach details, the recitation,
//     failed approaches, circuit-breaker lines, the oldest errors), and an
//     error is never paraphrased: one too long is shortened to its head and
//     tail with a "⟨N lines omitted⟩" marker, and dropped only when not
//     even that fits. Out of time, it prints the latest block alone rather
//     than nothing.
//   - PreCompact: appends a preservation block (trigger compaction) from
//     the planning tree and the last 2,000 or so messages of the session's
//     conversation; prints nothing (this event cannot inject context).
//     Near the deadline it writes what it has collected.
//   - PostCompact: verifies compact_summary against the latest block,
//     records the lost signals under .planning/.recite/hooks/ for the next
//     SessionStart, and logs the boundary and the summary.
//   - UserPromptSubmit: appends the prompt as a user message; when the
//     previous turn had no Stop, first closes it with an iteration record.
//   - PostToolUse: appends the tool call and its result, and adds the files
//     it changed to the turn's pending state: the file_path of Write, Edit,
//     MultiEdit and NotebookEdit, or for other tools that may write (Bash,
//     MCP tools) the files whose size or mtime changed in git's list of
//     modified files since the last check.
//   - PostToolUseFailure: appends the tool call and the error verbatim as a
//     tool message with is_error, and keeps the error as the turn's last;
//     a user interrupt is recorded as an internal note, not an error.
//   - Stop: appends last_assistant_message as an assistant message, then
//     one iteration record for the turn (an iteration of a hook session is
//     one agent turn): the files it modified (possibly none), the lines of
//     the reply as output lines, and the signals.Hash of the turn's last
//     tool error as error_hash, so the circuit breaker sees stalls and
//     spins.
//
// Every record the hook appends has its secrets replaced by placeholders
// (redactRecord: the logs are committed), and everything it prints is
// redacted, preservation blocks included.
//
// The project is $CLAUDE_PROJECT_DIR (ProjectDir) when it holds a
// .planning folder, else the nearest at or above Dir (-C), else at or above
// the event's cwd. A configuration that does not load is reported (file
// and line) and the defaults are used. The session's conversation id is
// "cc-" + the session id with characters outside [A-Za-z0-9._-] replaced by
// "-" (DESIGN.md invariant 10); it is created on first use. The turn
// state lives in .planning/.recite/hooks/, changed under a per-session
// lock in .planning/.recite/locks/ so parallel events count once.
// RunClaudeHook never blocks the agent: it returns nothing, recovers from
// panics, and reports every problem as a line on errOut; the work is
// bounded by Timeout (2 s). Other events are ignored.
func RunClaudeHook(ctx context.Context, opts HookOptions, in io.Reader, out, errOut io.Writer) {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = HookTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	// The work stops at the soft deadline; the rest is left to write what
	// it has (PreCompact's partial block).
	soft, cancelSoft := context.WithTimeout(ctx, timeout-timeout/4)
	defer cancelSoft()
	partial := &hookPartial{}
	done := make(chan hookResult, 1)
	go func() {
		var res hookResult
		defer func() {
			if p := recover(); p != nil {
				res = hookResult{notes: []string{fmt.Sprintf("internal error: %v", p)}}
			}
			done <- res
		}()
		res = handleClaudeHook(soft, opts, in, partial)
	}()
	var res hookResult
	select {
	case res = <-done:
	case <-ctx.Done():
		res = hookResult{out: partial.get(), notes: []string{fmt.Sprintf("gave up after %s: %v", timeout, ctx.Err())}}
		if res.out != "" {
			res.notes[0] += " (printed the latest preservation block only)"
		}
	}
	if res.out != "" {
		_, _ = io.WriteString(out, res.out)
	}
	for _, n := range res.notes {
		_, _ = fmt.Fprintln(errOut, "recite hook claude-code:", n)
	}
}

// handleClaudeHook does the work of RunClaudeHook.
func handleClaudeHook(ctx context.Context, opts HookOptions, in io.Reader, partial *hookPartial) hookResult {
	var res hookResult
	raw, err := io.ReadAll(io.LimitReader(in, hookMaxInput+1))
	if err != nil {
		res.notef("read event: %v", err)
		return res
	}
	if len(raw) > hookMaxInput {
		// Handle the event when its JSON ends within the limit (what
		// follows is ignored); else give up.
		dec := json.NewDecoder(bytes.NewReader(raw[:hookMaxInput]))
		var first json.RawMessage
		if err := dec.Decode(&first); err != nil {
			res.notef("event larger than %d bytes and incomplete within them; ignored", hookMaxInput)
			return res
		}
		raw = first
	}
	ev, err := decodeClaudeEvent(raw)
	if err != nil {
		res.notef("parse event: %v", err)
		return res
	}
	h, err := newClaudeHook(opts, ev)
	if err != nil {
		res.notef("%s: %v", ev.HookEventName, err)
		return res
	}
	h.partial = partial
	if err := h.handle(ctx, &res); err != nil {
		res.notef("%s: %v", ev.HookEventName, err)
	}
	if res.out != "" {
		// Every part was redacted on its way in; this pass makes sure no
		// secret reaches the agent's context whatever part it came from.
		res.out = cutUTF16(h.e.redactText("", res.out), h.limit())
	}
	return res
}

// claudeHook is one event being handled.
type claudeHook struct {
	e       *Engine
	ev      ClaudeHookEvent
	opts    HookOptions
	conv    string
	partial *hookPartial
	// dirsReady records that ensureDirs ran for this event.
	dirsReady bool
}

// ensureDirs creates the cache folder with its .gitignore (Engine's
// ensureDirs, as a build does), once per event, so hook state never shows
// in git as untracked.
func (h *claudeHook) ensureDirs() error {
	if h.dirsReady {
		return nil
	}
	if err := h.e.ensureDirs(); err != nil {
		return err
	}
	h.dirsReady = true
	return nil
}

func newClaudeHook(opts HookOptions, ev ClaudeHookEvent) (*claudeHook, error) {
	root, err := hookRoot(opts, ev)
	if err != nil {
		return nil, err
	}
	return &claudeHook{e: New(root), ev: ev, opts: opts, conv: SessionConversation(ev.SessionID), partial: &hookPartial{}}, nil
}

// hookRoot is the project an event acts on: opts.ProjectDir
// ($CLAUDE_PROJECT_DIR) when it holds a .planning folder, else the
// nearest directory with one at or above opts.Dir (-C given), else at or
// above the event's cwd, else at or above ".".
func hookRoot(opts HookOptions, ev ClaudeHookEvent) (string, error) {
	if p := opts.ProjectDir; p != "" {
		if fi, err := os.Stat(filepath.Join(p, PlanningDir)); err == nil && fi.IsDir() {
			return filepath.Abs(p)
		}
	}
	dir := cmpOr(opts.Dir, ev.Cwd)
	if dir == "" {
		dir = "."
	}
	return projectRoot(dir)
}

// projectRoot is the nearest directory at or above dir with a .planning
// folder.
func projectRoot(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for d := abs; ; {
		if fi, err := os.Stat(filepath.Join(d, PlanningDir)); err == nil && fi.IsDir() {
			return d, nil
		}
		parent := filepath.Dir(d)
		if parent == d {
			return "", fmt.Errorf("%w at or above %s; nothing to do (run `recite init`)", ErrNoPlanning, abs)
		}
		d = parent
	}
}

// SessionConversation is the conversation id of a Claude Code session:
// "cc-" + the session id, every character outside [A-Za-z0-9._-] replaced
// by "-", cut to the 128 characters a conversation id may have; "" for an
// empty session id.
func SessionConversation(sessionID string) string {
	if sessionID == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("cc-")
	for _, r := range sessionID {
		if r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
		if b.Len() >= 128 {
			break
		}
	}
	return b.String()
}

func (h *claudeHook) handle(ctx context.Context, res *hookResult) error {
	switch h.ev.HookEventName {
	case "SessionStart":
		return h.sessionStart(ctx, res)
	case "PreCompact":
		return h.preCompact(ctx, res)
	case "PostCompact":
		return h.postCompact(ctx)
	case "UserPromptSubmit":
		return h.userPromptSubmit(ctx)
	case "PostToolUse":
		return h.postToolUse(ctx, res)
	case "PostToolUseFailure":
		return h.postToolUseFailure(ctx)
	case "Stop":
		return h.stop(ctx)
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
		recs[i].Agent = ccAgent
		if recs[i].Source == "" {
			recs[i].Source = "claude-code:" + h.ev.HookEventName
		}
		h.redactRecord(&recs[i])
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
		meta := conversation.Meta{AgentType: ccAgent, Title: "Claude Code session " + h.ev.SessionID}
		if cerr := store.Create(ctx, h.conv, meta); cerr != nil && !errors.Is(cerr, conversation.ErrExists) {
			return cerr
		}
		err = store.Append(ctx, h.conv, recs...)
	}
	return err
}

// redactRecord replaces the secrets in a record the hook writes (its
// content and its tool calls' arguments) with their placeholders. The
// hook's records go to .planning/conversations/, which `recite commit`
// commits, and Claude Code keeps its own raw transcript, so the hook
// writes them redacted (logs imported from elsewhere stay raw and are
// redacted on the way into prompts). Arguments that were JSON stay JSON:
// when redaction breaks the JSON, they become the JSON string of the
// redacted text.
func (h *claudeHook) redactRecord(r *conversation.Record) {
	r.Content = h.e.redactText("", r.Content)
	for k := range r.ToolCalls {
		a := r.ToolCalls[k].Arguments
		red := h.e.redactText("", a)
		if red != a && json.Valid([]byte(a)) && !json.Valid([]byte(red)) {
			b, _ := json.Marshal(red)
			red = string(b)
		}
		r.ToolCalls[k].Arguments = red
	}
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
	// Tools counts the turn's tool calls.
	Tools int `json:"tools"`
	// LastError is the text of the turn's last tool error ("" when none).
	LastError string `json:"last_error,omitempty"`
}

// statePath is the path of the session's state file with the given
// suffix ("turn", "worktree", "compact").
func (h *claudeHook) statePath(kind string) string {
	return filepath.Join(h.e.dir, filepath.FromSlash(hookStateDir), h.conv+"."+kind+".json")
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
	return writeAtomic(p, b)
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
	dir := filepath.Join(h.e.dir, filepath.FromSlash(hookLockDir))
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

// turnRecord is the iteration record of a finished turn: its files (none
// is a stall), reply's line count as output lines (-1, unknown, when the
// turn ended without a Stop), and its last tool error's hash.
func turnRecord(t hookTurn, reply string, outputLines int) conversation.Record {
	files := t.Files
	if files == nil {
		files = []string{}
	}
	content := firstLine(reply)
	if n := 200; utf8.RuneCountInString(content) > n {
		content = string([]rune(content)[:n]) + "…"
	}
	if content == "" {
		content = fmt.Sprintf("turn of %d tool calls", t.Tools)
	}
	r := conversation.Record{Kind: conversation.KindIteration, Content: content, FilesModified: files, OutputLines: &outputLines}
	if strings.TrimSpace(t.LastError) != "" {
		r.ErrorHash = signals.Hash(t.LastError)
	}
	return r
}

// replyLines counts the lines of a reply, 0 for none.
func replyLines(s string) int {
	s = strings.TrimRight(s, "\n")
	if strings.TrimSpace(s) == "" {
		return 0
	}
	return strings.Count(s, "\n") + 1
}

// userPromptSubmit closes a turn left open (no Stop came) and starts the
// next one with the prompt.
func (h *claudeHook) userPromptSubmit(ctx context.Context) error {
	text := rawText(h.ev.Prompt)
	return h.locked(ctx, func() error {
		var t hookTurn
		var recs []conversation.Record
		if h.readState("turn", &t) && t.Open {
			recs = append(recs, turnRecord(t, "", -1))
		}
		if strings.TrimSpace(text) != "" {
			recs = append(recs, conversation.Record{Kind: conversation.KindMessage, Role: conversation.RoleUser, Content: capContent(text)})
		}
		if err := h.append(ctx, recs...); err != nil {
			return err
		}
		return h.writeState("turn", hookTurn{Open: true})
	})
}

// stop appends the reply and closes the turn with its iteration record.
func (h *claudeHook) stop(ctx context.Context) error {
	text := rawText(h.ev.LastAssistantMessage)
	return h.locked(ctx, func() error {
		var t hookTurn
		h.readState("turn", &t)
		var recs []conversation.Record
		if strings.TrimSpace(text) != "" {
			recs = append(recs, conversation.Record{Kind: conversation.KindMessage, Role: conversation.RoleAssistant, Provider: "anthropic", Content: capContent(text)})
		}
		recs = append(recs, turnRecord(t, text, replyLines(text)))
		if err := h.append(ctx, recs...); err != nil {
			return err
		}
		return h.writeState("turn", hookTurn{})
	})
}

// toolCall is the assistant message carrying the call the event reports,
// so every recorded tool result answers a call (DESIGN.md invariant 12).
func (h *claudeHook) toolCall() conversation.Record {
	args := strings.TrimSpace(string(h.ev.ToolInput))
	if args == "" {
		args = "{}"
	}
	return conversation.Record{Kind: conversation.KindMessage, Role: conversation.RoleAssistant, Provider: "anthropic",
		ToolCalls: []conversation.ToolCall{{ID: h.ev.ToolUseID, Name: h.ev.ToolName, Arguments: args}}}
}

func (h *claudeHook) postToolUseFailure(ctx context.Context) error {
	text := rawText(h.ev.Error)
	result := conversation.Record{Kind: conversation.KindMessage, Role: conversation.RoleTool, ToolCallID: h.ev.ToolUseID, ToolName: h.ev.ToolName, Content: capContent(text)}
	if h.ev.IsInterrupt {
		// The user stopped the tool: not an error of the work.
		result.Internal = true
		result.Content = capContent(strings.TrimSpace("Interrupted by the user. " + text))
	} else {
		result.IsError = true
		if strings.TrimSpace(result.Content) == "" {
			result.Content = h.ev.ToolName + " failed"
		}
	}
	// Redacted as append writes it, so the turn's error hash is that of
	// the recorded text.
	h.redactRecord(&result)
	return h.locked(ctx, func() error {
		if err := h.append(ctx, h.toolCall(), result); err != nil {
			return err
		}
		var t hookTurn
		h.readState("turn", &t)
		t.Open = true
		t.Tools++
		if result.IsError {
			t.LastError = result.Content
		}
		return h.writeState("turn", t)
	})
}

// editTools write the file named by their input's file_path (or
// notebook_path); readOnlyTools never change files.
var (
	editTools     = []string{"Write", "Edit", "MultiEdit", "NotebookEdit"}
	readOnlyTools = []string{"Read", "Grep", "Glob", "LS", "WebFetch", "WebSearch", "TodoWrite", "TodoRead", "Task", "Agent",
		"NotebookRead", "BashOutput", "KillShell", "KillBash", "ExitPlanMode", "Skill", "SlashCommand", "AskUserQuestion",
		"ListMcpResourcesTool", "ReadMcpResourceTool"}
)

func (h *claudeHook) postToolUse(ctx context.Context, res *hookResult) error {
	result := conversation.Record{Kind: conversation.KindMessage, Role: conversation.RoleTool, ToolCallID: h.ev.ToolUseID, ToolName: h.ev.ToolName, Content: capContent(toolResponseText(h.ev.ToolResponse))}
	return h.locked(ctx, func() error {
		files, err := h.changedFiles(ctx)
		if err != nil && !errors.Is(err, gitstore.ErrNoRepository) {
			res.notef("PostToolUse: files changed not checked: %v", err)
		}
		if err := h.append(ctx, h.toolCall(), result); err != nil {
			return err
		}
		var t hookTurn
		h.readState("turn", &t)
		t.Open = true
		t.Tools++
		for _, f := range files {
			if !slices.Contains(t.Files, f) {
				t.Files = append(t.Files, f)
			}
		}
		slices.Sort(t.Files)
		return h.writeState("turn", t)
	})
}

// hookWorktree is the signature ("size:mtime-ns") of each file git listed
// as modified at the last check of a session, kept in
// .planning/.recite/hooks/ID.worktree.json.
type hookWorktree struct {
	Files map[string]string `json:"files"`
}

// changedFiles returns the project-relative files the tool changed and
// updates the session's worktree state. Without a state yet (or for
// SessionStart, whose event has no tool) it only records the baseline.
func (h *claudeHook) changedFiles(ctx context.Context) ([]string, error) {
	name := h.ev.ToolName
	if slices.Contains(readOnlyTools, name) || h.conv == "" {
		return nil, nil
	}
	var st hookWorktree
	baseline := !h.readState("worktree", &st)
	if st.Files == nil {
		st.Files = map[string]string{}
	}
	var changed []string
	if name == "" && !baseline {
		// SessionStart: the baseline exists already.
		return nil, nil
	}
	if slices.Contains(editTools, name) {
		var in struct {
			FilePath     string `json:"file_path"`
			NotebookPath string `json:"notebook_path"`
		}
		_ = json.Unmarshal(h.ev.ToolInput, &in)
		p := cmpOr(in.FilePath, in.NotebookPath)
		if p == "" {
			return nil, nil
		}
		if !filepath.IsAbs(p) {
			p = filepath.Join(h.e.dir, p)
		}
		rel, ok := h.e.relPath(p)
		if !ok {
			return nil, nil
		}
		changed = []string{rel}
		// Remember the edit so the next git check does not count it again.
		st.Files[rel] = h.signature(rel)
	} else {
		files, err := h.e.gitModified(ctx)
		if err != nil {
			return nil, err
		}
		next := map[string]string{}
		for _, f := range files {
			if strings.HasPrefix(f, "… and ") {
				continue
			}
			sig := h.signature(f)
			next[f] = sig
			if !baseline && st.Files[f] != sig {
				changed = append(changed, f)
			}
		}
		st.Files = next
	}
	return changed, h.writeState("worktree", st)
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// signature is a file's "size:mtime-ns", or "-" when it is gone.
func (h *claudeHook) signature(rel string) string {
	fi, err := os.Stat(filepath.Join(h.e.dir, filepath.FromSlash(rel)))
	if err != nil {
		return "-"
	}
	return strconv.FormatInt(fi.Size(), 10) + ":" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
}

func (h *claudeHook) preCompact(ctx context.Context, res *hookResult) error {
	var convs []string
	if h.conv != "" {
		convs = []string{h.conv}
	}
	pr, err := h.e.Preserve(ctx, PreserveOptions{Trigger: signals.TriggerCompaction, Conversations: convs, Now: h.opts.Now, tail: hookTail, lenient: true})
	if pr != nil {
		for _, d := range pr.Diagnostics {
			// Say what matters: a broken configuration and a partial
			// block; the rest is in `recite status`.
			if d.Path == config.FileName || strings.HasPrefix(d.Message, "deadline reached") {
				res.notef("PreCompact: %s", d)
			}
		}
	}
	return err
}

// compactState is what PostCompact found, kept in
// .planning/.recite/hooks/ID.compact.json for the next SessionStart.
type compactState struct {
	// BlockTimestamp and BlockLine identify the preservation block the
	// summary was checked against.
	BlockTimestamp time.Time `json:"block_timestamp"`
	BlockLine      int       `json:"block_line"`
	// Trigger is the compaction's manual or auto.
	Trigger string `json:"trigger,omitempty"`
	// Lost are the block's signals the summary lost, redacted.
	Lost []signals.Signal `json:"lost"`
}

func (h *claudeHook) postCompact(ctx context.Context) error {
	summary := rawText(h.ev.CompactSummary)
	var errs []error
	if h.conv != "" && strings.TrimSpace(summary) != "" {
		errs = append(errs, h.append(ctx,
			conversation.Record{Kind: conversation.KindMeta, Event: conversation.EventCompactBoundary, Content: strings.TrimSpace("compaction " + h.ev.Trigger)},
			conversation.Record{Kind: conversation.KindMessage, Role: conversation.RoleUser, CompactSummary: true, Content: capContent(summary)}))
	}
	blocks, _, err := h.e.readPreserved()
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	latest, ok := signals.Latest(blocks)
	if !ok || h.conv == "" {
		return errors.Join(errs...)
	}
	st := compactState{BlockTimestamp: latest.Timestamp, BlockLine: latest.Line, Trigger: h.ev.Trigger, Lost: h.e.lostSignals(summary, latest.Signals)}
	return errors.Join(append(errs, h.writeState("compact", st))...)
}

func (h *claudeHook) limit() int {
	if h.opts.MaxOutput > 0 {
		return h.opts.MaxOutput
	}
	return HookMaxOutput
}

func (h *claudeHook) sessionStart(ctx context.Context, res *hookResult) error {
	blocks, _, err := h.e.readPreserved()
	if err != nil {
		res.notef("SessionStart: %v", err)
	}
	latest, haveBlock := signals.Latest(blocks)
	// A block written before recite redacted blocks may hold a secret;
	// the summary is checked against both forms (lostInCompaction).
	raw := latest
	latest = h.e.redactBlock(latest)
	if h.ev.Source == "compact" {
		if !haveBlock {
			return nil
		}
		// Out of time before the summary is checked: the whole block.
		h.partial.set(fitContext("Stop signals preserved before the compaction (recite ran out of time checking the summary); recite re-injects them verbatim. Do not summarize them.", "", latest, h.limit()))
		lost, how := h.lostInCompaction(ctx, raw)
		if len(lost) == 0 {
			return nil
		}
		lead := "Stop signals the compaction summary lost (" + how + "); recite re-injects them verbatim. Do not summarize them."
		res.out = fitContext(lead, "", signals.Block{Trigger: signals.TriggerCompaction, Signals: lost}, h.limit())
		return nil
	}
	lead := "recite: where this project stands (recitation from .planning/)."
	if haveBlock {
		lead = "recite: where this project stands (recitation from .planning/, then the latest preservation block of " + PreservedFile + ")."
		// Out of time before the recitation: the block alone.
		h.partial.set(fitContext("recite: the latest preservation block of "+PreservedFile+".", "", latest, h.limit()))
	} else {
		latest = signals.Block{}
	}
	rec, err := h.recitation(ctx, res)
	if err != nil {
		res.notef("SessionStart: recitation: %v", err)
	}
	// The baseline of modified files, so the session's first command is
	// not charged with changes made before it.
	if h.conv != "" {
		err := h.locked(ctx, func() error { _, err := h.changedFiles(ctx); return err })
		if err != nil && !errors.Is(err, gitstore.ErrNoRepository) {
			res.notef("SessionStart: files modified: %v", err)
		}
	}
	if rec == "" && !haveBlock {
		return nil
	}
	res.out = fitContext(lead, rec, latest, h.limit())
	return nil
}

// lostInCompaction returns the signals of the latest block the compaction
// summary lost, redacted, and how that is known. latest is the block as
// read: a signal counts as kept when the summary keeps its raw or its
// redacted form.
func (h *claudeHook) lostInCompaction(ctx context.Context, latest signals.Block) ([]signals.Signal, string) {
	if h.conv != "" {
		var st compactState
		if h.readState("compact", &st) && st.BlockTimestamp.Equal(latest.Timestamp) && st.BlockLine == latest.Line {
			return h.e.redactSignals(st.Lost), "checked by recite at PostCompact"
		}
	}
	if summary, ok := transcriptCompactSummary(ctx, h.ev.TranscriptPath); ok {
		return h.e.lostSignals(summary, latest.Signals), "checked by recite against the transcript's summary"
	}
	return h.e.redactSignals(latest.Signals), "the summary could not be read, so every preserved signal is repeated"
}

// transcriptCompactSummary reads the last compact summary entry
// (isCompactSummary) of a Claude Code transcript; ok is false when the file
// cannot be read, is not a regular file, or has none. At most 256 MiB are
// scanned and a line is kept only up to 2 MiB (longer ones are skipped), so
// a transcript of one endless line costs bounded memory; ctx stops the
// scan.
func transcriptCompactSummary(ctx context.Context, path string) (string, bool) {
	if path == "" || !filepath.IsAbs(path) {
		return "", false
	}
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer func() { _ = f.Close() }()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	var last, cur []byte
	tooLong := false
	r := bufio.NewReaderSize(io.LimitReader(f, hookMaxTranscript), 1<<20)
	for n := 0; ; n++ {
		if n%64 == 0 && ctx.Err() != nil {
			return "", false
		}
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(cur)+len(chunk) > hookMaxTranscriptLine {
				tooLong, cur = true, cur[:0]
			} else {
				cur = append(cur, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		// A whole line (or the end of the file).
		if !tooLong && bytes.Contains(cur, []byte(`"isCompactSummary"`)) {
			last = append(last[:0], cur...)
		}
		cur, tooLong = cur[:0], false
		if err != nil {
			break
		}
	}
	if last == nil {
		return "", false
	}
	recs, _, err := conversation.ImportClaudeCode(bytes.NewReader(last))
	if err != nil {
		return "", false
	}
	var parts []string
	for _, rec := range recs {
		if rec.CompactSummary && rec.Content != "" {
			parts = append(parts, rec.Content)
		}
	}
	if len(parts) == 0 {
		return "", false
	}
	return strings.Join(parts, "\n"), true
}

// recitation renders the first target's recitation block (engine/prompt
// Recite, FORMATS.md §2.7) with the loop health, secrets redacted. A
// configuration that does not load is a note on res, and the defaults are
// used.
func (h *claudeHook) recitation(ctx context.Context, res *hookResult) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	cfg, proj, diags, err := h.e.loadLenient()
	if err != nil {
		return "", err
	}
	for _, d := range diags {
		res.notef("SessionStart: %s", d)
	}
	tg := cfg.Targets[0]
	in := prompt.Input{Target: tg.Name, Role: tg.Role, Project: proj, PlanningDir: PlanningDir}
	in.Health, in.Approach = promptHealth(cfg, proj)
	p := prompt.Assemble(in)
	if _, err := h.e.redactPrompt(p); err != nil {
		return "", err
	}
	for _, s := range p.Sections {
		if s.ID == prompt.IDRecitation {
			return "## Recitation\n\n" + strings.TrimSpace(s.Body), nil
		}
	}
	return "", nil
}

// fitContext joins lead, the recitation and the block and fits them to
// limit UTF-16 code units (utf16Len: what Claude Code's 10,000-character
// cap counts), dropping the least important parts first: the working
// state, the failed approaches' details, the recitation; then it keeps the
// signals greedily by importance (errors, blocked, stop requests,
// circuit-breaker lines, failed approaches; newest first within a kind),
// skipping any that no longer fits, so one huge error does not push out
// many small ones. Then the errors skipped come back shortened to their
// head and tail (shortenError: first 20 and last 40 lines, then by
// characters, with a "⟨N lines omitted⟩" marker), newest first, each in an
// equal share of the room left; an error is dropped only when not even
// that fits. Signals are never reworded; other kinds are dropped whole;
// when nothing fits, the most important is cut at its end with a note. A
// note counts what was left out.
func fitContext(lead, rec string, b signals.Block, limit int) string {
	b.Signals = slices.Clone(b.Signals)
	b.Format, b.Path, b.Line = "", "", 0
	omitted, total := 0, len(b.Signals)
	render := func() string {
		var sb strings.Builder
		sb.WriteString(lead + "\n")
		if rec != "" {
			sb.WriteString("\n" + rec + "\n")
		}
		if len(b.Signals) > 0 || b.Breaker != "" || b.Task != "" || len(b.FilesModified) > 0 {
			sb.WriteString("\n" + signals.RenderBlock(b))
		}
		if omitted > 0 {
			fmt.Fprintf(&sb, "\n(recite left out %d of %d stop signals to stay within %d characters; all of them are in %s)\n", omitted, total, limit, PreservedFile)
		}
		return sb.String()
	}
	fits := func() bool { return utf16Len(render()) <= limit }
	if fits() {
		return render()
	}
	steps := []func() bool{
		func() bool { b.FilesModified, b.LastChange, b.Hypothesis, b.Confidence = nil, "", "", 0; return true },
		func() bool {
			for i := range b.Signals {
				b.Signals[i].Detail = ""
			}
			return true
		},
		func() bool { rec = ""; return true },
	}
	for _, step := range steps {
		step()
		if fits() {
			return render()
		}
	}
	// Keep signals greedily by importance: errors, blocked, stop requests,
	// circuit-breaker lines, failed approaches; newest first within a
	// kind. A signal that does not fit is skipped, so one huge error does
	// not push out many small ones. Kept signals stay in their order.
	all := b.Signals
	order := make([]int, 0, len(all))
	for _, k := range []signals.Kind{signals.KindError, signals.KindBlocked, signals.KindStop, signals.KindCircuitBreaker, signals.KindFailedApproach} {
		for i := len(all) - 1; i >= 0; i-- {
			if all[i].Kind == k {
				order = append(order, i)
			}
		}
	}
	keep := make([]bool, len(all))
	apply := func() {
		b.Signals = b.Signals[:0:0]
		for i, s := range all {
			if keep[i] {
				b.Signals = append(b.Signals, s)
			}
		}
		omitted = len(all) - len(b.Signals)
	}
	apply()
	if !fits() {
		b.Task, b.Breaker = "", ""
		apply()
	}
	for _, i := range order {
		keep[i] = true
		apply()
		if !fits() {
			keep[i] = false
		}
	}
	// The errors that did not fit whole come back shortened to their head
	// and tail (shortenError), newest first, each within an equal share of
	// the room left: a shortened error beats a dropped one, and the newest
	// errors are the ones a summary loses (issue 5 review, bug 2).
	var skipped []int
	for _, i := range order {
		if !keep[i] && all[i].Kind == signals.KindError {
			skipped = append(skipped, i)
		}
	}
	for k, i := range skipped {
		text := all[i].Text
		all[i].Text = ""
		keep[i] = true
		apply()
		room := limit - utf16Len(render())
		share := room / (len(skipped) - k)
		if share < minShortened {
			share = room
		}
		// The fence may grow and the note shrink; retry with what is
		// over.
		for try := 0; try < 4; try++ {
			all[i].Text = shortenError(text, share)
			apply()
			if all[i].Text != "" && fits() {
				break
			}
			share -= max(1, utf16Len(render())-limit)
			all[i].Text = ""
		}
		if all[i].Text == "" {
			all[i].Text, keep[i] = text, false
		}
	}
	apply()
	if len(b.Signals) > 0 {
		return render()
	}
	// Not even one signal fits: keep the most important one and cut its
	// text at the end.
	if len(order) > 0 {
		keep[order[0]] = true
		apply()
	}
	// One error alone is too long: cut its text at the end.
	for i := range b.Signals {
		s := &b.Signals[i]
		over := utf16Len(render()) - limit
		const note = "\n… (cut by recite to fit the hook output limit)"
		s.Text = cutUTF16(s.Text, max(0, utf16Len(s.Text)-over-utf16Len(note)-16)) + note
		if fits() {
			break
		}
	}
	return cutUTF16(render(), limit)
}

// Shortening of an error too long for the hook's output (shortenError).
const (
	// shortHeadLines and shortTailLines are the lines an error keeps from
	// its start and its end; a traceback's exception and message are at
	// the end, so the tail is the longer part.
	shortHeadLines = 20
	shortTailLines = 40
	// minShortened is the least room, in UTF-16 code units, an error is
	// shortened into; with less it is dropped.
	minShortened = 200
	// omittedRoom is the room kept for the omission marker, in UTF-16 code
	// units.
	omittedRoom = 40
)

// shortenError fits an error's text into limit UTF-16 code units, keeping
// its head and its tail with a visible marker between them: first the
// first 20 and last 40 lines around "⟨N lines omitted⟩"; when that is still
// too long, a third of the room for the head and the rest for the tail,
// each cut back to whole lines where it holds more than one
// ("⟨N lines omitted⟩"), else cut inside a line ("⟨N characters
// omitted⟩", counted in UTF-16 code units). It returns text itself when it
// fits, and "" when limit is under minShortened.
func shortenError(text string, limit int) string {
	if utf16Len(text) <= limit {
		return text
	}
	if limit < minShortened {
		return ""
	}
	lines := strings.Split(text, "\n")
	if len(lines) > shortHeadLines+shortTailLines+1 {
		n := len(lines) - shortHeadLines - shortTailLines
		s := strings.Join(lines[:shortHeadLines], "\n") + "\n" + fmt.Sprintf("⟨%d lines omitted⟩", n) + "\n" + strings.Join(lines[len(lines)-shortTailLines:], "\n")
		if utf16Len(s) <= limit {
			return s
		}
	}
	avail := limit - omittedRoom
	head := cutUTF16(text, avail/3)
	tail := suffixUTF16(text, avail-avail/3)
	whole := true
	if j := strings.LastIndexByte(head, '\n'); j > 0 {
		head = head[:j]
	} else {
		whole = false
	}
	if j := strings.IndexByte(tail, '\n'); j >= 0 && j < len(tail)-1 {
		tail = tail[j+1:]
	} else {
		whole = false
	}
	mid := text[len(head) : len(text)-len(tail)]
	marker := fmt.Sprintf("⟨%d characters omitted⟩", utf16Len(mid))
	if whole {
		// mid is "\n" + the omitted lines + "\n".
		marker = fmt.Sprintf("⟨%d lines omitted⟩", strings.Count(mid, "\n")-1)
	}
	return head + "\n" + marker + "\n" + tail
}

// suffixUTF16 is the longest suffix of s, cut at a rune boundary, of at
// most limit UTF-16 code units.
func suffixUTF16(s string, limit int) string {
	n := 0
	for i := len(s); i > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		l := max(1, utf16.RuneLen(r))
		if n+l > limit {
			return s[i:]
		}
		n += l
		i -= size
	}
	return s
}

// utf16Len is the length of s in UTF-16 code units, as JavaScript's
// String.length counts it (Claude Code's output cap): 2 for a rune outside
// the Basic Multilingual Plane (most emoji), 1 for any other rune,
// including an invalid byte (decoded as U+FFFD).
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if l := utf16.RuneLen(r); l > 0 {
			n += l
		} else {
			n++
		}
	}
	return n
}

// cutUTF16 is the longest prefix of s, cut at a rune boundary, of at most
// limit UTF-16 code units.
func cutUTF16(s string, limit int) string {
	n := 0
	for i, r := range s {
		l := max(1, utf16.RuneLen(r))
		if n+l > limit {
			return s[:i]
		}
		n += l
	}
	return s
}

// rawText is a raw JSON value as text: a string's value, "" for null or
// absent, else the JSON itself.
func rawText(raw json.RawMessage) string {
	t, _ := jsonText(raw)
	return t
}

// jsonText is raw as text: a string's value (isString), "" for null or
// absent, else the JSON trimmed of surrounding white space.
func jsonText(raw json.RawMessage) (text string, isString bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s, true
		}
	}
	return string(raw), false
}

// toolResponseText is a tool response as text: the stdout and stderr of a
// Bash-like response, a string as is, else the JSON.
func toolResponseText(raw json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(raw, &m) == nil && m != nil {
		var parts []string
		for _, k := range []string{"stdout", "stderr"} {
			if t := rawText(m[k]); strings.TrimSpace(t) != "" {
				parts = append(parts, t)
			}
		}
		if len(parts) > 0 {
			return strings.Join(parts, "\n")
		}
	}
	return rawText(raw)
}

// capContent cuts text to hookMaxContent bytes at a rune boundary, saying
// so.
func capContent(s string) string {
	if len(s) <= hookMaxContent {
		return s
	}
	cut := hookMaxContent
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "\n… (cut by recite at 64 KiB)"
}

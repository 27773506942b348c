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
	"time"
	"unicode/utf8"

	"github.com/google/renameio/v2"

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
	// HookMaxOutput is the most characters (runes) SessionStart prints:
	// Claude Code caps hook output strings at 10,000 characters.
	HookMaxOutput = 10000
	// hookMaxInput bounds the event read from stdin, in bytes.
	hookMaxInput = 32 << 20
	// hookMaxContent bounds one recorded tool result or message, in bytes.
	hookMaxContent = 64 << 10
	// hookStateDir holds the hook's per-session state, under the cache
	// folder (not in git).
	hookStateDir = CacheDir + "/hooks"
	// ccAgent names Claude Code on the records the hook appends.
	ccAgent = "claude-code"
)

// HookOptions configures RunClaudeHook.
type HookOptions struct {
	// Dir is the project directory; "" takes the event's cwd, else ".".
	// The project root is the nearest directory at or above it holding a
	// .planning folder.
	Dir string
	// Timeout bounds the work; 0 means HookTimeout.
	Timeout time.Duration
	// MaxOutput bounds SessionStart's output in runes; 0 means
	// HookMaxOutput.
	MaxOutput int
	// Now stamps preservation blocks; nil means time.Now.
	Now func() time.Time
}

// ClaudeHookEvent is one Claude Code hook event as read from stdin
// (PROVIDERS.md §3, Claude Code's hooks reference): the common fields, then
// each event's own. Fields that carry free text or JSON (prompt, tool
// input and response, error, last assistant message, compact summary) are
// kept raw, so a value of an unexpected JSON type is still recorded.
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

// hookResult is what one handled event prints: stdout context, and notes
// for stderr.
type hookResult struct {
	out   string
	notes []string
}

func (r *hookResult) notef(format string, args ...any) {
	r.notes = append(r.notes, fmt.Sprintf(format, args...))
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
//     MaxOutput runes: the least important parts go first (files modified
//     and working state, approach details, the recitation, failed
//     approaches, circuit-breaker lines, the oldest errors), and an error
//     is never paraphrased, only dropped whole (or cut at the end when it
//     alone is too long).
//   - PreCompact: appends a preservation block (trigger compaction) for the
//     session's conversation; prints nothing (this event cannot inject
//     context).
//   - PostCompact: verifies compact_summary against the latest block,
//     records the lost signals under .planning/.recite/hooks/ for the next
//     SessionStart, and logs the boundary and the summary.
//   - UserPromptSubmit: appends the prompt as a user message.
//   - PostToolUse: appends the tool call and its result, and an iteration
//     record when files changed: the file_path of Write, Edit, MultiEdit
//     and NotebookEdit, or for other tools that may write (Bash, MCP
//     tools) the files whose size or mtime changed in git's list of
//     modified files since the last check.
//   - PostToolUseFailure: appends the tool call and the error verbatim as a
//     tool message with is_error; a user interrupt is recorded as an
//     internal note, not an error.
//   - Stop: appends last_assistant_message as an assistant message.
//
// The session's conversation id is "cc-" + the session id with characters
// outside [A-Za-z0-9._-] replaced by "-" (DESIGN.md invariant 10); it is
// created on first use. RunClaudeHook never blocks the agent: it returns
// nothing, recovers from panics, and reports every problem as a line on
// errOut; the work is bounded by Timeout (2 s), after which it gives up and
// prints nothing on out. Other events are ignored.
func RunClaudeHook(ctx context.Context, opts HookOptions, in io.Reader, out, errOut io.Writer) {
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = HookTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	done := make(chan hookResult, 1)
	go func() {
		var res hookResult
		defer func() {
			if p := recover(); p != nil {
				res = hookResult{notes: []string{fmt.Sprintf("internal error: %v", p)}}
			}
			done <- res
		}()
		res = handleClaudeHook(ctx, opts, in)
	}()
	var res hookResult
	select {
	case res = <-done:
	case <-ctx.Done():
		res = hookResult{notes: []string{fmt.Sprintf("gave up after %s: %v", timeout, ctx.Err())}}
	}
	if res.out != "" {
		_, _ = io.WriteString(out, res.out)
	}
	for _, n := range res.notes {
		_, _ = fmt.Fprintln(errOut, "recite hook claude-code:", n)
	}
}

// handleClaudeHook does the work of RunClaudeHook.
func handleClaudeHook(ctx context.Context, opts HookOptions, in io.Reader) hookResult {
	var res hookResult
	raw, err := io.ReadAll(io.LimitReader(in, hookMaxInput+1))
	if err != nil {
		res.notef("read event: %v", err)
		return res
	}
	if len(raw) > hookMaxInput {
		res.notef("event larger than %d bytes; ignored", hookMaxInput)
		return res
	}
	var ev ClaudeHookEvent
	if err := json.Unmarshal(raw, &ev); err != nil {
		res.notef("parse event: %v", err)
		return res
	}
	h, err := newClaudeHook(opts, ev)
	if err != nil {
		res.notef("%s: %v", ev.HookEventName, err)
		return res
	}
	if err := h.handle(ctx, &res); err != nil {
		res.notef("%s: %v", ev.HookEventName, err)
	}
	return res
}

// claudeHook is one event being handled.
type claudeHook struct {
	e    *Engine
	ev   ClaudeHookEvent
	opts HookOptions
	conv string
}

func newClaudeHook(opts HookOptions, ev ClaudeHookEvent) (*claudeHook, error) {
	dir := opts.Dir
	if dir == "" {
		dir = ev.Cwd
	}
	if dir == "" {
		dir = "."
	}
	root, err := projectRoot(dir)
	if err != nil {
		return nil, err
	}
	return &claudeHook{e: New(root), ev: ev, opts: opts, conv: SessionConversation(ev.SessionID)}, nil
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
		return h.preCompact(ctx)
	case "PostCompact":
		return h.postCompact(ctx)
	case "UserPromptSubmit":
		text := rawText(h.ev.Prompt)
		if strings.TrimSpace(text) == "" {
			return nil
		}
		return h.append(ctx, conversation.Record{Kind: conversation.KindMessage, Role: conversation.RoleUser, Content: capContent(text)})
	case "PostToolUse":
		return h.postToolUse(ctx, res)
	case "PostToolUseFailure":
		return h.postToolUseFailure(ctx)
	case "Stop":
		text := rawText(h.ev.LastAssistantMessage)
		if strings.TrimSpace(text) == "" {
			return nil
		}
		return h.append(ctx, conversation.Record{Kind: conversation.KindMessage, Role: conversation.RoleAssistant, Provider: "anthropic", Content: capContent(text)})
	}
	return nil
}

// append adds records to the session's conversation, creating it first
// when it does not exist.
func (h *claudeHook) append(ctx context.Context, recs ...conversation.Record) error {
	if h.conv == "" {
		return errors.New("no session_id: nothing recorded")
	}
	for i := range recs {
		recs[i].Agent = ccAgent
		if recs[i].Source == "" {
			recs[i].Source = "claude-code:" + h.ev.HookEventName
		}
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
	return h.append(ctx, h.toolCall(), result)
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
	recs := []conversation.Record{h.toolCall(), result}
	files, err := h.changedFiles(ctx)
	if err != nil {
		res.notef("PostToolUse: files changed not checked: %v", err)
	}
	if len(files) > 0 {
		recs = append(recs, conversation.Record{Kind: conversation.KindIteration, Content: h.ev.ToolName + ": " + strings.Join(files, ", "), FilesModified: files})
	}
	return h.append(ctx, recs...)
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
	statePath := filepath.Join(h.e.dir, filepath.FromSlash(hookStateDir), h.conv+".worktree.json")
	var st hookWorktree
	baseline := true
	if b, err := os.ReadFile(statePath); err == nil && json.Unmarshal(b, &st) == nil {
		baseline = false
	}
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
	b, err := json.Marshal(st)
	if err == nil {
		if err = os.MkdirAll(filepath.Dir(statePath), 0o755); err == nil {
			err = renameio.WriteFile(statePath, b, 0o644)
		}
	}
	return changed, err
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

func (h *claudeHook) preCompact(ctx context.Context) error {
	var convs []string
	if h.conv != "" {
		convs = []string{h.conv}
	}
	_, err := h.e.Preserve(ctx, PreserveOptions{Trigger: signals.TriggerCompaction, Conversations: convs, Now: h.opts.Now})
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
	// Lost are the block's signals the summary lost.
	Lost []signals.Signal `json:"lost"`
}

func (h *claudeHook) compactStatePath() string {
	return filepath.Join(h.e.dir, filepath.FromSlash(hookStateDir), h.conv+".compact.json")
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
	st := compactState{BlockTimestamp: latest.Timestamp, BlockLine: latest.Line, Trigger: h.ev.Trigger, Lost: signals.Verify(summary, latest.Signals)}
	if st.Lost == nil {
		st.Lost = []signals.Signal{}
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err == nil {
		if err = os.MkdirAll(filepath.Dir(h.compactStatePath()), 0o755); err == nil {
			err = renameio.WriteFile(h.compactStatePath(), append(b, '\n'), 0o644)
		}
	}
	return errors.Join(append(errs, err)...)
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
	if h.ev.Source == "compact" {
		if !haveBlock {
			return nil
		}
		lost, how := h.lostInCompaction(latest)
		if len(lost) == 0 {
			return nil
		}
		lead := "Stop signals the compaction summary lost (" + how + "); recite re-injects them verbatim. Do not summarize them."
		res.out = fitContext(lead, "", signals.Block{Trigger: signals.TriggerCompaction, Signals: lost}, h.limit())
		return nil
	}
	rec, err := h.recitation(ctx)
	if err != nil {
		res.notef("SessionStart: recitation: %v", err)
	}
	// The baseline of modified files, so the session's first command is
	// not charged with changes made before it.
	if _, err := h.changedFiles(ctx); err != nil && !errors.Is(err, gitstore.ErrNoRepository) {
		res.notef("SessionStart: files modified: %v", err)
	}
	if rec == "" && !haveBlock {
		return nil
	}
	lead := "recite: where this project stands (recitation from .planning/)."
	if haveBlock {
		lead = "recite: where this project stands (recitation from .planning/, then the latest preservation block of " + PreservedFile + ")."
	} else {
		latest = signals.Block{}
	}
	res.out = fitContext(lead, rec, latest, h.limit())
	return nil
}

// lostInCompaction returns the signals of the latest block the compaction
// summary lost, and how that is known.
func (h *claudeHook) lostInCompaction(latest signals.Block) ([]signals.Signal, string) {
	if h.conv != "" {
		if b, err := os.ReadFile(h.compactStatePath()); err == nil {
			var st compactState
			if json.Unmarshal(b, &st) == nil && st.BlockTimestamp.Equal(latest.Timestamp) && st.BlockLine == latest.Line {
				return st.Lost, "checked by recite at PostCompact"
			}
		}
	}
	if summary, ok := transcriptCompactSummary(h.ev.TranscriptPath); ok {
		return signals.Verify(summary, latest.Signals), "checked by recite against the transcript's summary"
	}
	return latest.Signals, "the summary could not be read, so every preserved signal is repeated"
}

// transcriptCompactSummary reads the last compact summary entry
// (isCompactSummary) of a Claude Code transcript; ok is false when the file
// cannot be read or has none.
func transcriptCompactSummary(path string) (string, bool) {
	if path == "" || !filepath.IsAbs(path) {
		return "", false
	}
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	defer func() { _ = f.Close() }()
	var last []byte
	r := bufio.NewReaderSize(io.LimitReader(f, 256<<20), 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if bytes.Contains(line, []byte(`"isCompactSummary"`)) {
			last = bytes.Clone(line)
		}
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
// Recite, FORMATS.md §2.7) with the loop health, secrets redacted.
func (h *claudeHook) recitation(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	cfg, _, proj, err := h.e.load()
	if err != nil {
		return "", err
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
// limit runes, dropping the least important parts first: the working
// state, the failed approaches' details, the recitation; then it keeps the
// signals greedily by importance (errors, blocked, stop requests,
// circuit-breaker lines, failed approaches; newest first within a kind),
// skipping any that no longer fits, so one huge error does not push out
// many small ones. Signals are dropped whole, never reworded; when not even
// one fits, the most important is cut at its end with a note. A note
// counts what was left out.
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
	fits := func() bool { return utf8.RuneCountInString(render()) <= limit }
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
		over := utf8.RuneCountInString(render()) - limit
		const note = "\n… (cut by recite to fit the hook output limit)"
		n := max(0, utf8.RuneCountInString(s.Text)-over-utf8.RuneCountInString(note)-16)
		s.Text = string([]rune(s.Text)[:min(n, utf8.RuneCountInString(s.Text))]) + note
		if fits() {
			break
		}
	}
	out := render()
	if utf8.RuneCountInString(out) > limit {
		out = string([]rune(out)[:limit])
	}
	return out
}

// rawText is a raw JSON value as text: a string's value, "" for null or
// absent, else the JSON itself.
func rawText(raw json.RawMessage) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return ""
	}
	if raw[0] == '"' {
		var s string
		if json.Unmarshal(raw, &s) == nil {
			return s
		}
	}
	return string(raw)
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

package claudecode

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/gitstore"
	"github.com/recite-dev/recite/engine/internal/textutil"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning/conversation"
)

// isIteration reports whether a finished turn is an iteration of the
// agent's loop, which the circuit breaker counts: a turn that tried to
// change something (an edit, a write, a command that builds or tests:
// signals.ChangeAttempt), changed a file, or ended on an error. A turn in
// which the agent only answered or only read is none, so it is neither a
// stall nor progress.
func isIteration(t hookTurn) bool {
	return t.Attempts > 0 || len(t.Files) > 0 || strings.TrimSpace(t.LastError) != ""
}

// turnRecord is the iteration record of a finished turn: its files (none
// is a stall), reply's line count as output lines (-1, unknown, when the
// turn ended without a Stop), and its last tool error's hash.
func turnRecord(t hookTurn, reply string, outputLines int) conversation.Record {
	files := t.Files
	if files == nil {
		files = []string{}
	}
	content := textutil.FirstLine(reply)
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
// next one with the prompt. A prompt holding a failed background task's
// <task-notification> is recorded as an error (as the importer does).
func (h *claudeHook) userPromptSubmit(ctx context.Context) error {
	text := rawText(h.ev.Prompt)
	return h.locked(ctx, func() error {
		var t hookTurn
		var recs []conversation.Record
		if h.readState("turn", &t) && t.Open && isIteration(t) {
			recs = append(recs, turnRecord(t, "", -1))
		}
		if strings.TrimSpace(text) != "" {
			r := conversation.Record{Kind: conversation.KindMessage, Role: conversation.RoleUser, Content: h.capContent(text)}
			if n, ok := conversation.ParseTaskNotification(text); ok && n.Failed() {
				r.IsError = true
			}
			recs = append(recs, r)
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
			recs = append(recs, conversation.Record{Kind: conversation.KindMessage, Role: conversation.RoleAssistant, Provider: h.d.provider, Content: h.capContent(text)})
		}
		if isIteration(t) {
			recs = append(recs, turnRecord(t, h.e.RedactText(text), replyLines(text)))
		}
		if err := h.append(ctx, recs...); err != nil {
			return err
		}
		return h.writeState("turn", hookTurn{})
	})
}

// toolCall is the assistant message carrying the call the event reports,
// so every recorded tool result answers a call (docs/architecture.md#tool-calls-keep-their-results).
func (h *claudeHook) toolCall() conversation.Record {
	name, args := h.ev.ToolName, strings.TrimSpace(string(h.ev.ToolInput))
	if h.callName != "" {
		name, args = h.callName, h.callArgs
	}
	if args == "" {
		args = "{}"
	}
	return conversation.Record{Kind: conversation.KindMessage, Role: conversation.RoleAssistant, Provider: h.d.provider,
		ToolCalls: []conversation.ToolCall{{ID: h.ev.ToolUseID, Name: name, Arguments: args}}}
}

func (h *claudeHook) postToolUseFailure(ctx context.Context) error {
	text := rawText(h.ev.Error)
	result := conversation.Record{Kind: conversation.KindMessage, Role: conversation.RoleTool, ToolCallID: h.ev.ToolUseID, ToolName: h.ev.ToolName, Content: h.capContent(text)}
	if h.ev.IsInterrupt {
		// The user stopped the tool: not an error of the work.
		result.Internal = true
		result.Content = h.capContent(strings.TrimSpace("Interrupted by the user. " + text))
	} else {
		result.IsError = true
		if strings.TrimSpace(result.Content) == "" {
			result.Content = h.ev.ToolName + " failed"
		}
	}
	// Redacted as append writes it, so the turn's error hash is that of
	// the recorded text.
	h.redactRecord(&result)
	call := h.toolCall()
	lastError := h.turnError(call, result)
	return h.locked(ctx, func() error {
		if err := h.append(ctx, call, result); err != nil {
			return err
		}
		return h.writeState("turn", h.countTool(call, lastError))
	})
}

// command is what the call ran (conversation.CallCommand: the Bash
// command, else the tool and its main argument).
func command(call conversation.Record) string {
	tc := call.ToolCalls[0]
	return conversation.CallCommand(tc.Name, tc.Arguments)
}

// attempt reports a call that tries to change the project
// (signals.ChangeAttempt).
func (h *claudeHook) attempt(call conversation.Record) bool {
	return signals.ChangeAttempt(canonicalTool(h.ev.ToolName), command(call))
}

// turnError is what a tool result gives the turn as its last error: the
// key line of its first error that is not a harmless probe (with the
// command before a bare exit code, so two commands failing with "Exit
// code 1" are two errors), "" when it has none. A rejected or
// interrupted call has none.
func (h *claudeHook) turnError(call, result conversation.Record) string {
	if result.Internal {
		return ""
	}
	cmd := command(call)
	msg := signals.Message{ID: result.ToolCallID, Role: conversation.RoleTool, ToolName: result.ToolName, Content: result.Content, IsError: result.IsError, Command: cmd}
	for _, s := range signals.FromMessages([]signals.Message{msg}) {
		if s.Kind != signals.KindError || s.Probe {
			continue
		}
		key := cmpOr(s.KeyLine, s.Text)
		if strings.HasPrefix(key, "Exit code ") && cmd != "" {
			key = cmd + ": " + key
		}
		return key
	}
	return ""
}

// editTools write the file named by their input's file_path (or
// notebook_path); readOnlyTools never change files.
var (
	editTools     = []string{"Write", "Edit", "MultiEdit", "NotebookEdit"}
	readOnlyTools = []string{"Read", "Grep", "Glob", "LS", "WebFetch", "WebSearch", "TodoWrite", "TodoRead", "Task", "Agent",
		"NotebookRead", "BashOutput", "KillShell", "KillBash", "ExitPlanMode", "Skill", "SlashCommand", "AskUserQuestion",
		"ListMcpResourcesTool", "ReadMcpResourceTool"}
)

// postToolUse records a successful call and its result: the text of
// tool_response (conversation.ToolOutput: Bash's stdout and stderr,
// TaskOutput's task output, BashOutput's, a Read's file…) flagged as an
// error when the response says the call failed (a failed background task,
// an exit code, success false). An error in the output (a failure line
// of a command piped into tail, which exits 0) becomes the turn's last
// error.
func (h *claudeHook) postToolUse(ctx context.Context, res *result) error {
	text, failed := conversation.ToolOutput(h.ev.ToolResponse)
	if h.d == codexDialect {
		text, failed = h.codexToolOutput(ctx, text, failed)
	}
	return h.recordTool(ctx, res, text, failed)
}

// recordTool records the event's tool call and its result text (failed:
// flagged is_error), the files it changed and its error as the turn's
// last (postToolUse).
func (h *claudeHook) recordTool(ctx context.Context, res *result, text string, failed bool) error {
	call := h.toolCall()
	result := conversation.Record{Kind: conversation.KindMessage, Role: conversation.RoleTool, ToolCallID: h.ev.ToolUseID, ToolName: call.ToolCalls[0].Name, Content: h.capContent(text), IsError: failed}
	h.redactRecord(&result)
	lastError := h.turnError(call, result)
	return h.locked(ctx, func() error {
		files, err := h.changedFiles(ctx)
		if err != nil && !errors.Is(err, gitstore.ErrNoRepository) {
			res.notef("%s: files changed not checked: %v", h.ev.HookEventName, err)
		}
		if err := h.append(ctx, call, result); err != nil {
			return err
		}
		t := h.countTool(call, lastError)
		for _, f := range files {
			if !slices.Contains(t.Files, f) {
				t.Files = append(t.Files, f)
			}
		}
		slices.Sort(t.Files)
		return h.writeState("turn", t)
	})
}

// countTool returns the session's open turn with one more tool use:
// an attempt when call tried to change something, and lastError as the
// turn's error when there is one. The caller holds the session lock and
// writes it back.
func (h *claudeHook) countTool(call conversation.Record, lastError string) hookTurn {
	var t hookTurn
	h.readState("turn", &t)
	t.Open = true
	t.Tools++
	if h.attempt(call) {
		t.Attempts++
	}
	if lastError != "" {
		t.LastError = lastError
	}
	return t
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
	name := canonicalTool(h.ev.ToolName)
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
			p = filepath.Join(h.dir, p)
		}
		rel, ok := h.e.RelPath(p)
		if !ok {
			return nil, nil
		}
		changed = []string{rel}
		// Remember the edit so the next git check does not count it again.
		st.Files[rel] = h.signature(rel)
	} else {
		files, err := h.e.ModifiedFiles(ctx)
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
	fi, err := os.Stat(filepath.Join(h.dir, filepath.FromSlash(rel)))
	if err != nil {
		return "-"
	}
	return strconv.FormatInt(fi.Size(), 10) + ":" + strconv.FormatInt(fi.ModTime().UnixNano(), 10)
}

func (h *claudeHook) preCompact(ctx context.Context, res *result) error {
	var convs []string
	if h.conv != "" {
		convs = []string{h.conv}
	}
	diags, err := h.e.PreserveCompaction(ctx, convs, h.opts.Now, HookTail)
	for _, d := range diags {
		// Say what matters: a broken configuration and a partial block;
		// the rest is in `recite status`.
		if d.Path == config.FileName || strings.HasPrefix(d.Message, "deadline reached") {
			res.notef("PreCompact: %s", d)
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
	if strings.TrimSpace(summary) == "" && h.d == codexDialect {
		// Codex's PostCompact carries no summary: its rollout does.
		summary, _ = h.transcriptSummary(ctx)
	}
	var errs []error
	if h.conv != "" && strings.TrimSpace(summary) != "" {
		errs = append(errs, h.append(ctx,
			conversation.Record{Kind: conversation.KindMeta, Event: conversation.EventCompactBoundary, Content: strings.TrimSpace("compaction " + h.ev.Trigger)},
			conversation.Record{Kind: conversation.KindMessage, Role: conversation.RoleUser, CompactSummary: true, Content: h.capContent(summary)}))
	}
	blocks, err := h.e.ReadPreserved()
	if err != nil {
		return errors.Join(append(errs, err)...)
	}
	latest, ok := signals.Latest(blocks)
	if !ok || h.conv == "" {
		return errors.Join(errs...)
	}
	st := compactState{BlockTimestamp: latest.Timestamp, BlockLine: latest.Line, Trigger: h.ev.Trigger, Lost: h.e.LostSignals(summary, latest.Signals)}
	return errors.Join(append(errs, h.writeState("compact", st))...)
}

func (h *claudeHook) limit() int {
	if h.opts.MaxOutput > 0 {
		return h.opts.MaxOutput
	}
	return HookMaxOutput
}

// capContent is the package's capContent of text with its secrets
// replaced first: a cut must never halve a secret, whose first half no
// rule would find any more.
func (h *claudeHook) capContent(text string) string {
	return capContent(h.e.RedactText(text))
}

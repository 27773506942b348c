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
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/internal/textutil"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning/conversation"
)

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

func (h *claudeHook) postToolUse(ctx context.Context, res *result) error {
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
	var errs []error
	if h.conv != "" && strings.TrimSpace(summary) != "" {
		errs = append(errs, h.append(ctx,
			conversation.Record{Kind: conversation.KindMeta, Event: conversation.EventCompactBoundary, Content: strings.TrimSpace("compaction " + h.ev.Trigger)},
			conversation.Record{Kind: conversation.KindMessage, Role: conversation.RoleUser, CompactSummary: true, Content: capContent(summary)}))
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

func (h *claudeHook) sessionStart(ctx context.Context, res *result) error {
	blocks, err := h.e.ReadPreserved()
	if err != nil {
		res.notef("SessionStart: %v", err)
	}
	latest, haveBlock := signals.Latest(blocks)
	// A block written before recite redacted blocks may hold a secret;
	// the summary is checked against both forms (lostInCompaction).
	raw := latest
	latest = h.e.RedactBlock(latest)
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
		lead = "recite: where this project stands (recitation from .planning/, then the latest preservation block of " + layout.PreservedFile + ")."
		// Out of time before the recitation: the block alone.
		h.partial.set(fitContext("recite: the latest preservation block of "+layout.PreservedFile+".", "", latest, h.limit()))
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
			return h.e.RedactSignals(st.Lost), "checked by recite at PostCompact"
		}
	}
	if summary, ok := transcriptCompactSummary(ctx, h.ev.TranscriptPath); ok {
		return h.e.LostSignals(summary, latest.Signals), "checked by recite against the transcript's summary"
	}
	return h.e.RedactSignals(latest.Signals), "the summary could not be read, so every preserved signal is repeated"
}

// recitation is the engine's recitation block (Engine.Recitation); the
// configuration's problems are notes on res.
func (h *claudeHook) recitation(ctx context.Context, res *result) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	rec, diags, err := h.e.Recitation(ctx)
	for _, d := range diags {
		res.notef("SessionStart: %s", d)
	}
	h.recited = rec
	return rec, err
}

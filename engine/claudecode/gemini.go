package claudecode

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/signals"
)

// Gemini CLI's hooks (docs/agents.md#gemini-cli; measured on
// @google/gemini-cli 0.61.0): a command gets one JSON event on stdin and
// must print JSON only on stdout (plain text becomes a "systemMessage"
// the user sees and the model never does; with stdout empty, stderr is
// read instead). Its events map onto Claude Code's:
//
//	SessionStart (startup, resume, clear) → SessionStart, the context in
//	    hookSpecificOutput.additionalContext (the first turn of the history,
//	    or prepended to a non-interactive prompt)
//	BeforeAgent  → UserPromptSubmit, the context appended to the prompt
//	AfterTool    → PostToolUse (and PostToolUseFailure: a failed tool has
//	    tool_response.error, a failed shell command "Exit Code: N")
//	AfterAgent   → Stop (prompt_response is the reply)
//	PreCompress  → PreCompact
//
// Gemini CLI fires PreCompress before every model call whose history might
// be compressed, and has no event after a compression. So PreCompress
// writes a block only when it says something new, and the next BeforeAgent
// looks in the session's transcript for a new <state_snapshot> (the
// compressed history's summary, which Gemini CLI records in the
// transcript's `{"$set": {"messages": …}}` line): what the snapshot lost
// of the latest block is added to that prompt, once.
const (
	// GeminiSettingsFile is the project's Gemini CLI settings file,
	// relative to the project root.
	GeminiSettingsFile = ".gemini/settings.json"
	// geminiDefaultTimeout is Gemini CLI's timeout for a hook without one
	// (60,000 ms).
	geminiDefaultTimeout = 60 * time.Second
	// geminiHookTimeout is the timeout `init --gemini` writes, in
	// milliseconds (Gemini CLI's unit).
	geminiHookTimeout = 10000
	// geminiSnapshotPrefix bounds how much of a transcript's history line
	// is read for the state snapshot, in bytes: the snapshot is the
	// history's first user message after the session context.
	geminiSnapshotPrefix = 1 << 20
)

// GeminiHookEvents are the Gemini CLI events recite handles, in the order
// they are added, with the matcher each group gets ("" omits it; "*" is
// every tool).
var GeminiHookEvents = []struct{ Event, Matcher string }{
	{"SessionStart", ""},
	{"BeforeAgent", ""},
	{"AfterTool", "*"},
	{"AfterAgent", ""},
	{"PreCompress", ""},
}

// handleGemini handles one Gemini CLI event as its Claude Code twin.
func (h *claudeHook) handleGemini(ctx context.Context, res *result) error {
	switch h.ev.HookEventName {
	case "SessionStart":
		err := h.sessionStart(ctx, res)
		return errors.Join(err, h.sessionRecited(ctx, h.recited, res.out))
	case "BeforeAgent":
		err := h.userPromptSubmit(ctx)
		lost, lerr := h.geminiCompressed(ctx, res)
		rec, rerr := h.promptRecitationText(ctx, res)
		res.out = strings.TrimSpace(strings.Join(nonEmpty(lost, rec), "\n\n"))
		h.recordStatus(ctx, res)
		return errors.Join(err, lerr, rerr)
	case "AfterTool":
		if h.ev.ToolUseID == "" {
			h.ev.ToolUseID = geminiCallID(h.ev)
		}
		text, failed := geminiToolOutput(h.ev.ToolResponse)
		err := h.recordTool(ctx, res, text, failed)
		if failed {
			h.recordStatus(ctx, res)
		}
		return err
	case "AfterAgent":
		h.ev.LastAssistantMessage = h.ev.PromptResponse
		err := h.stop(ctx)
		h.recordStatus(ctx, res)
		return err
	case "PreCompress":
		return h.geminiPreCompress(ctx, res)
	}
	return nil
}

func nonEmpty(parts ...string) []string {
	var out []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return out
}

// contextOutput is text as the JSON Gemini CLI reads from a hook:
// {"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext":
// TEXT}} for the events whose context reaches the model (SessionStart,
// BeforeAgent), else {"systemMessage": TEXT}.
func (h *claudeHook) contextOutput(text string) string {
	switch h.ev.HookEventName {
	case "SessionStart", "BeforeAgent":
		if out, err := hookContextJSON(h.ev.HookEventName, text); err == nil {
			return out
		}
	}
	b, err := marshalNoHTML(map[string]string{"systemMessage": text})
	if err != nil {
		return "{}\n"
	}
	return string(b) + "\n"
}

// geminiCallID names a Gemini CLI tool call, which its AfterTool event
// does not: the hash of the session, the event's time, the tool and its
// input, so the call and its result pair up in the log.
func geminiCallID(ev Event) string {
	sum := sha256.Sum256([]byte(ev.SessionID + "\x00" + ev.Timestamp + "\x00" + ev.ToolName + "\x00" + string(ev.ToolInput)))
	return "gemini-" + hex.EncodeToString(sum[:8])
}

// geminiExit is the exit line of Gemini CLI's shell tool output.
var geminiExit = regexp.MustCompile(`(?m)^Exit Code: (-?\d+)\s*$`)

// geminiToolOutput reads AfterTool's tool_response ({llmContent,
// returnDisplay, error}): the text the model got (llmContent, a string or
// an array of parts, the <untrusted_context> wrapper of the shell and MCP
// tools removed), failed when the response has an error (its message
// first) or the shell reported a non-zero "Exit Code: N".
func geminiToolOutput(raw json.RawMessage) (text string, failed bool) {
	var r struct {
		LLMContent    json.RawMessage `json:"llmContent"`
		ReturnDisplay json.RawMessage `json:"returnDisplay"`
		Error         *struct {
			Message string `json:"message"`
			Type    string `json:"type"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &r) != nil {
		return rawText(raw), false
	}
	text = geminiParts(r.LLMContent)
	if text == "" {
		text = geminiParts(r.ReturnDisplay)
	}
	text = strings.TrimSpace(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(text), "<untrusted_context>"), "</untrusted_context>"))
	if r.Error != nil && (r.Error.Message != "" || r.Error.Type != "") {
		msg := strings.TrimSpace(r.Error.Message)
		if msg != "" && !strings.Contains(text, msg) {
			text = strings.TrimSpace(msg + "\n" + text)
		}
		return text, true
	}
	if m := geminiExit.FindStringSubmatch(text); m != nil && m[1] != "0" {
		return text, true
	}
	return text, false
}

// geminiParts is llmContent as text: a string, or the text of a part or
// an array of parts ({"text": …}; other parts as their JSON).
func geminiParts(raw json.RawMessage) string {
	if t, isString := jsonText(raw); isString || t == "" {
		return t
	}
	var parts []json.RawMessage
	if json.Unmarshal(raw, &parts) != nil {
		parts = []json.RawMessage{raw}
	}
	var out []string
	for _, p := range parts {
		var tp struct {
			Text *string `json:"text"`
		}
		if json.Unmarshal(p, &tp) == nil && tp.Text != nil {
			out = append(out, *tp.Text)
			continue
		}
		out = append(out, rawText(p))
	}
	return strings.Join(out, "\n")
}

// geminiPreCompress writes a preservation block before Gemini CLI may
// compress the history, unless the latest block says the same
// (Engine.PreserveCompactionIfChanged): PreCompress fires before every
// model call.
func (h *claudeHook) geminiPreCompress(ctx context.Context, res *result) error {
	var convs []string
	if h.conv != "" {
		convs = []string{h.conv}
	}
	_, diags, err := h.e.PreserveCompactionIfChanged(ctx, convs, h.opts.Now, HookTail)
	for _, d := range diags {
		if d.Path == config.FileName || strings.HasPrefix(d.Message, "deadline reached") {
			res.notef("PreCompress: %s", d)
		}
	}
	return err
}

// geminiCompressKind names the session's state of the last state
// snapshot handled (.planning/.recite/hooks/ID.compress.json).
const geminiCompressKind = "compress"

// geminiCompressState is the last state snapshot of the session's
// transcript that BeforeAgent handled: its message id (else its text's
// hash).
type geminiCompressState struct {
	Snapshot string `json:"snapshot"`
}

// geminiCompressed is what BeforeAgent adds after a compression: when the
// session's transcript has a state snapshot it did not handle yet, the
// stop signals of the latest block the snapshot lost, led as
// SessionStart's after a compaction ("" when it lost none); the
// recitation state is dropped (the prompt gets it again) and the context
// is noted to hold the block's signals.
func (h *claudeHook) geminiCompressed(ctx context.Context, res *result) (string, error) {
	if h.conv == "" {
		return "", nil
	}
	id, snap, ok := geminiSnapshot(ctx, h.ev.TranscriptPath)
	if !ok {
		return "", nil
	}
	// A compression makes a new snapshot message; a resume records the
	// same one again.
	key := id
	if key == "" {
		sum := sha256.Sum256([]byte(snap))
		key = hex.EncodeToString(sum[:8])
	}
	var st geminiCompressState
	if h.readState(geminiCompressKind, &st) && st.Snapshot == key {
		return "", nil
	}
	err := h.locked(ctx, func() error {
		if err := h.writeState(geminiCompressKind, geminiCompressState{Snapshot: key}); err != nil {
			return err
		}
		err := os.Remove(h.statePath(recitationKind))
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		return err
	})
	if err != nil {
		return "", err
	}
	blocks, err := h.e.ReadPreserved()
	if err != nil {
		return "", err
	}
	latest, ok := signals.Latest(blocks)
	if !ok {
		h.noteDelivered(ctx, res, nil, true)
		return "", nil
	}
	lost := h.e.LostSignals(snap, latest.Signals)
	h.noteDelivered(ctx, res, latest.Signals, true)
	if len(lost) == 0 {
		return "", nil
	}
	return fitOutput(fmt.Sprintf(leadCompact, "checked by recite against Gemini CLI's state snapshot"), "",
		signals.Block{Trigger: signals.TriggerCompaction, Signals: lost}, h.limit()), nil
}

// geminiHistoryLine starts the transcript line in which Gemini CLI records
// the history a chat (re)starts with: at a resume, and after a
// compression, whose history opens with the state snapshot.
var geminiHistoryLine = []byte(`{"$set":{"messages":`)

// geminiSnapshot returns the state snapshot of the history the Gemini CLI
// transcript at path last recorded (the id and text of its first user
// message holding <state_snapshot>, read from the first
// geminiSnapshotPrefix bytes of that line); ok is false when the file cannot be read or its latest
// history has no snapshot (no compression since the chat started). At
// most hookMaxTranscript bytes are scanned.
func geminiSnapshot(ctx context.Context, path string) (id, text string, ok bool) {
	if path == "" || !filepath.IsAbs(path) {
		return "", "", false
	}
	f, err := os.Open(path)
	if err != nil {
		return "", "", false
	}
	defer func() { _ = f.Close() }()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", "", false
	}
	br := bufio.NewReaderSize(io.LimitReader(f, hookMaxTranscript), 64<<10)
	var last []byte
	for n := 0; ; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return "", "", false
		}
		prefix, err := readPrefix(br, geminiSnapshotPrefix)
		if bytes.HasPrefix(prefix, geminiHistoryLine) {
			last = append(last[:0], prefix...)
		}
		if err != nil {
			break
		}
	}
	if last == nil {
		return "", "", false
	}
	return snapshotOf(last)
}

// snapshotOf reads the messages of a history line's prefix (which may
// stop mid-message) and returns the first user message holding a state
// snapshot: its id (a new one at each compression; the same when a resume
// records the history again) and its text.
func snapshotOf(line []byte) (id, text string, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	for _, want := range []any{json.Delim('{'), "$set", json.Delim('{'), "messages", json.Delim('[')} {
		tok, err := dec.Token()
		if err != nil || tok != want {
			return "", "", false
		}
	}
	for i := 0; i < 8 && dec.More(); i++ {
		var m struct {
			ID      string          `json:"id"`
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if dec.Decode(&m) != nil {
			return "", "", false
		}
		if m.Type != "user" {
			continue
		}
		if t := geminiParts(m.Content); strings.Contains(t, "<state_snapshot>") {
			return m.ID, t, true
		}
	}
	return "", "", false
}

// readPrefix reads one line of br and returns its first max bytes
// without the newline. The error is io.EOF at the end.
func readPrefix(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if room := max - len(line); room > 0 {
			line = append(line, chunk[:min(len(chunk), room)]...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return bytes.TrimRight(line, "\r\n"), err
	}
}

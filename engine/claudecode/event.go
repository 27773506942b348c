package claudecode

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Event is one Claude Code hook event as read from stdin
// (docs/providers.md#claude-code-hooks, Claude Code's hooks reference): the common fields, then
// each event's own. Fields that carry free text or JSON (prompt, tool
// input and response, error, last assistant message, compact summary) are
// kept raw, so a value of an unexpected JSON type is still recorded; the
// scalar fields are read tolerant of type (decodeEvent).
type Event struct {
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
	// PromptResponse is Gemini CLI's AfterAgent reply; Timestamp its
	// events' time (ISO 8601).
	PromptResponse json.RawMessage `json:"prompt_response,omitempty"`
	Timestamp      string          `json:"timestamp,omitempty"`
	// TurnID is Codex CLI's turn of UserPromptSubmit, PostToolUse, Stop
	// and the compaction events.
	TurnID string `json:"turn_id,omitempty"`
}

// decodeEvent reads one event leniently: the payload must be a JSON
// object, and each known field is read whatever its JSON type, so a wrong
// type in one field never drops the event. Scalar fields take a string's
// value, a number's or a boolean's literal text ("5", "true"), "" for null,
// and the compact JSON of an object or array; is_interrupt is true for
// true, "true" (any case), a non-zero number or "1". Errors: the payload
// is not a JSON object.
func decodeEvent(raw []byte) (Event, error) {
	var ev Event
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
	ev.PromptResponse, ev.Timestamp, ev.TurnID = m["prompt_response"], str("timestamp"), str("turn_id")
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

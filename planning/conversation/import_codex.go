package conversation

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/recite-dev/recite/markdown"
)

// The Codex CLI session file ("rollout"), as codex-rs defines it (read
// from the Rust source; facts, not code, carried over):
//
//   - Where: ~/.codex/sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-UUID.jsonl
//     (codex-rs/core/src/rollout/recorder.rs).
//   - Each line is a RolloutLine, {"timestamp": RFC 3339, "type": T,
//     "payload": P}, the RolloutItem flattened with serde(tag = "type",
//     content = "payload", rename_all = "snake_case")
//     (codex-rs/protocol/src/protocol.rs). T is session_meta (the first
//     line: id, timestamp, cwd, originator, cli_version, source,
//     model_provider, git), response_item, compacted ({message,
//     replacement_history}), turn_context ({cwd, approval_policy,
//     sandbox_policy, model, ...}) or event_msg; newer versions add an
//     optional "ordinal" and other item types, which are skipped.
//   - A response_item payload is a ResponseItem, tagged by "type"
//     (codex-rs/protocol/src/models.rs): message {role, content: [{type:
//     input_text|output_text|input_image, text|image_url}]}, reasoning
//     {summary: [{type: summary_text, text}], content?}, function_call
//     {name, arguments (a JSON text in a string), call_id},
//     function_call_output {call_id, output}, custom_tool_call {call_id,
//     name, input}, custom_tool_call_output {call_id, output},
//     local_shell_call {call_id, status, action: {type: exec, command: [...],
//     ...}}, web_search_call {status, action}, ghost_snapshot, compaction.
//     A function_call_output's output is a string, or an array of content
//     items, or (older writers) an object {content, success}.
//   - Shell results are formatted for the model either as the JSON text
//     {"output": ..., "metadata": {"exit_code": N, "duration_seconds": F}}
//     or as "Exit code: N\nWall time: F seconds\n...Output:\n..."
//     (codex-rs/core/src/tools/mod.rs, format_exec_output_for_model_*).
//   - An event_msg payload is an EventMsg, tagged by "type": user_message
//     {message}, agent_message {message}, agent_reasoning {text}, error
//     {message}, exec_command_begin {call_id, command: [...], cwd},
//     exec_command_end {call_id, command, stdout, stderr,
//     aggregated_output, exit_code, formatted_output, status}, turn_aborted
//     {reason}, context_compacted, token_count, ... Which events are
//     written depends on the version's persistence policy
//     (codex-rs/core/src/rollout/policy.rs): user and agent messages
//     always, exec command ends in the extended mode only.

// codexWhat names the format for FormatError.
const codexWhat = "a Codex CLI session file (rollout JSONL)"

// codexAgent is the Agent of imported Codex records.
const codexAgent = "codex"

// codexLine is one RolloutLine.
type codexLine struct {
	Timestamp string          `json:"timestamp"`
	Type      string          `json:"type"`
	Payload   json.RawMessage `json:"payload"`
}

// codexPayload is the part of a response item or event the importer reads
// (both are tagged by "type").
type codexPayload struct {
	Type      string          `json:"type"`
	Namespace string          `json:"namespace"`
	Item      json.RawMessage `json:"item"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Summary   json.RawMessage `json:"summary"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	ID        string          `json:"id"`
	Action    json.RawMessage `json:"action"`
	Output    json.RawMessage `json:"output"`
	Message   string          `json:"message"`
	Command   json.RawMessage `json:"command"`
	Cwd       string          `json:"cwd"`
	ExitCode  *int            `json:"exit_code"`
	Stdout    string          `json:"stdout"`
	Stderr    string          `json:"stderr"`
	Aggregate string          `json:"aggregated_output"`
	Formatted string          `json:"formatted_output"`
	// session_meta and turn_context
	CLIVersion    string `json:"cli_version"`
	ModelProvider string `json:"model_provider"`
	Model         string `json:"model"`
}

// codexText is a content item or summary part: {type, text}.
type codexText struct {
	Type     string `json:"type"`
	Text     string `json:"text"`
	ImageURL string `json:"image_url"`
}

// codexEntry is one line read: its number, time and item, or why it was
// skipped.
type codexEntry struct {
	line int
	// obj is the entry's index among the JSON objects glued on its line
	// (0 for a line of one object).
	obj  int
	ts   time.Time
	kind string // the RolloutLine type
	p    codexPayload
	raw  json.RawMessage // the payload as read
	skip string
}

// codexFile is what the whole file says about each line's neighbours.
type codexFile struct {
	session, provider string
	// userEvents, assistantItems and compacted report that the file has
	// user_message events, assistant message items and compacted items,
	// so their duplicates (user message items, agent_message events,
	// context_compacted events) are skipped.
	userEvents, assistantItems, compacted bool
	// outputs are the call ids with a function or custom tool output;
	// exits the exit codes of exec_command_end events; calls the call ids
	// of function, custom tool and local shell calls.
	outputs, calls map[string]bool
	exits          map[string]int
	failed         map[string]bool   // call ids whose item_completed says failed
	names          map[string]string // call id → tool name
	model          string
}

// ImportCodex turns a Codex CLI session file (the rollout JSONL described
// above) into records, in file order, with the same records as
// ImportClaudeCode would make of the same conversation, so stop signals
// are extracted alike:
//
//   - user_message events → user messages (user message items only when
//     the file has no such events; injected context — <environment_context>,
//     <user_instructions>, AGENTS.md instructions — is Internal);
//     assistant message items → assistant messages (agent_message events
//     only when the file has no such items); developer and system messages
//     → Internal system messages; reasoning → Internal assistant messages;
//   - function_call, custom_tool_call and local_shell_call → an assistant
//     message with one ToolCall (arguments verbatim); their outputs → tool
//     messages with ToolCallID and ToolName, IsError when the exit code is
//     not 0 (from the output's metadata or "Exit code: N" line, or the
//     exec_command_end event of the same call) or success is false;
//   - exec_command_begin/end events of a call no response item records
//     (a user's "!" command) → a tool call and its result, the result's
//     content the command's output (stderr after stdout), IsError when
//     exit_code is not 0;
//   - session_meta → a meta record EventSessionStart; compacted → a meta
//     EventCompactBoundary and the summary as a CompactSummary user
//     message; error events → meta EventAPIError with IsError;
//   - everything else (turn_context, token_count, ghost snapshots, …) is
//     skipped and counted by "type" or "type:payload type".
//
// Record ids are "codex-SESSION-LLLLLLLL" (the session id from
// session_meta, the line number zero-padded, ".K" for the Kth of the JSON
// objects glued on one line (K > 0), "-N" for a line's Nth record),
// so importing twice with [Store.AppendNew] adds nothing. Malformed lines
// are skipped with a diagnostic (path "codex"). An input with no rollout
// line (a JSON object with "type" and "payload") is a *FormatError, with a
// hint when it looks like a Claude Code transcript or an aider history.
func ImportCodex(r io.Reader) ([]Record, Report, error) {
	var rep Report
	entries, typed, hint, err := readCodex(r, &rep)
	if err != nil {
		return nil, rep, err
	}
	if typed == 0 {
		reason := "it is empty"
		if rep.Entries > 0 {
			reason = fmt.Sprintf("none of its %d non-blank lines is a rollout line (a JSON object with \"type\" and \"payload\")", rep.Entries)
		}
		return nil, rep, &FormatError{What: codexWhat, Reason: reason + hint}
	}
	f := scanCodex(entries)
	var out []Record
	for _, e := range entries {
		if e.skip != "" {
			codexSkip(&rep, e.skip)
			continue
		}
		recs, reason := f.convert(e)
		if reason != "" {
			codexSkip(&rep, reason)
			continue
		}
		codexUnknownFields(&rep, e)
		for i := range recs {
			recs[i].ID = fmt.Sprintf("%s-%08d", f.idPrefix(), e.line)
			if e.obj > 0 {
				recs[i].ID += "." + strconv.Itoa(e.obj)
			}
			if len(recs) > 1 {
				recs[i].ID += "-" + strconv.Itoa(i)
			}
			recs[i].Time, recs[i].Source = e.ts, fmt.Sprintf("codex:%d", e.line)
		}
		rep.Imported++
		rep.Records += len(recs)
		out = append(out, recs...)
	}
	return out, rep, nil
}

// codexSkip counts one skipped entry (Report.Skipped).
func codexSkip(rep *Report, reason string) {
	if rep.Skipped == nil {
		rep.Skipped = map[string]int{}
	}
	rep.Skipped[reason]++
}

// codexEntryOf reads one rollout line (a JSON object) of line n: typed is
// true for a rollout line (a "type" and a "payload"), and looks is
// "aider" or "claude" when a line that is not one looks like that
// format's.
func codexEntryOf(t []byte, n int) (e codexEntry, typed bool, looks string) {
	e = codexEntry{line: n}
	var l codexLine
	var probe struct {
		UUID string `json:"uuid"`
	}
	switch {
	case json.Unmarshal(t, &l) != nil:
		e.skip = "malformed JSON"
		if strings.HasPrefix(string(t), "#### ") || strings.HasPrefix(string(t), aiderStart) {
			looks = "aider"
		}
	case l.Type == "" || len(l.Payload) == 0:
		e.skip = "malformed: not a rollout line"
		if json.Unmarshal(t, &probe) == nil && probe.UUID != "" {
			looks = "claude"
		}
	default:
		typed = true
		e.kind = l.Type
		ts, terr := time.Parse(time.RFC3339Nano, l.Timestamp)
		switch {
		case terr != nil:
			e.skip = "malformed: bad timestamp"
		case json.Unmarshal(l.Payload, &e.p) != nil:
			e.skip = "malformed: payload"
		}
		e.raw = l.Payload
		e.ts = ts.UTC()
	}
	return e, typed, looks
}

// readCodex reads every non-blank line; a line of several JSON objects
// glued together is read object by object, with a diagnostic. typed counts the rollout lines;
// hint names the right importer when the lines look like another format.
func readCodex(r io.Reader, rep *Report) (entries []codexEntry, typed int, hint string, err error) {
	br := bufio.NewReader(r)
	claude, aider := 0, 0
	for n := 1; ; n++ {
		line, rerr := br.ReadBytes('\n')
		if t := bytes.TrimSpace(line); len(t) > 0 {
			objs, rest := [][]byte{t}, []byte(nil)
			if !json.Valid(t) {
				// Objects glued on one line (a writer lost a newline):
				// each is an entry; what follows the last one that
				// parses is one malformed entry.
				objs, rest = splitObjects(t)
				if len(objs) > 1 {
					rep.Diagnostics = append(rep.Diagnostics, markdown.Diagnostic{Path: "codex", Line: n, Message: fmt.Sprintf("%d JSON objects glued on one line; each was read as an entry", len(objs))})
				}
				if len(rest) > 0 {
					objs = append(objs, rest)
				}
			}
			for k, o := range objs {
				e, isTyped, looks := codexEntryOf(o, n)
				e.obj = k
				rep.Entries++
				if isTyped {
					typed++
				}
				switch looks {
				case "aider":
					aider++
				case "claude":
					claude++
				}
				if strings.HasPrefix(e.skip, "malformed") {
					rep.Diagnostics = append(rep.Diagnostics, markdown.Diagnostic{Path: "codex", Line: n, Message: e.skip})
				}
				entries = append(entries, e)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return nil, 0, "", fmt.Errorf("import codex line %d: %w", n, rerr)
		}
	}
	switch {
	case claude > 0:
		hint = "; it looks like a Claude Code transcript: use `recite import claude-code`"
	case aider > 0:
		hint = "; it looks like an aider chat history: use `recite import aider`"
	}
	return entries, typed, hint, nil
}

// scanCodex gathers what the lines say about each other.
func scanCodex(entries []codexEntry) *codexFile {
	f := &codexFile{outputs: map[string]bool{}, calls: map[string]bool{}, exits: map[string]int{}, failed: map[string]bool{}, names: map[string]string{}}
	for _, e := range entries {
		if e.skip != "" {
			continue
		}
		p := e.p
		switch e.kind + ":" + p.Type {
		case "session_meta:":
			if f.session == "" {
				f.session, f.provider = p.ID, p.ModelProvider
			}
		case "response_item:message":
			f.assistantItems = f.assistantItems || p.Role == RoleAssistant
		case "event_msg:user_message":
			f.userEvents = true
		case "response_item:function_call_output", "response_item:custom_tool_call_output":
			f.outputs[p.CallID] = true
		case "response_item:function_call", "response_item:custom_tool_call", "response_item:local_shell_call":
			f.calls[cmp.Or(p.CallID, p.ID)] = true
		case "event_msg:exec_command_end":
			if p.ExitCode != nil {
				f.exits[p.CallID] = *p.ExitCode
			}
		case "event_msg:item_completed":
			if it, ok := codexItemOf(p); ok {
				if code, ok := it.exitCode(); ok {
					f.exits[it.ID] = code
				}
				if it.Status == "failed" && it.Type == "McpToolCall" {
					f.failed[it.ID] = true
				}
			}
		}
		if e.kind == "compacted" {
			f.compacted = true
		}
	}
	return f
}

// idPrefix is "codex-SESSION", or "codex" without a session id.
func (f *codexFile) idPrefix() string {
	if f.session == "" {
		return "codex"
	}
	return "codex-" + f.session
}

// convert turns one line into records, or says why it is skipped.
func (f *codexFile) convert(e codexEntry) ([]Record, string) {
	p := e.p
	switch e.kind {
	case "session_meta":
		return []Record{{Kind: KindMeta, Event: EventSessionStart,
			Content: strings.TrimSpace(fmt.Sprintf("Codex CLI %s in %s", p.CLIVersion, p.Cwd))}}, ""
	case "turn_context":
		f.model = cmp.Or(p.Model, f.model)
		return nil, "turn_context (the turn's settings; its model is kept on the replies)"
	case "world_state":
		return nil, "world_state (the session's settings)"
	case "token_usage_record":
		return nil, "token_usage_record (token usage, not a message)"
	case "compacted":
		return []Record{{Kind: KindMeta, Event: EventCompactBoundary, Content: "compacted"},
			{Kind: KindMessage, Role: RoleUser, CompactSummary: true, Content: p.Message}}, ""
	case "response_item":
		return f.responseItem(p)
	case "event_msg":
		return f.event(p)
	}
	return nil, e.kind
}

// injected matches the context Codex puts in user messages itself.
var injected = regexp.MustCompile(`^\s*(<environment_context>|<user_instructions>|# AGENTS\.md instructions)`)

// responseItem converts one response item.
func (f *codexFile) responseItem(p codexPayload) ([]Record, string) {
	assistant := Record{Kind: KindMessage, Role: RoleAssistant, Agent: codexAgent, Provider: cmp.Or(f.provider, "openai"), Model: f.model}
	switch p.Type {
	case "message":
		text := codexContent(p.Content)
		switch p.Role {
		case RoleUser:
			if f.userEvents {
				return nil, "response_item:message:user (the user_message events carry the prompts)"
			}
			return []Record{{Kind: KindMessage, Role: RoleUser, Content: text, Internal: injected.MatchString(text)}}, ""
		case RoleAssistant:
			assistant.Content = text
			return []Record{assistant}, ""
		case "developer", RoleSystem:
			return []Record{{Kind: KindMessage, Role: RoleSystem, Content: text, Internal: true}}, ""
		}
		return nil, "response_item:message:" + p.Role
	case "reasoning":
		assistant.Internal, assistant.Content = true, codexContent(p.Summary)
		return []Record{assistant}, ""
	case "function_call", "custom_tool_call", "local_shell_call":
		id, name, args := cmp.Or(p.CallID, p.ID), codexToolName(p.Namespace, p.Name), rawText(p.Arguments)
		switch p.Type {
		case "custom_tool_call":
			args = p.Input
		case "local_shell_call":
			name, args = "local_shell", string(p.Action)
		}
		f.names[id] = name
		assistant.ToolCalls = []ToolCall{{ID: id, Name: name, Arguments: args}}
		return []Record{assistant}, ""
	case "function_call_output", "custom_tool_call_output":
		text, code, failed := codexOutput(p.Output)
		if c, ok := f.exits[p.CallID]; ok && code == nil {
			code = &c
		}
		text = codexShellText(text, code)
		return []Record{{Kind: KindMessage, Role: RoleTool, ToolCallID: p.CallID, ToolName: f.names[p.CallID],
			Content: text, IsError: failed || code != nil && *code != 0 || f.failed[p.CallID]}}, ""
	case "web_search_call":
		assistant.Internal, assistant.Content = true, "[web_search_call] "+string(p.Action)
		return []Record{assistant}, ""
	}
	return nil, "response_item:" + p.Type
}

// event converts one event.
func (f *codexFile) event(p codexPayload) ([]Record, string) {
	switch p.Type {
	case "user_message":
		return []Record{{Kind: KindMessage, Role: RoleUser, Content: p.Message}}, ""
	case "agent_message":
		if f.assistantItems {
			return nil, "event_msg:agent_message (the message items carry the replies)"
		}
		return []Record{{Kind: KindMessage, Role: RoleAssistant, Agent: codexAgent, Provider: cmp.Or(f.provider, "openai"), Model: f.model, Content: p.Message}}, ""
	case "error":
		return []Record{{Kind: KindMeta, Event: EventAPIError, IsError: true, Content: p.Message}}, ""
	case "context_compacted":
		if f.compacted {
			return nil, "event_msg:context_compacted (the compacted item marks it)"
		}
		return []Record{{Kind: KindMeta, Event: EventCompactBoundary, Content: "compacted"}}, ""
	case "item_completed":
		return f.itemCompleted(p)
	case "token_count":
		return nil, "event_msg:token_count (token usage, not a message)"
	case "task_started", "task_complete", "turn_aborted":
		return nil, "event_msg:" + p.Type + " (a turn's boundary)"
	case "thread_settings_applied":
		return nil, "event_msg:thread_settings_applied (the session's settings)"
	case "exec_command_begin":
		if f.calls[p.CallID] {
			return nil, "event_msg:exec_command_begin (its call is a response item)"
		}
		f.names[p.CallID] = "exec_command"
		return []Record{execCall(p, f.model)}, ""
	case "exec_command_end":
		if f.outputs[p.CallID] {
			return nil, "event_msg:exec_command_end (its output is a response item)"
		}
		text := strings.Trim(cmp.Or(p.Aggregate, strings.TrimRight(p.Stdout, "\n")+"\n"+p.Stderr, p.Formatted), "\n")
		res := Record{Kind: KindMessage, Role: RoleTool, ToolCallID: p.CallID, ToolName: "exec_command", Content: text, IsError: p.ExitCode != nil && *p.ExitCode != 0}
		if _, seen := f.names[p.CallID]; seen || f.calls[p.CallID] {
			return []Record{res}, ""
		}
		// No begin event: the call is rebuilt from the end event.
		f.names[p.CallID] = "exec_command"
		return []Record{execCall(p, f.model), res}, ""
	}
	return nil, "event_msg:" + p.Type
}

// execCall is the tool call of an exec command event.
func execCall(p codexPayload, model string) Record {
	args, _ := json.Marshal(struct {
		Command string `json:"command"`
		Cwd     string `json:"cwd,omitempty"`
	}{commandLine(p.Command), p.Cwd})
	return Record{Kind: KindMessage, Role: RoleAssistant, Agent: codexAgent, Model: model,
		ToolCalls: []ToolCall{{ID: p.CallID, Name: "exec_command", Arguments: string(args)}}}
}

// commandLine is an exec event's command: an argv array joined by
// spaces, or a string as it is.
func commandLine(raw json.RawMessage) string {
	var argv []string
	if json.Unmarshal(raw, &argv) == nil {
		return strings.Join(argv, " ")
	}
	return rawText(raw)
}

// codexContent joins a message's text items; images become "[image]".
func codexContent(raw json.RawMessage) string {
	if s, ok := asString(raw); ok {
		return s
	}
	var items []codexText
	if json.Unmarshal(raw, &items) != nil {
		return string(raw)
	}
	parts := make([]string, 0, len(items))
	for _, it := range items {
		switch {
		case it.Type == "input_image" || it.ImageURL != "":
			parts = append(parts, "[image]")
		default:
			parts = append(parts, it.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// rawText is a JSON string's value, or the raw JSON of anything else.
func rawText(raw json.RawMessage) string {
	if s, ok := asString(raw); ok {
		return s
	}
	return string(raw)
}

// exitLine is the freeform shell output's exit line: "Exit code: N" as
// its first line, or (codex-cli 0.169) "Process exited with code N" among
// the header lines before "Output:".
var exitLine = regexp.MustCompile(`(?m)^(?:Exit code:|Process exited with code) (-?\d+)$`)

// codexOutput reads a tool output: its text, the exit code when the text
// carries one (the structured {"output", "metadata": {"exit_code"}} form,
// whose output becomes the text, or the freeform "Exit code: N" line), and
// whether an object output says success: false.
func codexOutput(raw json.RawMessage) (text string, code *int, failed bool) {
	if s, ok := asString(raw); ok {
		var structured struct {
			Output   *string `json:"output"`
			Metadata struct {
				ExitCode *int `json:"exit_code"`
			} `json:"metadata"`
		}
		if strings.HasPrefix(strings.TrimSpace(s), "{") && json.Unmarshal([]byte(s), &structured) == nil && structured.Output != nil {
			return *structured.Output, structured.Metadata.ExitCode, false
		}
		if m := exitLine.FindStringSubmatch(codexHeader(s)); m != nil {
			n, _ := strconv.Atoi(m[1])
			return s, &n, false
		}
		return s, nil, false
	}
	var obj struct {
		Content *string `json:"content"`
		Success *bool   `json:"success"`
	}
	if len(bytes.TrimSpace(raw)) > 0 && raw[0] == '{' && json.Unmarshal(raw, &obj) == nil && obj.Content != nil {
		text, code, _ = codexOutput(json.RawMessage(strconv.Quote(*obj.Content)))
		return text, code, obj.Success != nil && !*obj.Success
	}
	return codexContent(raw), nil, false
}

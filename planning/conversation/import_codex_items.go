package conversation

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// What codex-cli 0.169.0 writes that earlier rollouts did not (read from
// the files it wrote against a scripted model server):
//
//   - A shell result for the model is "Chunk ID: …\nWall time: … seconds\n
//     Process exited with code N\nOriginal token count: …\nOutput:\n…": the
//     exit line moved below the chunk id, and the header's other lines
//     change from run to run.
//   - function_call items of an MCP tool carry the server as a namespace
//     ({"namespace": "mcp__recite", "name": "recitation"}); Codex's hooks
//     name the same tool "mcp__recite__recitation".
//   - exec_command's command is its "cmd" argument.
//   - event_msg item_completed events repeat each item of a turn (the
//     user's message, the agent's, a CommandExecution with its exit_code
//     and status, an McpToolCall with its status); token_count and
//     token_usage_record carry token usage; task_started, task_complete
//     and thread_settings_applied mark turns and settings; world_state
//     holds the session's settings.

// codexToolName is a call's tool name: the MCP namespace joined to the
// name as Codex's hooks and Claude Code name MCP tools
// ("mcp__recite__recitation"), the name alone without one.
func codexToolName(namespace, name string) string {
	if namespace == "" || strings.HasPrefix(name, namespace+"__") {
		return name
	}
	return namespace + "__" + name
}

// codexItem is the item of an item_completed event.
type codexItem struct {
	Type     string          `json:"type"`
	ID       string          `json:"id"`
	Status   string          `json:"status"`
	ExitCode *int            `json:"exit_code"`
	Command  json.RawMessage `json:"command"`
	Cwd      string          `json:"cwd"`
	Output   string          `json:"aggregated_output"`
	Server   string          `json:"server"`
	Tool     string          `json:"tool"`
	Args     json.RawMessage `json:"arguments"`
	Result   json.RawMessage `json:"result"`
}

// codexItemOf reads an item_completed event's item.
func codexItemOf(p codexPayload) (codexItem, bool) {
	var it codexItem
	if len(p.Item) == 0 || json.Unmarshal(p.Item, &it) != nil {
		return it, false
	}
	return it, true
}

// exitCode is a CommandExecution item's exit code.
func (it codexItem) exitCode() (int, bool) {
	if it.Type != "CommandExecution" || it.ExitCode == nil {
		return 0, false
	}
	return *it.ExitCode, true
}

// itemCompleted converts an item_completed event: a command or MCP call
// no response item records (a user's "!" command) becomes its call and
// result; the items the response items and user_message events already
// carry are skipped, saying so.
func (f *codexFile) itemCompleted(p codexPayload) ([]Record, string) {
	it, ok := codexItemOf(p)
	if !ok {
		return nil, "event_msg:item_completed (no item)"
	}
	switch it.Type {
	case "UserMessage", "AgentMessage", "Reasoning":
		return nil, "event_msg:item_completed:" + it.Type + " (the message items carry it)"
	case "CommandExecution", "McpToolCall":
		if f.outputs[it.ID] || f.calls[it.ID] {
			return nil, "event_msg:item_completed:" + it.Type + " (its call and output are response items)"
		}
	default:
		return nil, "event_msg:item_completed:" + it.Type
	}
	if _, seen := f.names[it.ID]; seen {
		return nil, "event_msg:item_completed:" + it.Type + " (its exec events carry it)"
	}
	if it.Type == "CommandExecution" {
		f.names[it.ID] = "exec_command"
		code := it.ExitCode
		res := Record{Kind: KindMessage, Role: RoleTool, ToolCallID: it.ID, ToolName: "exec_command",
			Content: codexShellText(strings.Trim(it.Output, "\n"), code), IsError: code != nil && *code != 0 || it.Status == "failed"}
		return []Record{execCall(codexPayload{CallID: it.ID, Command: it.Command, Cwd: it.Cwd}, f.model), res}, ""
	}
	name := codexToolName("mcp__"+it.Server, it.Tool)
	f.names[it.ID] = name
	args := strings.TrimSpace(string(it.Args))
	if args == "" {
		args = "{}"
	}
	call := Record{Kind: KindMessage, Role: RoleAssistant, Agent: codexAgent, Model: f.model, ToolCalls: []ToolCall{{ID: it.ID, Name: name, Arguments: args}}}
	text, failed := ToolOutput(it.Result)
	res := Record{Kind: KindMessage, Role: RoleTool, ToolCallID: it.ID, ToolName: name, Content: text, IsError: failed || it.Status == "failed"}
	return []Record{call, res}, ""
}

// codexHeader is the header of a shell result for the model: the lines
// before its "Output:" line (the whole text when it has none and starts
// with "Exit code:"; "" otherwise), where the exit line is.
func codexHeader(s string) string {
	if head, _, ok := strings.Cut(s, "\nOutput:\n"); ok {
		return head
	}
	if strings.HasPrefix(s, "Exit code: ") {
		line, _, _ := strings.Cut(s, "\n")
		return line
	}
	return ""
}

// codexShellText is the text a 0.169 shell result ("Chunk ID: …") is
// recorded as: its output after the "Output:" line, led by "Exit code N"
// when the command failed, as the Codex hook records the same call
// (engine/claudecode) and as Claude Code's failed Bash results read. The
// header's other lines (chunk id, wall time, token count) change from run
// to run and say nothing of the work. Other texts are returned as they
// are.
func codexShellText(s string, code *int) string {
	if !strings.HasPrefix(s, "Chunk ID: ") {
		return s
	}
	_, out, ok := strings.Cut(s, "\nOutput:\n")
	if !ok {
		return s
	}
	out = strings.TrimRight(out, "\n")
	if code != nil && *code != 0 {
		return strings.TrimRight(fmt.Sprintf("Exit code %d\n%s", *code, out), "\n")
	}
	return out
}

// codexKnownFields are, by "kind:type", the payload fields the importer
// reads or knows to leave out (ids, statuses, Codex's own bookkeeping);
// any other field of an imported entry is reported (Report.Unknown).
var codexKnownFields = map[string][]string{
	"session_meta:":                         {"id", "session_id", "timestamp", "cwd", "originator", "cli_version", "source", "model_provider", "git", "instructions", "base_instructions", "account_scoped", "context_window", "history_mode", "runtime_workspace_roots", "thread_source", "forked_from_id", "model", "type"},
	"compacted:":                            {"message", "replacement_history"},
	"response_item:message":                 {"type", "id", "role", "content", "status", "end_turn", "phase", "internal_chat_message_metadata_passthrough"},
	"response_item:reasoning":               {"type", "id", "summary", "content", "encrypted_content", "status", "internal_chat_message_metadata_passthrough"},
	"response_item:function_call":           {"type", "id", "name", "namespace", "arguments", "call_id", "status", "internal_chat_message_metadata_passthrough"},
	"response_item:function_call_output":    {"type", "id", "call_id", "output", "status", "internal_chat_message_metadata_passthrough"},
	"response_item:custom_tool_call":        {"type", "id", "name", "input", "call_id", "status", "internal_chat_message_metadata_passthrough"},
	"response_item:custom_tool_call_output": {"type", "id", "call_id", "output", "status", "internal_chat_message_metadata_passthrough"},
	"response_item:local_shell_call":        {"type", "id", "call_id", "status", "action", "internal_chat_message_metadata_passthrough"},
	"response_item:web_search_call":         {"type", "id", "status", "action", "internal_chat_message_metadata_passthrough"},
	"event_msg:user_message":                {"type", "message", "images", "local_images", "text_elements", "kind"},
	"event_msg:agent_message":               {"type", "message", "phase"},
	"event_msg:error":                       {"type", "message", "codex_error_info"},
	"event_msg:context_compacted":           {"type"},
	"event_msg:exec_command_begin":          {"type", "call_id", "command", "cwd", "parsed_cmd", "source", "process_id", "turn_id", "interaction_input"},
	"event_msg:exec_command_end":            {"type", "call_id", "command", "cwd", "parsed_cmd", "source", "process_id", "turn_id", "stdout", "stderr", "aggregated_output", "exit_code", "duration", "formatted_output", "status", "interaction_input"},
	"event_msg:item_completed":              {"type", "item", "thread_id", "turn_id", "started_at_ms", "completed_at_ms"},
}

// codexItemFields are the fields of an item_completed item the importer
// knows, by item type.
var codexItemFields = map[string][]string{
	"CommandExecution": {"type", "id", "process_id", "command", "cwd", "parsed_cmd", "source", "status", "aggregated_output", "exit_code", "duration"},
	"McpToolCall":      {"type", "id", "server", "tool", "arguments", "readOnlyHint", "status", "result", "duration", "error"},
}

// codexUnknownFields counts, for an entry that was imported, the fields of
// its payload (and of an item_completed's item) that codexKnownFields does
// not list.
func codexUnknownFields(rep *Report, e codexEntry) {
	key := e.kind + ":" + e.p.Type
	known, ok := codexKnownFields[key]
	if !ok {
		return
	}
	count := func(prefix string, raw json.RawMessage, known []string) {
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return
		}
		for k := range m {
			if !slices.Contains(known, k) {
				if rep.Unknown == nil {
					rep.Unknown = map[string]int{}
				}
				rep.Unknown[prefix+"."+k]++
			}
		}
	}
	count(key, e.raw, known)
	if e.p.Type == "item_completed" {
		if it, ok := codexItemOf(e.p); ok {
			if known, ok := codexItemFields[it.Type]; ok {
				count(key+":"+it.Type, e.p.Item, known)
			}
		}
	}
}

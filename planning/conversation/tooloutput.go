package conversation

import (
	"bytes"
	"encoding/json"
	"html"
	"strings"
)

// ToolOutput turns what Claude Code recorded as a tool's result (a
// transcript entry's toolUseResult, or the tool_response of a PostToolUse
// hook event) into the text the tool produced and whether the call
// failed. The shapes, as Claude Code writes them:
//
//   - a string: the text; Claude Code records a failed call as the
//     string "Error: …" ("User rejected tool use" and "Sibling tool call
//     errored" too), which is failed; TaskOutput's text form
//     (<retrieval_status>…<status>failed</status>…<exit_code>1</exit_code>
//     <output>…</output>) is its output, failed by status or exit code;
//   - an array of content blocks ([{"type":"text","text":…}], MCP tools):
//     their texts joined by newlines, other blocks as "[type]";
//   - TaskOutput's {"retrieval_status", "task": {"status", "output",
//     "error", "exitCode", …}}: task.output (then task.error), failed
//     when task.status is "failed" or task.exitCode is not 0;
//   - Bash and BashOutput's {"stdout", "stderr", …}: stdout then stderr,
//     failed when BashOutput's "status" is "failed" or its "exitCode"
//     is not 0;
//   - a Task (subagent) result's {"content": [blocks]}: the blocks' text;
//   - Read's {"file": {"content"}}: the file's content;
//   - WebFetch's {"result", "code"}: the result, failed when code ≥ 400;
//   - Grep and Glob's {"content"} or {"filenames"}: the content, else the
//     file names one a line;
//   - {"success": false} (TaskUpdate and other task tools) is failed;
//     {"error": "…"} is that text, failed;
//   - Write and Edit's {"filePath", …}: the path.
//
// Anything else is its JSON text, not failed; null or an absent value is
// "", not failed.
func ToolOutput(raw json.RawMessage) (text string, failed bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return "", false
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return string(raw), false
		}
		if t, f, ok := taskOutputText(s); ok {
			return t, f
		}
		return s, strings.HasPrefix(s, "Error: ") || s == "User rejected tool use" || s == "Sibling tool call errored"
	case '[':
		if t, ok := blocksText(raw); ok {
			return t, false
		}
		return string(raw), false
	case '{':
		var m map[string]json.RawMessage
		if json.Unmarshal(raw, &m) != nil {
			return string(raw), false
		}
		if t, f, ok := objectOutput(m); ok {
			return t, f
		}
	}
	return string(raw), false
}

// objectOutput reads the object shapes of ToolOutput; ok is false for an
// unknown shape.
func objectOutput(m map[string]json.RawMessage) (text string, failed, ok bool) {
	str := func(v json.RawMessage) string {
		var s string
		_ = json.Unmarshal(v, &s)
		return s
	}
	num := func(v json.RawMessage) (int, bool) {
		var n float64
		if json.Unmarshal(v, &n) != nil {
			return 0, false
		}
		return int(n), true
	}
	if task, has := m["task"]; has {
		var t map[string]json.RawMessage
		if json.Unmarshal(task, &t) == nil && (t["output"] != nil || t["status"] != nil) {
			text := joinNonEmpty(str(t["output"]), str(t["error"]))
			code, hasCode := num(t["exitCode"])
			return text, str(t["status"]) == "failed" || hasCode && code != 0, true
		}
	}
	if p := str(m["filePath"]); p != "" && (m["structuredPatch"] != nil || m["oldString"] != nil || m["originalFile"] != nil) {
		// Write and Edit: "content" is the file written, not output.
		return p, false, true
	}
	if m["stdout"] != nil || m["stderr"] != nil {
		code, hasCode := num(m["exitCode"])
		return joinNonEmpty(str(m["stdout"]), str(m["stderr"])), str(m["status"]) == "failed" || hasCode && code != 0, true
	}
	if c, has := m["content"]; has {
		if t, ok := blocksText(c); ok {
			return t, false, true
		}
		if s := str(c); s != "" {
			return s, false, true
		}
	}
	if f, has := m["file"]; has {
		var file struct {
			Content string `json:"content"`
		}
		if json.Unmarshal(f, &file) == nil {
			return file.Content, false, true
		}
	}
	if r, has := m["result"]; has {
		code, _ := num(m["code"])
		return str(r), code >= 400, true
	}
	if fn, has := m["filenames"]; has {
		var names []string
		_ = json.Unmarshal(fn, &names)
		if len(names) == 0 {
			return "No files found", false, true
		}
		return strings.Join(names, "\n"), false, true
	}
	if e := str(m["error"]); e != "" {
		return e, true, true
	}
	if s, has := m["success"]; has && string(s) == "false" {
		return "", true, true
	}
	return "", false, false
}

// taskOutputText reads TaskOutput's text form; ok is false for other
// text.
func taskOutputText(s string) (text string, failed, ok bool) {
	if !strings.Contains(s, "<retrieval_status>") {
		return "", false, false
	}
	get := func(tag string) string {
		_, v, ok := strings.Cut(s, "<"+tag+">")
		if !ok {
			return ""
		}
		v, _, _ = strings.Cut(v, "</"+tag+">")
		return strings.Trim(v, "\n")
	}
	code := strings.TrimSpace(get("exit_code"))
	text = get("output")
	if text == "" {
		text = s
	}
	return text, get("status") == "failed" || code != "" && code != "0", true
}

// blocksText joins the text of content blocks; ok is false when raw is
// not an array of objects with a "type".
func blocksText(raw json.RawMessage) (string, bool) {
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &blocks) != nil {
		return "", false
	}
	parts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		switch {
		case b.Type == "text":
			parts = append(parts, b.Text)
		case b.Type != "":
			parts = append(parts, "["+b.Type+"]")
		default:
			return "", false
		}
	}
	return strings.Join(parts, "\n"), true
}

func joinNonEmpty(parts ...string) string {
	var out []string
	for _, p := range parts {
		if strings.TrimSpace(p) != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, "\n")
}

// TaskNotification is a background task's notification, the text Claude
// Code puts in the conversation when a background command or agent ends:
//
//	<task-notification>
//	<task-id>b8d2377</task-id>
//	<tool-use-id>toolu_01…</tool-use-id>
//	<output-file>/tmp/claude-501/…/tasks/b8d2377.output</output-file>
//	<status>failed</status>
//	<summary>Background command "Push to remote" failed with exit code 1</summary>
//	</task-notification>
//
// (tool-use-id and a <result> element appear in later versions).
type TaskNotification struct {
	TaskID, ToolUseID, OutputFile, Status, Summary, Result string
}

// Failed reports a notification of a task that failed.
func (n TaskNotification) Failed() bool { return n.Status == "failed" }

// Subject is what the task was: the first double-quoted part of the
// summary (`Background command "Push to remote" failed…` → "Push to
// remote"), else "".
func (n TaskNotification) Subject() string {
	_, rest, ok := strings.Cut(n.Summary, `"`)
	if !ok {
		return ""
	}
	s, _, ok := strings.Cut(rest, `"`)
	if !ok {
		return ""
	}
	return s
}

// ParseTaskNotification reads the first <task-notification> element of
// text; ok is false when text holds none. Element values are trimmed and
// XML entities (&amp;) decoded; unknown elements are ignored.
func ParseTaskNotification(text string) (n TaskNotification, ok bool) {
	_, body, found := strings.Cut(text, "<task-notification>")
	if !found {
		return n, false
	}
	body, _, _ = strings.Cut(body, "</task-notification>")
	get := func(tag string) string {
		_, v, ok := strings.Cut(body, "<"+tag+">")
		if !ok {
			return ""
		}
		v, _, _ = strings.Cut(v, "</"+tag+">")
		return strings.TrimSpace(html.UnescapeString(v))
	}
	n = TaskNotification{TaskID: get("task-id"), ToolUseID: get("tool-use-id"), OutputFile: get("output-file"),
		Status: get("status"), Summary: get("summary"), Result: get("result")}
	return n, true
}

// CallCommand names what a tool call ran, as a person would quote it:
// a shell call's command verbatim (Claude Code's Bash, the exec_command
// of an imported Codex session, the shell tool of an MCP record), else
// the tool's name and its main
// argument (file_path, notebook_path, pattern and path, url, query,
// bash_id, shell_id, task_id, command, path, skill, description,
// subject, title or name, the first present), on one line and cut to 200
// characters; the name alone when the arguments hold none or are not a
// JSON object. arguments is the call's input JSON (ToolCall.Arguments).
func CallCommand(name, arguments string) string {
	var in map[string]json.RawMessage
	if json.Unmarshal([]byte(arguments), &in) != nil {
		return name
	}
	str := func(k string) string {
		var s string
		_ = json.Unmarshal(in[k], &s)
		return s
	}
	if name == "Bash" || name == "exec_command" || name == "shell" || name == "run_shell_command" {
		// Codex CLI 0.169's exec_command names it "cmd"; Gemini CLI's
		// run_shell_command and Claude Code's Bash "command".
		for _, k := range []string{"command", "cmd"} {
			if c := str(k); strings.TrimSpace(c) != "" {
				return c
			}
		}
	}
	for _, k := range []string{"file_path", "notebook_path", "pattern", "url", "query", "bash_id", "shell_id", "task_id",
		"command", "path", "skill", "description", "subject", "title", "name"} {
		v := str(k)
		if strings.TrimSpace(v) == "" {
			continue
		}
		if k == "pattern" {
			if p := str("path"); p != "" {
				v += " in " + p
			}
		}
		v = strings.Join(strings.Fields(v), " ")
		if r := []rune(v); len(r) > 200 {
			v = string(r[:200]) + "…"
		}
		return name + " " + v
	}
	return name
}

// CallCommands maps the id of every tool call in recs to what it ran
// (CallCommand), so a tool result (Record.ToolCallID) can be named by
// its call.
func CallCommands(recs []Record) map[string]string {
	out := map[string]string{}
	for _, r := range recs {
		for _, tc := range r.ToolCalls {
			if tc.ID != "" {
				out[tc.ID] = CallCommand(tc.Name, tc.Arguments)
			}
		}
	}
	return out
}

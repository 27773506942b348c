package mcp_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine/mcp"
	"github.com/recite-dev/recite/planning/conversation"
)

// TestToolsList checks every tool is listed with a closed object input
// schema and an output schema.
func TestToolsList(t *testing.T) {
	s := connect(t, mcp.Options{Dir: example(t, "gsd"), NoWatch: true}, nil, nil)
	res, err := s.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		in, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Type                 string          `json:"type"`
			AdditionalProperties json.RawMessage `json:"additionalProperties"`
		}
		if err := json.Unmarshal(in, &schema); err != nil || schema.Type != "object" || string(schema.AdditionalProperties) != "false" {
			t.Errorf("%s: input schema %s: want a closed object", tool.Name, in)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s: no output schema", tool.Name)
		}
		if tool.Description == "" {
			t.Errorf("%s: no description", tool.Name)
		}
	}
	slices.Sort(names)
	want := slices.Clone(mcp.ToolNames)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Errorf("tools %v, want %v", names, want)
	}
}

// stateFile is the state file of each bundled example: GSD's STATE.md,
// fire-flow's CONSCIENCE.md.
var stateFile = map[string]string{"gsd": ".planning/STATE.md", "fire": ".planning/CONSCIENCE.md"}

// TestToolsGolden calls every tool on the bundled examples and compares
// the structured results with testdata/golden (go test -update rewrites
// them). The calls that write (record, preserve) come after the ones that
// read, so each file shows one state.
func TestToolsGolden(t *testing.T) {
	calls := []struct {
		name, tool string
		args       map[string]any
	}{
		{"recitation", "recitation", map[string]any{}},
		{"stop_signals", "stop_signals", map[string]any{}},
		{"stop_signals.errors", "stop_signals", map[string]any{"kinds": []string{"error"}, "limit": 1}},
		{"files", "files", map[string]any{"limit": 20}},
		{"files.why", "files", map[string]any{"why": "STATE"}}, // the example's state file (stateFile)
		{"prompt.markdown", "prompt", map[string]any{"provider": "markdown"}},
		{"prompt.anthropic", "prompt", map[string]any{"provider": "anthropic"}},
		{"verify_summary", "verify_summary", map[string]any{"summary": "We are on the HTTP API phase; nothing failed."}},
		{"record.error", "record", map[string]any{"conversation": "mcp-test", "kind": "error", "create": true,
			"text": "error: build failed: undefined: Handler", "command": "go build ./..."}},
		{"record.blocker", "record", map[string]any{"conversation": "mcp-test", "kind": "blocker", "text": "waiting for the API key"}},
		{"record.message", "record", map[string]any{"conversation": "mcp-test", "kind": "message", "role": "user", "text": "carry on"}},
		{"stop_signals.after_record", "stop_signals", map[string]any{}},
		{"preserve", "preserve", map[string]any{"trigger": "manual"}},
		{"verify_summary.from_block", "verify_summary", map[string]any{"summary": "nothing to report", "from_block": true}},
	}
	for _, ex := range []string{"gsd", "fire"} {
		t.Run(ex, func(t *testing.T) {
			dir := example(t, ex)
			s := connect(t, mcp.Options{Dir: dir, NoWatch: true}, nil, nil)
			for _, c := range calls {
				if c.args["why"] == "STATE" {
					// A path that is not in the project is an error.
					c.args = map[string]any{"why": stateFile[ex]}
				}
				res := s.call(c.tool, c.args)
				if res.IsError {
					t.Fatalf("%s: isError: %s", c.name, text(res))
				}
				b, err := json.MarshalIndent(res.StructuredContent, "", "  ")
				if err != nil {
					t.Fatal(err)
				}
				golden(t, ex+"."+c.name+".json", append(normalize(dir, b), '\n'))
			}
		})
	}
}

// TestRecordWritesConversation checks what record appends: an error is a
// tool call and its failed result carrying the command, a blocker a
// BLOCKED line, and the ids are validated as everywhere.
func TestRecordWritesConversation(t *testing.T) {
	dir := example(t, "gsd")
	s := connect(t, mcp.Options{Dir: dir, NoWatch: true}, nil, nil)
	var out mcp.RecordOutput
	s.ok("record", map[string]any{"conversation": "c1", "kind": "error", "create": true, "text": "FAIL: TestX", "command": "go test && echo ok"}, &out)
	if !out.Created || len(out.Records) != 2 || out.Log != ".planning/conversations/c1.jsonl" {
		t.Fatalf("record: %+v", out)
	}
	store, err := conversation.Open(filepath.Join(dir, ".planning", "conversations"))
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := store.Read("c1")
	if err != nil || len(c.Messages) != 2 {
		t.Fatalf("read c1: %v, %d messages", err, len(c.Messages))
	}
	call, result := c.Messages[0], c.Messages[1]
	if call.Role != "assistant" || call.Agent != "recite-test" || len(call.ToolCalls) != 1 ||
		call.ToolCalls[0].Name != "shell" || call.ToolCalls[0].Arguments != `{"command":"go test && echo ok"}` {
		t.Errorf("tool call record: %+v", call)
	}
	if result.Role != "tool" || !result.IsError || result.ToolCallID != call.ToolCalls[0].ID || result.ToolName != "shell" || result.Content != "FAIL: TestX" {
		t.Errorf("tool result record: %+v", result)
	}
	// Secrets become placeholders before they reach the log.
	s.ok("record", map[string]any{"conversation": "c1", "kind": "error", "text": "error: auth failed for AKIAIOSFODNN7EXAMPLE9", "command": "curl -H 'Authorization: Bearer ghp_0123456789abcdefghijABCDEFGHIJ012345' x"}, &out)
	if b, _ := os.ReadFile(filepath.Join(dir, ".planning", "conversations", "c1.jsonl")); strings.Contains(string(b), "ghp_0123456789") || !strings.Contains(string(b), "⟨secret:") {
		t.Errorf("secret written to the log:\n%s", b)
	}
	s.ok("record", map[string]any{"conversation": "c1", "kind": "blocker", "text": "STUCK on the schema"}, &out)
	s.ok("record", map[string]any{"conversation": "c1", "kind": "blocker", "text": "no key"}, &out)
	log, _ := os.ReadFile(filepath.Join(dir, ".planning", "conversations", "c1.jsonl"))
	if !strings.Contains(string(log), `"content":"STUCK on the schema"`) || !strings.Contains(string(log), `"content":"BLOCKED: no key"`) {
		t.Errorf("blockers not recorded as BLOCKED lines:\n%s", log)
	}
	// A conversation that does not exist is not created unless asked.
	res := s.call("record", map[string]any{"conversation": "nope", "kind": "message", "text": "hi"})
	if !res.IsError || !strings.Contains(text(res), `conversation "nope" does not exist (existing: c1)`) {
		t.Errorf("missing conversation: %s", text(res))
	}
	if _, err := os.Stat(filepath.Join(dir, ".planning", "conversations", "nope.jsonl")); err == nil {
		t.Error("nope.jsonl was created")
	}
}

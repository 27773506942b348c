package layers

import (
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/planning/conversation"
)

// TestThoughtSignatureReplayed: a tool call recorded with its Gemini
// thoughtSignature is replayed with it, so the gemini body of a Gemini 3
// model carries the call as a functionCall part (not as text), and the
// signature comes through the log's JSON.
func TestThoughtSignatureReplayed(t *testing.T) {
	line := `{"id":"01A","conversation":"c","kind":"message","ts":"2026-01-01T00:00:00Z","role":"assistant",` +
		`"tool_calls":[{"id":"call-1","name":"run_tests","arguments":"{\"pkg\":\"./...\"}","thought_signature":"CiQB0e2Kb4sig"}]}`
	parsed, diags := conversation.ParseLog("c.jsonl", []byte(line+"\n"))
	if len(parsed) != 1 || len(diags) != 0 {
		t.Fatalf("ParseLog: %d records, %v", len(parsed), diags)
	}
	recs := []conversation.Record{
		{Kind: conversation.KindMessage, Role: conversation.RoleUser, Content: "run the tests"},
		parsed[0],
		{Kind: conversation.KindMessage, Role: conversation.RoleTool, ToolCallID: "call-1", ToolName: "run_tests", Content: "ok"},
	}
	msgs := ToPromptMessages(recs)
	if got := msgs[1].ToolCalls[0].Signature; got != "CiQB0e2Kb4sig" {
		t.Fatalf("signature %q, want the recorded one", got)
	}
	p := &prompt.Prompt{Messages: msgs}
	body, err := prompt.Render(p, "gemini", prompt.RenderOptions{Model: "gemini-3.8-flash"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(body), `"thoughtSignature": "CiQB0e2Kb4sig"`) || !strings.Contains(string(body), `"functionCall"`) {
		t.Errorf("gemini body does not replay the call with its signature:\n%s", body)
	}
}

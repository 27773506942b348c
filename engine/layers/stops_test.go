package layers

import (
	"slices"
	"testing"

	"github.com/recite-dev/recite/planning/conversation"
)

// TestStopsAgentWords: the conversation stops a prompt carries hold the
// agent's own lower-case words for a block or a failed approach, next to
// the capital marks and a rejected tool use; prose that only looks like
// one, and the user's lower-case words, are none.
func TestStopsAgentWords(t *testing.T) {
	msg := func(id, role, text string) conversation.Record {
		return conversation.Record{ID: id, Kind: conversation.KindMessage, Role: role, Content: text}
	}
	c := &conversation.Conversation{ID: "main", Messages: []conversation.Record{
		msg("m1", conversation.RoleUser, "this doesn't work for me, I'm blocked"),
		msg("m2", conversation.RoleAssistant, "I tried the mock. This doesn't work either: the mock hides the bug."),
		msg("m3", conversation.RoleAssistant, "I'm blocked on the Stripe test key."),
		msg("m4", conversation.RoleAssistant, "The request is blocked by CORS. If this doesn't work, we fall back to polling."),
		msg("m5", conversation.RoleAssistant, "STOP: do not touch the migrations"),
		{ID: "m6", Kind: conversation.KindMessage, Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{{ID: "t1", Name: "Bash", Arguments: `{"command":"git push"}`}}},
		{ID: "m7", Kind: conversation.KindMessage, Role: conversation.RoleTool, ToolCallID: "t1", ToolName: "Bash", IsError: true,
			Content: "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nwhat does lint say now?"},
		msg("m8", conversation.RoleAssistant, "Lint passes locally with no issues."),
	}}
	stops, srcs, results := Stops(c, ".planning/conversations/main.jsonl", Cutter{})
	want := []string{
		"This doesn't work either: the mock hides the bug.",
		"I'm blocked on the Stripe test key.",
		"STOP: do not touch the migrations",
		"The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). To tell you how to proceed, the user said:\nwhat does lint say now?",
	}
	if !slices.Equal(stops, want) {
		t.Errorf("stops\n%q\nwant\n%q", stops, want)
	}
	if len(srcs) != len(stops) || srcs[0] != ".planning/conversations/main.jsonl#m2" || !results["m7"] {
		t.Errorf("sources %q, stop results %v", srcs, results)
	}
}

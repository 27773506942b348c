package engine_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine"
	"github.com/recite-dev/recite/planning/conversation"
)

// fixtureC1 and fixtureC2 are two conversation logs with fixed ids and
// times: c1 with metadata, a tool call, a failed tool result, an internal
// note, a sidechain message, a compaction summary, an iteration and an
// event; c2 a fork of c1 after two messages.
const fixtureC1 = `{"id":"01JA0000000000000000000001","conversation":"c1","kind":"meta","ts":"2025-01-02T03:04:05Z","meta":{"agent_type":"dev","title":"Fix redirect","epic":"auth","phase":"2","deliverables":["app/redirect.go"],"tags":["api","http"]}}
{"id":"01JA0000000000000000000002","conversation":"c1","kind":"message","ts":"2025-01-02T03:04:06Z","role":"user","content":"Run the tests"}
{"id":"01JA0000000000000000000003","conversation":"c1","kind":"message","ts":"2025-01-02T03:04:07Z","role":"assistant","agent":"dev","content":"Running them.","tool_calls":[{"id":"call_1","name":"bash","arguments":"{\"cmd\":\"go test <./...>\"}"}]}
{"id":"01JA0000000000000000000004","conversation":"c1","kind":"message","ts":"2025-01-02T03:04:08Z","role":"tool","content":"FAIL: TestRedirect","tool_call_id":"call_1","tool_name":"bash","is_error":true,"files_modified":["app/redirect_test.go"]}
{"id":"01JA0000000000000000000005","conversation":"c1","kind":"message","ts":"2025-01-02T03:04:09Z","role":"assistant","content":"note to self","internal":true}
{"id":"01JA0000000000000000000006","conversation":"c1","kind":"message","ts":"2025-01-02T03:04:10Z","role":"assistant","agent":"sub","content":"side work","sidechain":true}
{"id":"01JA0000000000000000000007","conversation":"c1","kind":"message","ts":"2025-01-02T03:04:11Z","role":"user","content":"Summary so far & <next>","compact_summary":true}
{"id":"01JA0000000000000000000008","conversation":"c1","kind":"iteration","ts":"2025-01-02T03:04:12Z","iteration":1,"files_modified":["app/redirect.go"]}
{"id":"01JA0000000000000000000009","conversation":"c1","kind":"meta","ts":"2025-01-02T03:04:13Z","event":"compact_boundary","content":"compacted"}
`

const fixtureC2 = `{"id":"01JA0000000000000000000010","conversation":"c2","kind":"meta","ts":"2025-01-03T00:00:00Z","meta":{"agent_type":"dev","phase":"2","parent":"c1","fork_at":2}}
{"id":"01JA0000000000000000000011","conversation":"c2","kind":"message","ts":"2025-01-03T00:00:01Z","role":"user","content":"Try another approach"}
`

// The views of the fixture as ` + "`recite conversation show`" + ` printed them
// before the views moved from cmd/recite into the engine (recite built
// from the commit before the move, run on the fixture).
const (
	wantC1Markdown = `# Conversation c1

- Title: Fix redirect
- Agent: dev
- Epic: auth
- Phase: 2
- Tags: api, http
- Deliverables: app/redirect.go, app/redirect_test.go
- Messages: 6 (2 internal hidden; --all shows them)

### 1. user · 2025-01-02T03:04:06Z

Run the tests

### 2. assistant (dev) · 2025-01-02T03:04:07Z

Running them.
[tool call bash call_1] {"cmd":"go test <./...>"}

### 3. tool bash ← call_1 [error] · 2025-01-02T03:04:08Z

FAIL: TestRedirect

### 6. user [compact summary] · 2025-01-02T03:04:11Z

Summary so far & <next>
`
	wantC1MarkdownAll = `# Conversation c1

- Title: Fix redirect
- Agent: dev
- Epic: auth
- Phase: 2
- Tags: api, http
- Deliverables: app/redirect.go, app/redirect_test.go
- Messages: 6

### 1. user · 2025-01-02T03:04:06Z

Run the tests

### 2. assistant (dev) · 2025-01-02T03:04:07Z

Running them.
[tool call bash call_1] {"cmd":"go test <./...>"}

### 3. tool bash ← call_1 [error] · 2025-01-02T03:04:08Z

FAIL: TestRedirect

### 4. assistant [internal] · 2025-01-02T03:04:09Z

note to self

### 5. assistant (sub) [sidechain] · 2025-01-02T03:04:10Z

side work

### 6. user [compact summary] · 2025-01-02T03:04:11Z

Summary so far & <next>
`
	wantC2Markdown = `# Conversation c2

- Agent: dev
- Phase: 2
- Forked from: c1 after 2 messages
- Messages: 3

### 1. user · 2025-01-02T03:04:06Z

Run the tests

### 2. assistant (dev) · 2025-01-02T03:04:07Z

Running them.
[tool call bash call_1] {"cmd":"go test <./...>"}

### 3. user · 2025-01-03T00:00:01Z

Try another approach
`
	wantC2JSON = `{
  "id": "c2",
  "meta": {
    "agent_type": "dev",
    "phase": "2",
    "parent": "c1",
    "fork_at": 2
  },
  "messages": [
    {
      "id": "01JA0000000000000000000002",
      "conversation": "c1",
      "kind": "message",
      "ts": "2025-01-02T03:04:06Z",
      "role": "user",
      "content": "Run the tests"
    },
    {
      "id": "01JA0000000000000000000003",
      "conversation": "c1",
      "kind": "message",
      "ts": "2025-01-02T03:04:07Z",
      "role": "assistant",
      "agent": "dev",
      "content": "Running them.",
      "tool_calls": [
        {
          "id": "call_1",
          "name": "bash",
          "arguments": "{\"cmd\":\"go test <./...>\"}"
        }
      ]
    },
    {
      "id": "01JA0000000000000000000011",
      "conversation": "c2",
      "kind": "message",
      "ts": "2025-01-03T00:00:01Z",
      "role": "user",
      "content": "Try another approach"
    }
  ],
  "iterations": [],
  "events": [],
  "deliverables": []
}
`
)

// newProject returns a project directory with an empty .planning folder
// and, when logs are given, those conversation logs (name → content).
func newProject(t *testing.T, logs map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	convs := filepath.Join(dir, ".planning", "conversations")
	if err := os.MkdirAll(convs, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, text := range logs {
		if err := os.WriteFile(filepath.Join(convs, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func openConversations(t *testing.T, dir string) *engine.Conversations {
	t.Helper()
	cs, err := engine.New(dir).Conversations()
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// wantInputError fails unless err is an *engine.InputError whose message
// contains want.
func wantInputError(t *testing.T, err error, want string) {
	t.Helper()
	var ie *engine.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("error %v (%T), want an *engine.InputError", err, err)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q, want it to contain %q", err, want)
	}
}

func TestConversationsNeedsPlanningFolder(t *testing.T) {
	dir := t.TempDir()
	_, err := engine.New(dir).Conversations()
	wantInputError(t, err, "no .planning folder in "+dir+" (run `recite init` to create one)")
	if _, err := os.Stat(filepath.Join(dir, ".planning")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".planning was created: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".planning"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = engine.New(dir).Conversations()
	wantInputError(t, err, "no .planning folder in ")
}

func TestSayOptionsValidate(t *testing.T) {
	tests := []struct {
		name string
		opts engine.SayOptions
		want string // "" for valid
	}{
		{"user", engine.SayOptions{Role: engine.RoleUser}, ""},
		{"assistant", engine.SayOptions{Role: engine.RoleAssistant}, ""},
		{"system", engine.SayOptions{Role: engine.RoleSystem}, ""},
		{"tool with call", engine.SayOptions{Role: engine.RoleTool, ToolCallID: "c1", ToolName: "bash"}, ""},
		{"unknown role", engine.SayOptions{Role: "wizard"}, `--role "wizard": want user, assistant, tool or system`},
		{"empty role", engine.SayOptions{}, `--role "": want`},
		{"tool name on user", engine.SayOptions{Role: engine.RoleUser, ToolName: "bash"}, "--tool-call-id and --tool-name need --role tool"},
		{"call id on assistant", engine.SayOptions{Role: engine.RoleAssistant, ToolCallID: "c1"}, "--tool-call-id and --tool-name need --role tool"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.opts.Validate()
			if tt.want == "" {
				if err != nil {
					t.Fatalf("Validate() = %v, want nil", err)
				}
				return
			}
			wantInputError(t, err, tt.want)
		})
	}
}

// TestSayNumbersMessages checks that Say numbers a message by its position
// among the conversation's messages, internal ones and a fork's inherited
// ones included (the N of show and fork --at), and records its fields.
func TestSayNumbersMessages(t *testing.T) {
	ctx := context.Background()
	cs := openConversations(t, newProject(t, nil))
	if err := cs.Create(ctx, "c1", engine.ConversationMeta{AgentType: "dev"}); err != nil {
		t.Fatal(err)
	}
	says := []engine.SayOptions{
		{ID: "c1", Role: engine.RoleUser, Text: "Run the tests"},
		{ID: "c1", Role: engine.RoleAssistant, Text: "note", Internal: true, Agent: "dev"},
		{ID: "c1", Role: engine.RoleTool, Text: "FAIL", ToolCallID: "call_1", ToolName: "bash", IsError: true, Iteration: 2},
	}
	for i, s := range says {
		res, err := cs.Say(ctx, s)
		if err != nil {
			t.Fatal(err)
		}
		if res.Number != i+1 {
			t.Errorf("message %d numbered %d", i+1, res.Number)
		}
		r := res.Record
		if r.ID == "" || r.Time.IsZero() || r.Kind != conversation.KindMessage || r.Conversation != "c1" {
			t.Errorf("record not stamped: %+v", r)
		}
		if r.Role != s.Role || r.Content != s.Text || r.Internal != s.Internal || r.Agent != s.Agent ||
			r.ToolCallID != s.ToolCallID || r.ToolName != s.ToolName || r.IsError != s.IsError || r.Iteration != s.Iteration {
			t.Errorf("record %+v does not carry %+v", r, s)
		}
	}
	if err := cs.Fork(ctx, "c1", 2, "c2"); err != nil {
		t.Fatal(err)
	}
	res, err := cs.Say(ctx, engine.SayOptions{ID: "c2", Role: engine.RoleUser, Text: "again"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Number != 3 {
		t.Errorf("first own message of a fork at 2 numbered %d, want 3", res.Number)
	}
}

// TestConversationErrorsAreInputErrors checks that what the user can fix
// comes back as *engine.InputError with the store's message, and that a
// refused Say appends nothing.
func TestConversationErrorsAreInputErrors(t *testing.T) {
	ctx := context.Background()
	dir := newProject(t, map[string]string{"c1.jsonl": fixtureC1})
	cs := openConversations(t, dir)
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"create existing", func() error { return cs.Create(ctx, "c1", engine.ConversationMeta{}) }, "conversation exists"},
		{"create invalid id", func() error { return cs.Create(ctx, "../x", engine.ConversationMeta{}) }, `invalid conversation id "../x"`},
		{"say invalid id", func() error {
			_, err := cs.Say(ctx, engine.SayOptions{ID: "a/b", Role: engine.RoleUser, Text: "x"})
			return err
		}, `invalid conversation id "a/b"`},
		{"say unknown", func() error {
			_, err := cs.Say(ctx, engine.SayOptions{ID: "nope", Role: engine.RoleUser, Text: "x"})
			return err
		}, `conversation not found`},
		{"say bad role", func() error {
			_, err := cs.Say(ctx, engine.SayOptions{ID: "c1", Role: "wizard", Text: "x"})
			return err
		}, `--role "wizard"`},
		{"read unknown", func() error { _, _, err := cs.Read("nope"); return err }, `conversation not found: "nope"`},
		{"fork out of range", func() error { return cs.Fork(ctx, "c1", 99, "k") }, "out of range 0..6"},
		{"fork invalid new id", func() error { return cs.Fork(ctx, "c1", 1, "../x") }, `invalid conversation id "../x"`},
		{"fork unknown", func() error { return cs.Fork(ctx, "nope", 0, "k") }, "conversation not found"},
		{"fork onto existing", func() error { return cs.Fork(ctx, "c1", 0, "c1") }, "conversation exists"},
		{"archive unknown", func() error { return cs.Archive(ctx, "nope") }, "conversation not found"},
		{"run invalid id", func() error {
			_, err := cs.Run(ctx, engine.RunOptions{ID: "../x", Text: "hi"})
			return err
		}, `invalid conversation id "../x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			wantInputError(t, tt.call(), tt.want)
		})
	}
	b, err := os.ReadFile(filepath.Join(dir, ".planning", "conversations", "c1.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != fixtureC1 {
		t.Errorf("c1's log changed:\n%s", b)
	}
}

// TestConversationsList checks the summaries (never nil) and that a
// conversation left out is reported with its path relative to the project.
func TestConversationsList(t *testing.T) {
	list, diags, err := openConversations(t, newProject(t, nil)).List()
	if err != nil || list == nil || len(list) != 0 || len(diags) != 0 {
		t.Fatalf("List() of no conversations = %#v, %v, %v; want an empty non-nil list", list, diags, err)
	}
	// k1 is a fork of a parent that is not there.
	orphan := `{"id":"01JA0000000000000000000020","conversation":"k1","kind":"meta","ts":"2025-01-03T00:00:00Z","meta":{"parent":"gone","fork_at":0}}` + "\n"
	cs := openConversations(t, newProject(t, map[string]string{"c1.jsonl": fixtureC1, "c2.jsonl": fixtureC2, "k1.jsonl": orphan}))
	list, diags, err = cs.List()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range list {
		ids = append(ids, c.ID)
	}
	if strings.Join(ids, " ") != "c1 c2" || list[0].Messages != 6 || list[1].Messages != 3 || list[1].Parent != "c1" {
		t.Errorf("List() = %+v", list)
	}
	if len(diags) != 1 || diags[0].Path != ".planning/conversations/k1.jsonl" || !strings.Contains(diags[0].Message, `read fork "k1"`) {
		t.Errorf("diagnostics = %+v, want one for .planning/conversations/k1.jsonl", diags)
	}
}

// TestArchiveOlderThan archives by last activity against the given clock.
func TestArchiveOlderThan(t *testing.T) {
	ctx := context.Background()
	cs := openConversations(t, newProject(t, map[string]string{"c1.jsonl": fixtureC1, "c2.jsonl": fixtureC2}))
	// c1's last activity is 2025-01-02T03:04:12Z, c2's 2025-01-03T00:00:01Z.
	now := time.Date(2025, 1, 4, 0, 0, 0, 0, time.UTC)
	done, err := cs.ArchiveOlderThan(ctx, 36*time.Hour, now)
	if err != nil || strings.Join(done, " ") != "c1" {
		t.Fatalf("ArchiveOlderThan(36h) = %v, %v; want [c1]", done, err)
	}
	if _, _, err := cs.Read("c1"); err != nil {
		t.Errorf("an archived conversation is still read: %v", err)
	}
	if err := cs.Archive(ctx, "c2"); err != nil {
		t.Fatal(err)
	}
	if list, _, _ := cs.List(); len(list) != 0 {
		t.Errorf("List() after archiving both = %+v", list)
	}
}

// TestConversationViews compares the markdown and JSON views with what
// ` + "`recite conversation show`" + ` printed before they moved into the engine.
func TestConversationViews(t *testing.T) {
	cs := openConversations(t, newProject(t, map[string]string{"c1.jsonl": fixtureC1, "c2.jsonl": fixtureC2}))
	c1, diags, err := cs.Read("c1")
	if err != nil || len(diags) != 0 {
		t.Fatal(err, diags)
	}
	c2, _, err := cs.Read("c2")
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name string
		got  string
		want string
	}{
		{"c1", engine.ConversationMarkdown(c1, false), wantC1Markdown},
		{"c1 all", engine.ConversationMarkdown(c1, true), wantC1MarkdownAll},
		{"c2 fork", engine.ConversationMarkdown(c2, false), wantC2Markdown},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: markdown\n%s\nwant\n%s", tt.name, tt.got, tt.want)
		}
	}
	for _, format := range []string{"md", "markdown"} {
		got, err := engine.ShowConversation(c1, format, false)
		if err != nil || string(got) != wantC1Markdown {
			t.Errorf("ShowConversation(%q) = %q, %v", format, got, err)
		}
	}
	text, err := engine.ShowConversation(c1, "text", false)
	if err != nil || !strings.HasPrefix(string(text), "Human:\nRun the tests\n") || strings.Contains(string(text), "note to self") {
		t.Errorf("ShowConversation(text) = %q, %v", text, err)
	}
	_, err = engine.ShowConversation(c1, "yaml", false)
	wantInputError(t, err, "yaml")

	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(engine.NewConversationJSON(c2, false)); err != nil {
		t.Fatal(err)
	}
	if b.String() != wantC2JSON {
		t.Errorf("JSON view of c2\n%s\nwant\n%s", b.String(), wantC2JSON)
	}
	v := engine.NewConversationJSON(c1, false)
	if len(v.Messages) != 4 || len(engine.NewConversationJSON(c1, true).Messages) != 6 {
		t.Errorf("JSON view keeps %d replayable messages (want 4) and %d in all (want 6)", len(v.Messages), len(engine.NewConversationJSON(c1, true).Messages))
	}
}

// TestShowStreams: without --tail, Show streams md and json from the log's
// index, and its bytes are those of the in-memory views of Read (forks
// included, with and without --all); with --tail N it prints the last N
// messages numbered by their position in the whole conversation, and says
// how many there are.
func TestShowStreams(t *testing.T) {
	dir := newProject(t, map[string]string{"c1.jsonl": fixtureC1, "c2.jsonl": fixtureC2})
	cs := openConversations(t, dir)
	ctx := context.Background()
	show := func(opts engine.ShowOptions) string {
		t.Helper()
		var b bytes.Buffer
		if err := cs.Show(ctx, opts, &b, func(d engine.Diagnostic) { t.Errorf("diagnostic %s", d) }); err != nil {
			t.Fatalf("Show(%+v): %v", opts, err)
		}
		return b.String()
	}
	for _, id := range []string{"c1", "c2"} {
		c, _, err := cs.Read(id)
		if err != nil {
			t.Fatal(err)
		}
		for _, all := range []bool{false, true} {
			if got, want := show(engine.ShowOptions{ID: id, Format: "md", All: all}), engine.ConversationMarkdown(c, all); got != want {
				t.Errorf("%s all=%v: streamed md\n%s\nwant\n%s", id, all, got, want)
			}
			var b bytes.Buffer
			enc := json.NewEncoder(&b)
			enc.SetIndent("", "  ")
			enc.SetEscapeHTML(false)
			if err := enc.Encode(engine.NewConversationJSON(c, all)); err != nil {
				t.Fatal(err)
			}
			if got := show(engine.ShowOptions{ID: id, Format: "json", All: all}); got != b.String() {
				t.Errorf("%s all=%v: streamed json\n%s\nwant\n%s", id, all, got, b.String())
			}
		}
	}
	got := show(engine.ShowOptions{ID: "c1", Format: "md", Tail: 2})
	for _, want := range []string{"- Messages: 6; the last 2 shown (1 internal hidden; --all shows them)\n", "### 6. user [compact summary]"} {
		if !strings.Contains(got, want) {
			t.Errorf("--tail 2 lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "### 3.") {
		t.Errorf("--tail 2 shows message 3:\n%s", got)
	}
	var v engine.ConversationJSON
	if err := json.Unmarshal([]byte(show(engine.ShowOptions{ID: "c1", Format: "json", Tail: 3, All: true})), &v); err != nil || len(v.Messages) != 3 {
		t.Errorf("json --tail 3 --all: %d messages, %v", len(v.Messages), err)
	}
	if body := show(engine.ShowOptions{ID: "c1", Format: "anthropic", Tail: 1}); !strings.Contains(body, "Summary so far") || strings.Contains(body, "Run the tests") {
		t.Errorf("anthropic --tail 1:\n%s", body)
	}
	err := cs.Show(ctx, engine.ShowOptions{ID: "c1", Format: "yaml"}, io.Discard, func(engine.Diagnostic) {})
	wantInputError(t, err, "yaml")
}

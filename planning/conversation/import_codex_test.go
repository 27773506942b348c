package conversation

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const codexFixture = "testdata/codex/rollout-2026-03-01T10-00-00-0199a1b2-0c3d-7e4f-8a9b-0c1d2e3f4a5b.jsonl"

func importCodexFile(t *testing.T, path string) ([]Record, Report) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	recs, rep, err := ImportCodex(f)
	if err != nil {
		t.Fatal(err)
	}
	return recs, rep
}

// TestImportCodex checks each kind of rollout line of the fixture (written
// from codex-rs's types): the records made, the duplicates and other items
// skipped with their reason, and the failed commands flagged.
func TestImportCodex(t *testing.T) {
	recs, rep := importCodexFile(t, codexFixture)
	if rep.Entries != 22 || rep.Entries != rep.Imported+rep.SkippedTotal() || rep.Records != len(recs) || len(rep.Diagnostics) != 0 {
		t.Fatalf("report %+v, %d records", rep, len(recs))
	}
	wantSkipped := map[string]int{
		"response_item:message:user (the user_message events carry the prompts)": 2,
		"turn_context (the turn's settings; its model is kept on the replies)":   1,
		"event_msg:exec_command_end (its output is a response item)":             1,
		"event_msg:agent_message (the message items carry the replies)":          1,
		"event_msg:token_count (token usage, not a message)":                     1,
		"response_item:ghost_snapshot":                                           1,
		"event_msg:context_compacted (the compacted item marks it)":              1,
	}
	for k, v := range wantSkipped {
		if rep.Skipped[k] != v {
			t.Errorf("skipped %q: %d, want %d (all: %v)", k, rep.Skipped[k], v, rep.Skipped)
		}
	}
	byCall := map[string]Record{}
	var users, blocked, events []Record
	for _, r := range recs {
		if !strings.HasPrefix(r.ID, "codex-0199a1b2-0c3d-7e4f-8a9b-0c1d2e3f4a5b-000000") || r.Time.IsZero() || !strings.HasPrefix(r.Source, "codex:") {
			t.Errorf("record id/time/source: %+v", r)
		}
		switch {
		case r.Kind == KindMeta:
			events = append(events, r)
		case r.Role == RoleTool:
			byCall[r.ToolCallID] = r
		case r.Role == RoleUser && !r.CompactSummary:
			users = append(users, r)
		case r.Role == RoleAssistant && strings.Contains(r.Content, "BLOCKED"):
			blocked = append(blocked, r)
		}
	}
	if len(users) != 1 || users[0].Content != "Fix the redirect handler.\nSTOP: do not touch the storage layer." {
		t.Errorf("user messages: %+v", users)
	}
	if len(blocked) != 1 || blocked[0].Agent != "codex" || blocked[0].Model != "gpt-5-codex" || blocked[0].Provider != "openai" {
		t.Errorf("assistant reply: %+v", blocked)
	}
	for id, want := range map[string]struct {
		name    string
		isError bool
		prefix  string
	}{
		"call_A1": {"shell", true, "--- FAIL: TestCreateAndRedirect"},
		"call_B2": {"shell_command", true, "Exit code: 1\nWall time"},
		"call_C3": {"shell_command", false, "cat: config.json"},
		"call_U4": {"exec_command", true, "make: staticcheck: No such file or directory"},
	} {
		r, ok := byCall[id]
		if !ok || r.ToolName != want.name || r.IsError != want.isError || !strings.HasPrefix(r.Content, want.prefix) {
			t.Errorf("result of %s: %+v, want %+v", id, r, want)
		}
	}
	var kinds []string
	for _, e := range events {
		kinds = append(kinds, e.Event)
	}
	if strings.Join(kinds, " ") != "session_start api_error compact_boundary" {
		t.Errorf("events %v", kinds)
	}
	// The user's "!make lint" has no response item: its call is rebuilt
	// from the begin event.
	found := false
	for _, r := range recs {
		for _, c := range r.ToolCalls {
			if c.ID == "call_U4" && c.Name == "exec_command" && c.Arguments == `{"command":"bash -lc make lint","cwd":"/home/dev/shortlink"}` {
				found = true
			}
		}
	}
	if !found {
		t.Error("no tool call for the user's shell command")
	}
}

// TestImportCodexTwice: the ids derive from the session and line, so a
// second import appends nothing.
func TestImportCodexTwice(t *testing.T) {
	recs, _ := importCodexFile(t, codexFixture)
	s, err := Open(filepath.Join(t.TempDir(), "conversations"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Create(ctx, "cx", Meta{AgentType: "codex"}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.AppendNew(ctx, "cx", recs...); err != nil || n != len(recs) {
		t.Fatalf("first import: %d, %v", n, err)
	}
	if n, err := s.AppendNew(ctx, "cx", recs...); err != nil || n != 0 {
		t.Fatalf("second import appended %d, %v", n, err)
	}
	c, _, err := s.Read("cx")
	if err != nil {
		t.Fatal(err)
	}
	// Read order is file order: (timestamp, id) keeps it.
	if c.Messages[0].Role != RoleUser || !strings.Contains(c.Messages[len(c.Messages)-1].Content, "Summary:") {
		t.Errorf("order: first %+v, last %+v", c.Messages[0], c.Messages[len(c.Messages)-1])
	}
}

// TestImportCodexMalformed: broken lines are diagnostics with their line,
// the rest is imported.
func TestImportCodexMalformed(t *testing.T) {
	in := strings.Join([]string{
		`{"timestamp":"2026-03-01T10:00:00Z","type":"event_msg","payload":{"type":"user_message","message":"hi"}}`,
		`{"timestamp":"2026-03-01T10:00:0`,
		`{"timestamp":"yesterday","type":"event_msg","payload":{"type":"user_message","message":"x"}}`,
		`{"timestamp":"2026-03-01T10:00:01Z","type":"response_item","payload":{"type":"message","role":"assistant","content":7}}`,
		`{"timestamp":"2026-03-01T10:00:02Z","type":"response_item","payload":"not an object"}`,
		`{"foo":1}`,
		`{"timestamp":"2026-03-01T10:00:03Z","type":"future_item","payload":{}}`,
		``,
	}, "\n")
	recs, rep, err := ImportCodex(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, d := range rep.Diagnostics {
		lines = append(lines, d.Line)
		if d.Path != "codex" {
			t.Errorf("diagnostic path %q", d.Path)
		}
	}
	if len(recs) != 2 || rep.Entries != 7 || rep.Imported != 2 || rep.Skipped["future_item"] != 1 || len(lines) != 4 ||
		lines[0] != 2 || lines[1] != 3 || lines[2] != 5 || lines[3] != 6 {
		t.Errorf("records %d, report %+v, diagnostic lines %v", len(recs), rep, lines)
	}
	if recs[1].Content != "7" {
		t.Errorf("a content that is neither text nor items is kept raw: %q", recs[1].Content)
	}
}

// TestImportCodexWrongFormat: input with no rollout line is a FormatError,
// with a hint when it is another agent's format.
func TestImportCodexWrongFormat(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "it is empty"},
		{"{\"a\":1}\n{\"b\":2}\n", "none of its 2 non-blank lines is a rollout line"},
		{`{"type":"user","uuid":"u1","timestamp":"2026-02-01T10:00:00Z","message":{"role":"user","content":"hi"}}`, "use `recite import claude-code`"},
		{"# aider chat started at 2026-01-01 10:00:00\n#### hi\n", "use `recite import aider`"},
	} {
		recs, _, err := ImportCodex(strings.NewReader(c.in))
		var fe *FormatError
		if !errors.As(err, &fe) || recs != nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "Codex CLI session file") {
			t.Errorf("%q: %v (%d records), want a FormatError containing %q", c.in, err, len(recs), c.want)
		}
	}
}

func FuzzImportCodex(f *testing.F) {
	b, err := os.ReadFile(codexFixture)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(b))
	f.Add(`{"timestamp":"2026-03-01T10:00:00Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":{"content":"x","success":false}}}`)
	f.Add(`{"timestamp":"2026-03-01T10:00:00Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c","output":[{"type":"input_text","text":"x"},{"type":"input_image","image_url":"data:"}]}}`)
	f.Add(`{"timestamp":"2026-03-01T10:00:00Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"z","command":"ls","exit_code":-1}}`)
	f.Fuzz(func(t *testing.T, in string) {
		recs, rep, err := ImportCodex(strings.NewReader(in))
		var fe *FormatError
		if errors.As(err, &fe) {
			if recs != nil {
				t.Fatalf("%v with %d records", err, len(recs))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if rep.Entries != rep.Imported+rep.SkippedTotal() || rep.Records != len(recs) {
			t.Fatalf("report does not add up: %+v, %d records", rep, len(recs))
		}
		seen := map[string]bool{}
		for _, r := range recs {
			if r.ID == "" || seen[r.ID] || r.Kind == "" {
				t.Fatalf("record id %q repeated or empty, kind %q", r.ID, r.Kind)
			}
			seen[r.ID] = true
			if _, err := encodeRecord(r); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// TestImportCodex0169: rollouts codex-cli 0.169.0 wrote against a scripted
// model server (testdata/codex/0.169; the project path and the model's
// instructions cut). A command that exits 3 is an error whose text leads
// with its exit code, as the Codex hook records it; the command is
// exec_command's cmd argument; an MCP call keeps its server's namespace in
// its name; every skipped entry says why; no field is left unknown.
func TestImportCodex0169(t *testing.T) {
	dir := filepath.Join("testdata", "codex", "0.169")
	fail, _ := importCodexFile(t, filepath.Join(dir, "rollout-2026-12-03T12-57-25-01a23bfb-270e-79a1-b54d-37dc341fd616.jsonl"))
	mcp, rep := importCodexFile(t, filepath.Join(dir, "rollout-2026-12-03T13-36-14-01a23c1e-b160-7a10-aab1-0da264718848.jsonl"))
	if len(rep.Unknown) > 0 {
		t.Errorf("unknown fields %v", rep.Unknown)
	}
	for reason := range rep.Skipped {
		if !strings.Contains(reason, " (") {
			t.Errorf("skipped without saying why: %q", reason)
		}
	}
	cmds := CallCommands(fail)
	var errs []Record
	for _, r := range fail {
		if r.Role == RoleTool && r.IsError {
			errs = append(errs, r)
		}
	}
	if len(errs) != 1 || errs[0].Content != "Exit code 3\nKEYLINE widget exploded" || cmds[errs[0].ToolCallID] != "sh -c 'echo KEYLINE widget exploded >&2; exit 3'" {
		t.Errorf("failed command: %+v, command %q", errs, cmds)
	}
	var names []string
	for _, r := range mcp {
		for _, tc := range r.ToolCalls {
			names = append(names, tc.Name)
		}
	}
	if strings.Join(names, ",") != "mcp__recite__recitation" {
		t.Errorf("MCP call names %v, want the namespace kept", names)
	}
}

// TestImportCodexUnknownField: a field the importer does not know is
// counted in the report, not dropped without a word.
func TestImportCodexUnknownField(t *testing.T) {
	in := `{"timestamp":"2026-12-03T12:57:25.193Z","type":"session_meta","payload":{"id":"s1","cwd":"/p","cli_version":"0.200.0"}}
{"timestamp":"2026-12-03T12:57:26.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{}","call_id":"c1","sandbox_hint":"new"}}
`
	_, rep, err := ImportCodex(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Unknown["response_item:function_call.sandbox_hint"] != 1 || len(rep.Unknown) != 1 {
		t.Errorf("unknown %v, want the new field counted", rep.Unknown)
	}
}

package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine"
	"github.com/recite-dev/recite/internal/sharedtest"
)

// ccTranscript is a small Claude Code transcript: a progress entry (skipped),
// a user message, a tool call, its failed result and a reply.
const ccTranscript = `{"type":"progress","uuid":"p1","timestamp":"2026-02-12T03:40:17.389Z"}
{"type":"user","uuid":"u1","timestamp":"2026-02-12T03:40:18Z","message":{"role":"user","content":"Run the tests"}}
{"type":"assistant","uuid":"a1","timestamp":"2026-02-12T03:40:19Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"npm test"}}]}}
{"type":"user","uuid":"u2","timestamp":"2026-02-12T03:40:20Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"error: expect(received).toBe(expected)","is_error":true}]}}
{"type":"assistant","uuid":"a2","timestamp":"2026-02-12T03:40:21Z","message":{"role":"assistant","content":[{"type":"text","text":"The test fails; fixing it."}]}}
{bad line
`

const aiderHistory = `# aider chat started at 2026-01-05 10:00:00

#### add a health check

> Applied edit to main.go
`

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestImport imports a transcript twice: the first import creates the
// conversation and appends every record, the second finds them all
// present; diagnostics name the transcript.
func TestImport(t *testing.T) {
	ctx := context.Background()
	dir := newProject(t, nil)
	path := writeFile(t, filepath.Join(t.TempDir(), "session one.jsonl"), ccTranscript)
	e := engine.New(dir)
	res, err := e.Import(ctx, engine.ImportOptions{Format: engine.ImportClaudeCode, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Report
	if res.Conversation != "session-one" || !res.Created || res.Appended == 0 || res.Present != 0 || res.Appended != r.Records {
		t.Errorf("first import = %+v", res)
	}
	if r.Entries != 6 || r.Skipped["progress"] != 1 || r.Entries != r.Imported+r.SkippedTotal() {
		t.Errorf("report = %+v: want 6 entries, one progress skipped, every entry accounted for", r)
	}
	if len(r.Diagnostics) != 1 || r.Diagnostics[0].Path != path || r.Diagnostics[0].Line != 6 {
		t.Errorf("diagnostics = %+v, want one at %s:6", r.Diagnostics, path)
	}
	c, _, err := openConversations(t, dir).Read("session-one")
	if err != nil {
		t.Fatal(err)
	}
	if c.Meta.AgentType != engine.ImportClaudeCode || c.Meta.Title != "session one.jsonl" || len(c.Messages) == 0 {
		t.Errorf("imported conversation: meta %+v, %d messages", c.Meta, len(c.Messages))
	}
	again, err := e.Import(ctx, engine.ImportOptions{Format: engine.ImportClaudeCode, Path: path})
	if err != nil {
		t.Fatal(err)
	}
	if again.Created || again.Appended != 0 || again.Present != res.Appended {
		t.Errorf("second import = %+v, want nothing created or appended, %d present", again, res.Appended)
	}
}

// TestImportErrors checks the errors that leave the project untouched.
func TestImportErrors(t *testing.T) {
	ctx := context.Background()
	tmp := t.TempDir()
	aider := writeFile(t, filepath.Join(tmp, "moz.md"), aiderHistory)
	cc := writeFile(t, filepath.Join(tmp, "cc.jsonl"), ccTranscript)
	tests := []struct {
		name     string
		noPlan   bool
		opts     engine.ImportOptions
		want     string
		input    bool   // want an *engine.InputError
		notExist string // a conversation that must not exist afterwards
	}{
		{"invalid id", false, engine.ImportOptions{Format: engine.ImportAider, Path: aider, ID: "../x"}, `invalid conversation id "../x"`, true, ""},
		{"missing file", false, engine.ImportOptions{Format: engine.ImportAider, Path: filepath.Join(tmp, "nowhere.md")}, "import aider: open ", true, "nowhere"},
		{"wrong importer", false, engine.ImportOptions{Format: engine.ImportClaudeCode, Path: aider, ID: "w2"}, aider + " does not look like a Claude Code transcript", true, "w2"},
		{"wrong importer aider", false, engine.ImportOptions{Format: engine.ImportAider, Path: cc, ID: "w3"}, cc + " does not look like an aider chat history", true, "w3"},
		{"unknown format", false, engine.ImportOptions{Format: "cursor", Path: cc}, `import "cursor": want claude-code, aider or codex`, true, "cc"},
		{"no planning folder", true, engine.ImportOptions{Format: engine.ImportAider, Path: aider}, "no .planning folder in ", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if !tt.noPlan {
				dir = newProject(t, nil)
			}
			_, err := engine.New(dir).Import(ctx, tt.opts)
			wantInputError(t, err, tt.want)
			if tt.notExist != "" {
				if _, err := os.Stat(filepath.Join(dir, engine.ConversationLog(tt.notExist))); !os.IsNotExist(err) {
					t.Errorf("%s was created", engine.ConversationLog(tt.notExist))
				}
			}
		})
	}
}

func TestImportID(t *testing.T) {
	long := strings.Repeat("a", 140)
	tests := []struct {
		path, format, want string
	}{
		{"cc.jsonl", engine.ImportClaudeCode, "cc"},
		{"dir/session one.jsonl", engine.ImportClaudeCode, "session-one"},
		{"BjornNordblom__pocketflow-text2sql-gui__.aider.chat.history.md", engine.ImportAider, "BjornNordblom__pocketflow-text2sql-gui__"},
		{".aider.chat.history.md", engine.ImportAider, "aider"},
		{"__x.md", engine.ImportAider, "x"},
		{"été.jsonl", engine.ImportClaudeCode, "t-"},
		{"__.jsonl", engine.ImportClaudeCode, "claude-code"},
		{long + ".jsonl", engine.ImportClaudeCode, long[:128]},
	}
	for _, tt := range tests {
		if got := engine.ImportID(tt.path, tt.format); got != tt.want {
			t.Errorf("ImportID(%q, %q) = %q, want %q", tt.path, tt.format, got, tt.want)
		}
	}
}

// TestImportSecondCodexFile: a second Codex rollout of the same session
// (its records get the same ids: session and line number) imported into
// the same conversation loses nothing: the records whose ids are taken
// are placed under new ids and counted, and importing either file again
// adds nothing.
func TestImportSecondCodexFile(t *testing.T) {
	ctx := context.Background()
	dir := newProject(t, nil)
	src := filepath.Join(sharedtest.ModuleRoot(), "planning", "conversation", "testdata", "codex", "0.169", "rollout-2026-12-03T12-57-25-01a23bfb-270e-79a1-b54d-37dc341fd616.jsonl")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	first := writeFile(t, filepath.Join(t.TempDir(), "a.jsonl"), string(b))
	// The same session a day later: same session id, other times and text.
	later := strings.ReplaceAll(strings.ReplaceAll(string(b), "2026-12-03T", "2026-12-04T"), "KEYLINE widget exploded", "KEYLINE gadget melted")
	second := writeFile(t, filepath.Join(t.TempDir(), "b.jsonl"), later)
	e := engine.New(dir)
	opts := func(p string) engine.ImportOptions {
		return engine.ImportOptions{Format: engine.ImportCodex, Path: p, ID: "codex-session"}
	}
	r1, err := e.Import(ctx, opts(first))
	if err != nil {
		t.Fatal(err)
	}
	r2, err := e.Import(ctx, opts(second))
	if err != nil {
		t.Fatal(err)
	}
	if r2.Appended != r2.Report.Records || r2.Renamed == 0 || r2.Renamed != r2.Report.Records {
		t.Errorf("second file: %d of %d records appended, %d renamed; want all appended under new ids", r2.Appended, r2.Report.Records, r2.Renamed)
	}
	for _, p := range []string{first, second} {
		again, err := e.Import(ctx, opts(p))
		if err != nil {
			t.Fatal(err)
		}
		if again.Appended != 0 {
			t.Errorf("re-importing %s appended %d", filepath.Base(p), again.Appended)
		}
	}
	c, _, err := openConversations(t, dir).Read("codex-session")
	if err != nil {
		t.Fatal(err)
	}
	var both int
	for _, m := range c.Messages {
		if strings.Contains(m.Content, "KEYLINE") && m.IsError {
			both++
		}
	}
	if both != 2 || r1.Appended != r1.Report.Records {
		t.Errorf("%d failed commands in the log, want both files'; first file %d of %d appended", both, r1.Appended, r1.Report.Records)
	}
}

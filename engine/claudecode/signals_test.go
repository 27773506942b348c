package claudecode_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine"
	"github.com/recite-dev/recite/engine/claudecode"
	"github.com/recite-dev/recite/planning/conversation"
)

// Real failures of the cases below.
const (
	tscError  = "Exit code 2\ntests/daytona_sandbox.test.ts(22,27): error TS2322: Type 'boolean' is not assignable to type 'void | Promise<void>'."
	tscKey    = "tests/daytona_sandbox.test.ts(22,27): error TS2322: Type 'boolean' is not assignable to type 'void | Promise<void>'."
	bunError  = "Exit code 1\nerror: Cannot find module '@chkit/core' from '/app/packages/cli/src/bin/config.ts'\n\nBun v1.3.5 (macOS arm64)"
	bunKey    = "error: Cannot find module '@chkit/core' from '/app/packages/cli/src/bin/config.ts'"
	pipedTest = "94 |       const generated = runCli(['generate', '--config', fixture.configPath, '--json'])\n95 |       expect(generated.exitCode).toBe(0)\n                                      ^\nerror: expect(received).toBe(expected)\n\nExpected: 0\nReceived: 1\n\n 17 pass\n 62 fail"
)

// mustJSON is v as JSON.
func mustJSON(t testing.TB, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// sessionEvents sends events of one Claude Code session to the project at
// dir, with no deadline (hook's noDeadline).
func sessionEvents(t *testing.T, dir, id string) func(name string, fields map[string]any) string {
	return func(name string, fields map[string]any) string {
		t.Helper()
		m := map[string]any{"session_id": id, "transcript_path": "", "cwd": dir, "hook_event_name": name}
		for k, v := range fields {
			m[k] = v
		}
		out, errOut := hook(t, dir, "", mustJSON(t, m), claudecode.Options{})
		if errOut != "" {
			t.Fatalf("%s: %s", name, errOut)
		}
		return out
	}
}

func bashFailure(id, cmd, text string) map[string]any {
	return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "tool_use_id": id, "error": text, "is_interrupt": false}
}

func bashSuccess(id, cmd, stdout string) map[string]any {
	return map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": cmd}, "tool_use_id": id,
		"tool_response": map[string]any{"stdout": stdout, "stderr": "", "interrupted": false, "isImage": false}}
}

// TestClaudeHookCommands: every error of a tool call carries its command
// in the preservation block and in what SessionStart re-injects (the Bash
// command, else the tool and its main argument), and output that exited 0
// is read for failure lines (a test run piped into tail).
func TestClaudeHookCommands(t *testing.T) {
	dir := newProject(t)
	send := sessionEvents(t, dir, "abc123")
	send("UserPromptSubmit", map[string]any{"prompt": "run the checks"})
	send("PostToolUseFailure", bashFailure("t1", "bun ./packages/cli/src/bin/chkit.ts --version 2>&1", bunError))
	send("PostToolUse", bashSuccess("t2", "bun test packages/cli/src 2>&1 | tail -30", pipedTest))
	send("PostToolUseFailure", map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": "/app/src/init.ts", "content": "x"}, "tool_use_id": "t3",
		"error": "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>", "is_interrupt": false})
	send("PreCompact", map[string]any{"trigger": "auto"})
	send("PostCompact", map[string]any{"trigger": "auto", "compact_summary": "We ran the checks; some failed."})
	out := send("SessionStart", map[string]any{"source": "compact"})
	blocks, err := readPreserved(dir)
	if err != nil || len(blocks) != 1 {
		t.Fatalf("blocks %d, %v", len(blocks), err)
	}
	preserved, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(engine.PreservedFile)))
	for _, want := range []string{
		"command: bun ./packages/cli/src/bin/chkit.ts --version 2>&1\nkey line: " + bunKey,
		"command: bun test packages/cli/src 2>&1 | tail -30\nkey line: error: expect(received).toBe(expected)",
		"command: Write /app/src/init.ts\nkey line: File has not been read yet. Read it first before writing to it.",
	} {
		for name, text := range map[string]string{"block": string(preserved), "re-injection": out} {
			if !strings.Contains(text, want) {
				t.Errorf("%s lacks %q:\n%s", name, want, text)
			}
		}
	}
}

// TestClaudeHookToolOutput: PostToolUse reads the text of nested tool
// responses (TaskOutput's task.output, BashOutput's stdout) and flags a
// failed background task as an error; a failed task notification in a
// prompt is an error too.
func TestClaudeHookToolOutput(t *testing.T) {
	dir := newProject(t)
	send := sessionEvents(t, dir, "abc123")
	send("PostToolUse", map[string]any{"tool_name": "TaskOutput", "tool_input": map[string]any{"task_id": "b8d2377"}, "tool_use_id": "t1",
		"tool_response": map[string]any{"retrieval_status": "success", "task": map[string]any{"task_id": "b8d2377", "status": "failed", "exitCode": 1,
			"output": "To github.com:acme/app.git\n ! [rejected]        main -> main (fetch first)\nerror: failed to push some refs to 'github.com:acme/app.git'"}}})
	send("PostToolUse", map[string]any{"tool_name": "BashOutput", "tool_input": map[string]any{"bash_id": "b1"}, "tool_use_id": "t2",
		"tool_response": map[string]any{"stdout": "ok  \tacme\t0.01s", "stderr": "", "status": "completed", "exitCode": 0}})
	send("UserPromptSubmit", map[string]any{"prompt": "<task-notification>\n<task-id>b8d2377</task-id>\n<status>failed</status>\n<summary>Background command \"Push to remote\" failed with exit code 1</summary>\n</task-notification>"})
	c := session(t, dir)
	if len(c.Messages) != 5 {
		t.Fatalf("messages %+v", c.Messages)
	}
	task, bash, note := c.Messages[1], c.Messages[3], c.Messages[4]
	if !task.IsError || !strings.Contains(task.Content, "error: failed to push some refs") || strings.Contains(task.Content, "retrieval_status") {
		t.Errorf("TaskOutput result %+v", task)
	}
	if bash.IsError || bash.Content != "ok  \tacme\t0.01s" {
		t.Errorf("BashOutput result %+v", bash)
	}
	if !note.IsError || note.Role != "user" {
		t.Errorf("notification %+v", note)
	}
	send("PreCompact", map[string]any{"trigger": "auto"})
	preserved, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(engine.PreservedFile)))
	for _, want := range []string{"command: TaskOutput b8d2377\n```\nerror: failed to push some refs to 'github.com:acme/app.git'\n```", "command: Push to remote\n```\nBackground command \"Push to remote\" failed with exit code 1\n```"} {
		if !strings.Contains(string(preserved), want) {
			t.Errorf("block lacks %q:\n%s", want, preserved)
		}
	}
}

// TestClaudeHookResolved: an error resolved later in the session (the
// same command passes) stays in the preservation block, marked resolved;
// the re-injection after a compaction that lost it brings it back as one
// line, and the next session's start, which shows what is still open,
// leaves it out.
func TestClaudeHookResolved(t *testing.T) {
	dir := newProject(t)
	send := sessionEvents(t, dir, "abc123")
	send("UserPromptSubmit", map[string]any{"prompt": "typecheck"})
	send("PostToolUseFailure", bashFailure("t1", "npx tsc", tscError))
	send("PostToolUseFailure", bashFailure("t2", "bun ./packages/cli/src/bin/chkit.ts --version 2>&1", bunError))
	send("PostToolUse", map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": dir + "/tests/daytona_sandbox.test.ts", "old_string": "a", "new_string": "b"}, "tool_use_id": "t3", "tool_response": map[string]any{"filePath": "x"}})
	send("PostToolUse", bashSuccess("t4", "npx tsc", ""))
	send("Stop", map[string]any{"last_assistant_message": "Fixed the type error; tsc passes."})
	send("PreCompact", map[string]any{"trigger": "manual"})
	preserved, _ := os.ReadFile(filepath.Join(dir, filepath.FromSlash(engine.PreservedFile)))
	if !strings.Contains(string(preserved), "key line: "+tscKey+"\nresolved: `npx tsc` passed") {
		t.Errorf("the block does not keep the error marked resolved:\n%s", preserved)
	}
	send("PostCompact", map[string]any{"trigger": "manual", "compact_summary": "We fixed a type error."})
	for _, source := range []string{"compact", "startup"} {
		id := "abc123"
		if source == "startup" {
			id = "next"
		}
		out := sessionEvents(t, dir, id)("SessionStart", map[string]any{"source": source})
		fixed := "- `npx tsc`: " + tscKey + " → fixed: `npx tsc` passed at "
		if !strings.Contains(out, bunKey) || (source == "compact") != strings.Contains(out, fixed) || source == "startup" && strings.Contains(out, "TS2322") {
			t.Errorf("SessionStart %s: the open error missing, or the resolved one not a line after the compaction or shown at the start:\n%s", source, out)
		}
	}
}

// TestClaudeHookOpenSignals: a new session (startup, clear) gets the
// project's open stop signals from its recent conversations — another
// Claude Code session that never compacted, a `conversation run` loop —
// and its planning tree, newest first; an error a later run resolved (in
// any conversation) stays out; only the most recently active
// conversations are read, within the 10,000-character limit.
func TestClaudeHookOpenSignals(t *testing.T) {
	dir := newProject(t)
	ctx := context.Background()
	store, err := engine.New(dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	t0 := time.Now().Add(-time.Hour).UTC()
	jobs := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf"}
	// Old sessions, one error each, a minute apart: only the newest
	// five (health.RecentConversations) conversations are read.
	for i, job := range jobs {
		id := "cc-old-" + job
		at := t0.Add(time.Duration(i) * time.Minute)
		store.Now = func() time.Time { return at }
		if err := store.Create(ctx, id, conversation.Meta{AgentType: "claude-code"}); err != nil {
			t.Fatal(err)
		}
		cmd := "npm run " + job
		if err := store.Append(ctx, id,
			conversation.Record{Kind: conversation.KindMessage, Time: at, Role: "assistant", Agent: "claude-code", ToolCalls: []conversation.ToolCall{{ID: "c", Name: "Bash", Arguments: mustJSON(t, map[string]any{"command": cmd})}}},
			conversation.Record{Kind: conversation.KindMessage, Time: at.Add(time.Second), Role: "tool", Agent: "claude-code", ToolCallID: "c", ToolName: "Bash", IsError: true,
				Content: "Exit code 1\nError: job " + job + " failed: ENOSPC writing /var/cache/" + job}); err != nil {
			t.Fatal(err)
		}
	}
	// A `conversation run` loop whose agent failed.
	loopAt := t0.Add(20 * time.Minute)
	store.Now = func() time.Time { return loopAt }
	if err := store.Create(ctx, "loop", conversation.Meta{}); err != nil {
		t.Fatal(err)
	}
	lines := 3
	if err := store.Append(ctx, "loop", conversation.Record{Kind: conversation.KindIteration, Time: loopAt, Iteration: 1, IsError: true,
		Content: "exit status 1: Error: cannot open database file data/app.db", OutputLines: &lines}); err != nil {
		t.Fatal(err)
	}
	// The last session: an open error, a tsc error it fixed, a job of an
	// old session run again successfully, and the agent's own words.
	send := sessionEvents(t, dir, "last")
	send("UserPromptSubmit", map[string]any{"prompt": "typecheck"})
	send("PostToolUseFailure", bashFailure("t1", "npx tsc", tscError))
	send("PostToolUseFailure", bashFailure("t2", "bun ./packages/cli/src/bin/chkit.ts --version 2>&1", bunError))
	send("PostToolUse", bashSuccess("t3", "npx tsc", ""))
	send("PostToolUse", bashSuccess("t4", "npm run golf", "done"))
	send("Stop", map[string]any{"last_assistant_message": "The type error is fixed. I'm blocked on the Stripe test key for the rest."})

	for _, source := range []string{"startup", "clear"} {
		out := sessionEvents(t, dir, "new-"+source)("SessionStart", map[string]any{"source": source})
		for _, want := range []string{"the stop signals still open", bunKey, "command: bun ./packages/cli/src/bin/chkit.ts --version 2>&1", "I'm blocked on the Stripe test key for the rest.",
			"Error: cannot open database file data/app.db", "Error: job echo failed", "Error: job foxtrot failed"} {
			if !strings.Contains(out, want) {
				t.Errorf("SessionStart %s lacks %q:\n%s", source, want, out)
			}
		}
		// golf resolved by its later run in another session, tsc
		// resolved; alpha to delta are in conversations older than the
		// newest five, which are all that is read.
		for _, not := range []string{"TS2322", "job golf failed", "job alpha failed", "job bravo failed", "job charlie failed", "job delta failed"} {
			if strings.Contains(out, not) {
				t.Errorf("SessionStart %s holds %q:\n%s", source, not, out)
			}
		}
		if n := claudecode.Utf16Len(out); n > claudecode.HookMaxOutput {
			t.Errorf("SessionStart %s printed %d UTF-16 units", source, n)
		}
		// Newest first: the last session's error before the old ones.
		if strings.Index(out, bunKey) > strings.Index(out, "Error: job foxtrot failed") || strings.Index(out, "Error: job foxtrot failed") > strings.Index(out, "Error: job echo failed") {
			t.Errorf("SessionStart %s: not newest first:\n%s", source, out)
		}
	}
}

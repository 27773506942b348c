package claudecode_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine"
	"github.com/recite-dev/recite/engine/claudecode"
	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/planning/conversation"
)

// The payloads in testdata/agents/gemini are the bodies Gemini CLI 0.61.0
// sent a recording hook, run against a scripted model server (the
// project's path as {{DIR}}, the transcript's as {{T}}); the transcript is
// one Gemini CLI wrote while compressing its history at every prompt.

// agentEvent reads a recorded event of agent, with dir and transcript
// put in and the session id set to session.
func agentEvent(t testing.TB, agent, name, dir, transcript, session string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "agents", agent, name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.NewReplacer("{{DIR}}", dir, "{{T}}", transcript).Replace(string(b))
	var m map[string]any
	if err := json.Unmarshal([]byte(s), &m); err != nil {
		t.Fatal(err)
	}
	m["session_id"] = session
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// runAgent runs one event through `recite hook AGENT`.
func runAgent(t testing.TB, agent, event string) (string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	engine.RunClaudeHook(context.Background(), claudecode.Options{Agent: agent, Deadline: noDeadline}, strings.NewReader(event), &out, &errOut)
	return out.String(), errOut.String()
}

// geminiContext decodes what a Gemini CLI hook printed, strictly: one JSON
// object, `{}` or {"hookSpecificOutput": {"hookEventName": event,
// "additionalContext": …}}; it returns the context ("" for `{}`).
func geminiContext(t *testing.T, out, event string) string {
	t.Helper()
	var v struct {
		HookSpecificOutput *struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	dec := json.NewDecoder(strings.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("stdout is not the JSON Gemini CLI reads: %v\n%q", err, out)
	}
	if dec.More() {
		t.Fatalf("stdout holds more than one JSON value: %q", out)
	}
	if v.HookSpecificOutput == nil {
		return ""
	}
	if v.HookSpecificOutput.HookEventName != event {
		t.Errorf("hookEventName %q, want %q", v.HookSpecificOutput.HookEventName, event)
	}
	return v.HookSpecificOutput.AdditionalContext
}

// transcriptLines writes the first n lines of the recorded compressing
// transcript to path.
func transcriptLines(t *testing.T, dir, path string, n int) {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", "agents", "gemini", "transcript-compressed.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b bytes.Buffer
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for i := 0; i < n && sc.Scan(); i++ {
		b.WriteString(strings.ReplaceAll(sc.Text(), "{{DIR}}", dir) + "\n")
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestGeminiHook: a Gemini CLI session through `recite hook gemini`, from
// the events Gemini CLI 0.61 sent: SessionStart and BeforeAgent return
// the context as hookSpecificOutput.additionalContext JSON (never plain
// text, `{}` when there is nothing), AfterTool records the calls (a failed
// shell command and a tool error as errors), AfterAgent the reply and the
// turn's iteration, PreCompress a block only when it says something new,
// and after each compression the next BeforeAgent re-injects what the
// state snapshot lost, once; a resume that records the same snapshot
// again re-injects nothing.
func TestGeminiHook(t *testing.T) {
	dir := enginetest.HookProject(t)
	tr := filepath.Join(t.TempDir(), "session.jsonl")
	transcriptLines(t, dir, tr, 16)
	const sid = "9806ac51-5fbd-4bdc-9ce7-bf9062fd0b9f"
	ev := func(name string) string { return agentEvent(t, "gemini", name, dir, tr, sid) }

	out, errOut := runAgent(t, claudecode.AgentGemini, ev("SessionStart-startup"))
	if ctx := geminiContext(t, out, "SessionStart"); !strings.Contains(ctx, "## Recitation") || !strings.Contains(ctx, "ECONNREFUSED 127.0.0.1:5432") {
		t.Errorf("SessionStart context lacks the recitation or the open signals:\n%s\nstderr %s", ctx, errOut)
	}
	out, _ = runAgent(t, claudecode.AgentGemini, ev("BeforeAgent"))
	if ctx := geminiContext(t, out, "BeforeAgent"); ctx != "" {
		t.Errorf("the first prompt repeats what SessionStart gave:\n%s", ctx)
	}
	runAgent(t, claudecode.AgentGemini, ev("PreCompress"))
	for _, name := range []string{"AfterTool-run_shell_command", "AfterTool-read_file-error", "AfterTool-mcp_recite_recitation-mcp"} {
		if out, _ := runAgent(t, claudecode.AgentGemini, ev(name)); strings.TrimSpace(out) != "{}" {
			t.Errorf("%s printed %q, want {}", name, out)
		}
	}
	runAgent(t, claudecode.AgentGemini, ev("AfterAgent"))

	s, err := engine.New(dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := s.Read("gemini-" + sid)
	if err != nil {
		t.Fatal(err)
	}
	var errs, calls []string
	for _, m := range c.Messages {
		for _, tc := range m.ToolCalls {
			calls = append(calls, tc.Name)
		}
		if m.Role == conversation.RoleTool && m.IsError {
			errs = append(errs, m.ToolName)
		}
		if m.Agent != claudecode.AgentGemini {
			t.Errorf("record %s by %q, want gemini", m.ID, m.Agent)
		}
	}
	if strings.Join(calls, ",") != "run_shell_command,read_file,mcp_recite_recitation" || strings.Join(errs, ",") != "run_shell_command,read_file" {
		t.Errorf("calls %v, errors %v", calls, errs)
	}
	if len(c.Iterations) != 1 || c.Iterations[0].ErrorHash == "" {
		t.Errorf("iterations %+v, want the turn ending on its error", c.Iterations)
	}
	if last := c.Messages[len(c.Messages)-1]; last.Role != "assistant" || last.Content != "Done." {
		t.Errorf("last message %+v, want AfterAgent's reply", last)
	}

	// PreCompress fires before every model call: an unchanged block is
	// not written twice.
	blocks := func() int {
		bs, err := readPreserved(dir)
		if err != nil {
			t.Fatal(err)
		}
		return len(bs)
	}
	runAgent(t, claudecode.AgentGemini, ev("PreCompress"))
	n := blocks()
	runAgent(t, claudecode.AgentGemini, ev("PreCompress"))
	if got := blocks(); got != n || n < 2 {
		t.Errorf("blocks: %d after the error's PreCompress, %d after one more; want at least 2, and no new one", n, got)
	}

	const key = "KEYLINE widget exploded"
	prompt := func() string {
		out, _ := runAgent(t, claudecode.AgentGemini, ev("BeforeAgent"))
		return geminiContext(t, out, "BeforeAgent")
	}
	// The transcript's history has no snapshot yet: nothing lost.
	if ctx := prompt(); strings.Contains(ctx, key) {
		t.Errorf("no compression yet, but the key line came back:\n%s", ctx)
	}
	for _, step := range []struct {
		lines  int
		inject bool
		what   string
	}{
		{20, true, "the first compression"},
		{26, false, "a resume recording the same snapshot"},
		{30, true, "the second compression"},
	} {
		transcriptLines(t, dir, tr, step.lines)
		ctx := prompt()
		if got := strings.Contains(ctx, key) && strings.Contains(ctx, "state snapshot"); got != step.inject {
			t.Errorf("after %s: key line re-injected %v, want %v:\n%s", step.what, got, step.inject, ctx)
		}
		if step.inject {
			if again := prompt(); strings.Contains(again, key) {
				t.Errorf("after %s the next prompt repeats the key line:\n%s", step.what, again)
			}
		}
	}
}

// TestGeminiOutputIsJSON: whatever happens (no session, no project, a
// broken event) `recite hook gemini` prints one JSON object: Gemini CLI
// shows plain text to the user, and stderr when stdout is empty.
func TestGeminiOutputIsJSON(t *testing.T) {
	for _, in := range []string{``, `not json`, `{"hook_event_name":"SessionStart","cwd":"/nonexistent"}`, `{"hook_event_name":"Notification"}`} {
		out, _ := runAgent(t, claudecode.AgentGemini, in)
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("input %q: stdout %q is not a JSON object", in, out)
		}
	}
}

// FuzzGeminiHook: whatever Gemini CLI sends, `recite hook gemini` prints
// exactly one JSON object.
func FuzzGeminiHook(f *testing.F) {
	for _, name := range []string{"SessionStart-startup", "BeforeAgent", "AfterTool-run_shell_command", "AfterTool-read_file-error", "AfterAgent", "PreCompress"} {
		b, err := os.ReadFile(filepath.Join("testdata", "agents", "gemini", name+".json"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b))
	}
	f.Add(`{"hook_event_name":"AfterTool","tool_response":{"llmContent":[{"text":1}],"error":"x"}}`)
	f.Fuzz(func(t *testing.T, in string) {
		dir := t.TempDir()
		if err := os.MkdirAll(filepath.Join(dir, ".planning"), 0o755); err != nil {
			t.Fatal(err)
		}
		ev := strings.NewReplacer("{{DIR}}", dir, "{{T}}", filepath.Join(dir, "none.jsonl")).Replace(in)
		out, _ := runAgent(t, claudecode.AgentGemini, ev)
		dec := json.NewDecoder(strings.NewReader(out))
		var v map[string]any
		if err := dec.Decode(&v); err != nil || dec.More() {
			t.Fatalf("stdout %q is not one JSON object (%v)", out, err)
		}
	})
}

package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/engine/layers"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/planning/conversation"
)

// convProject writes a project with recite.yaml and the given extra files
// into a temp dir and returns it (enginetest.Project).
func convProject(t *testing.T, yaml string, files map[string]string) string {
	t.Helper()
	return enginetest.Project(t, yaml, files)
}

// fixedClock returns a store clock starting at a fixed time.
func fixedClock() func() time.Time {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time { return t0 }
}

// toolConversation creates conversation id holding tool calls, a failed and
// a passing tool result, an internal note and an iteration record.
func toolConversation(t *testing.T, dir, id string) {
	t.Helper()
	s, err := New(dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	s.Now = fixedClock()
	ctx := context.Background()
	if err := s.Create(ctx, id, conversation.Meta{AgentType: "backend-developer", Epic: "Build auth", Tags: []string{"auth"}, Deliverables: []string{"auth.ts"}}); err != nil {
		t.Fatal(err)
	}
	no := false
	conf := 0.65
	recs := []conversation.Record{
		{ID: "m01", Role: "user", Content: "Implement JWT auth"},
		{ID: "m02", Role: "assistant", Agent: "dev", Content: "Running the tests.", ToolCalls: []conversation.ToolCall{{ID: "call_1", Name: "run_tests", Arguments: `{"pkg":"./auth"}`}}},
		{ID: "m03", Role: "tool", ToolCallID: "call_1", ToolName: "run_tests", IsError: true, Iteration: 1, Content: "FAIL: TestVerify\nauth_test.go:12: expected 401, got 200"},
		{ID: "m04", Role: "assistant", Internal: true, Content: "thinking: the middleware is not mounted"},
		{ID: "m05", Role: "assistant", ToolCalls: []conversation.ToolCall{{ID: "call_2", Name: "edit_file", Arguments: `{"path":"auth.ts"`}}},
		{ID: "m06", Role: "tool", ToolCallID: "call_2", ToolName: "edit_file", Content: "ok"},
		{ID: "m07", Role: "assistant", Content: "Mounted the middleware."},
		{ID: "it1", Kind: conversation.KindIteration, Iteration: 1, Confidence: &conf, TestsPassing: &no, FilesModified: []string{"auth.ts"}, Content: "tests failed: expected 401"},
	}
	if err := s.Append(ctx, id, recs...); err != nil {
		t.Fatal(err)
	}
}

func TestConversationRenderedForEveryProvider(t *testing.T) {
	dir := convProject(t, `targets:
  - name: dev
    conversation: c1
    providers: [markdown, anthropic, openai, gemini, ollama, text]
    # Gemini 3 needs the calls' thoughtSignatures, which this log lacks.
    models: {gemini: gemini-2.5-pro}
    # The anthropic tools block: without it, calls are text until the
    # history's first eviction (TestToolsBlockWithoutToolSet).
    tool_set: [run_tests, edit_file]
`, nil)
	toolConversation(t, dir, "c1")
	rep, err := New(dir).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range rep.Diagnostics {
		t.Errorf("diagnostic: %s", d)
	}
	tr := rep.Targets[0]
	var errSec *SectionReport
	for i := range tr.Sections {
		if tr.Sections[i].ID == prompt.IDErrors {
			errSec = &tr.Sections[i]
		}
	}
	if errSec == nil {
		t.Fatalf("no errors section in %+v", tr.Sections)
	}
	if want := []string{".planning/conversations/c1.jsonl#m03"}; !slices.Equal(errSec.Sources, want) {
		t.Errorf("errors sources = %v, want %v", errSec.Sources, want)
	}
	tests := []struct {
		provider string
		want     []string
	}{
		{"markdown", []string{"[tool call run_tests call_1] {\"pkg\":\"./auth\"}", "Tool Results (run_tests) [error]", "## Recent errors (verbatim)", "auth_test.go:12: expected 401, got 200"}},
		{"anthropic", []string{`"tool_use_id": "call_1"`, `"is_error": true`, `"id": "call_2"`, "auth_test.go:12: expected 401, got 200", "Recent errors (verbatim)"}},
		{"openai", []string{`"tool_call_id": "call_1"`, `"id": "call_1"`, `"arguments": "{\"path\":\"auth.ts\""`, "Recent errors (verbatim)"}},
		{"gemini", []string{`"functionCall"`, `"functionResponse"`, `"name": "run_tests"`, "Recent errors (verbatim)"}},
		{"ollama", []string{"run_tests", "edit_file", "Recent errors (verbatim)", "expected 401, got 200"}},
		{"text", []string{"[tool call run_tests call_1]", "Tool Results (run_tests) [error]", "Recent errors (verbatim)"}},
	}
	for _, tc := range tests {
		t.Run(tc.provider, func(t *testing.T) {
			caps, _ := prompt.CapabilitiesOf(tc.provider)
			b, err := os.ReadFile(filepath.Join(dir, PromptsDir, "dev"+caps.Ext))
			if err != nil {
				t.Fatal(err)
			}
			body := string(b)
			for _, w := range tc.want {
				if !strings.Contains(body, w) {
					t.Errorf("%s body lacks %q", tc.provider, w)
				}
			}
			if strings.Contains(body, "the middleware is not mounted") {
				t.Errorf("%s body carries the internal message", tc.provider)
			}
			if caps.Format == "json" && !json.Valid(b) {
				t.Errorf("%s body is not valid JSON", tc.provider)
			}
		})
	}
	md, _ := os.ReadFile(filepath.Join(dir, PromptsDir, "dev.md"))
	for _, w := range []string{"## Epic and phase\n\nEpic: Build auth\nDeliverables:\n- auth.ts", "## Loop and role\n\nRole: implementer; agent: backend-developer\nThis iteration: 2\nIteration 1: confidence 0.65; tests failing; files auth.ts\nWhat failed in iteration 1:\n- tests failed: expected 401\n- FAIL: TestVerify (run_tests)"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("markdown lacks %q", w)
		}
	}
}

func TestRenderConversation(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".planning"), 0o755); err != nil {
		t.Fatal(err)
	}
	toolConversation(t, dir, "c1")
	s, _ := New(dir).OpenConversations()
	c, _, err := s.Read("c1")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range prompt.Providers() {
		for _, all := range []bool{false, true} {
			b, err := RenderConversation(c, p, all, prompt.RenderOptions{})
			if err != nil {
				t.Fatalf("%s: %v", p, err)
			}
			if got := strings.Contains(string(b), "the middleware is not mounted"); got != all {
				t.Errorf("%s all=%v: internal message shown = %v", p, all, got)
			}
			if !strings.Contains(string(b), "run_tests") {
				t.Errorf("%s: tool call lost", p)
			}
		}
	}
	var ie *InputError
	if _, err := RenderConversation(c, "bogus", false, prompt.RenderOptions{}); !errors.As(err, &ie) {
		t.Errorf("unknown provider: err = %v, want *InputError", err)
	}
}

// TestRenderConversationShapes checks the bodies of `conversation show`,
// which have no system text: no empty system message (openai, ollama), no
// empty systemInstruction (gemini) or system (anthropic), no "System: "
// (text); and the text ends with the "Assistant:" cue only when the last
// turn is not the assistant's.
func TestRenderConversationShapes(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".planning"), 0o755); err != nil {
		t.Fatal(err)
	}
	toolConversation(t, dir, "c1") // the last message is the assistant's
	s, _ := New(dir).OpenConversations()
	c, _, err := s.Read("c1")
	if err != nil {
		t.Fatal(err)
	}
	asked := *c
	last := c.Messages[len(c.Messages)-1]
	asked.Messages = append(slices.Clip(c.Messages), conversation.Record{ID: "m08", Kind: conversation.KindMessage, Role: "user", Content: "Now add a test.", Time: last.Time})
	for _, tc := range []struct {
		name string
		c    *conversation.Conversation
		cue  bool // the text ends with "Assistant:"
	}{{"assistant last", c, false}, {"user last", &asked, true}} {
		t.Run(tc.name, func(t *testing.T) {
			for _, p := range []string{prompt.OpenAI, prompt.Ollama} {
				b, err := RenderConversation(tc.c, p, false, prompt.RenderOptions{})
				if err != nil {
					t.Fatal(err)
				}
				var body struct {
					Messages []struct {
						Role    string  `json:"role"`
						Content *string `json:"content"`
					} `json:"messages"`
				}
				if err := json.Unmarshal(b, &body); err != nil {
					t.Fatal(err)
				}
				if len(body.Messages) == 0 || body.Messages[0].Role == "system" || body.Messages[0].Role == "developer" {
					t.Errorf("%s: first message %+v, want the conversation's", p, body.Messages[:min(1, len(body.Messages))])
				}
			}
			for p, key := range map[string]string{prompt.Gemini: `"systemInstruction"`, prompt.Anthropic: `"system"`} {
				b, err := RenderConversation(tc.c, p, false, prompt.RenderOptions{})
				if err != nil {
					t.Fatal(err)
				}
				if strings.Contains(string(b), key) {
					t.Errorf("%s body has an empty %s:\n%s", p, key, b)
				}
			}
			b, err := RenderConversation(tc.c, prompt.Text, false, prompt.RenderOptions{})
			if err != nil {
				t.Fatal(err)
			}
			text := string(b)
			if strings.HasPrefix(text, "System:") {
				t.Errorf("text opens with an empty System part: %.40q", text)
			}
			if got := strings.HasSuffix(text, "Assistant:"); got != tc.cue {
				t.Errorf("text ends with the Assistant: cue = %v, want %v; tail %q", got, tc.cue, text[max(0, len(text)-60):])
			}
			if !tc.cue && !strings.HasSuffix(text, "Mounted the middleware.\n") {
				t.Errorf("text does not end with the last assistant message: %q", text[max(0, len(text)-60):])
			}
		})
	}
}

func TestConversationMissingIsDiagnostic(t *testing.T) {
	dir := convProject(t, "targets:\n  - name: dev\n    conversation: nope\n", nil)
	rep, err := New(dir).Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, d := range rep.Diagnostics {
		found = found || strings.Contains(d.Message, `conversation "nope" not found`)
	}
	if !found {
		t.Errorf("diagnostics %v lack the missing conversation", rep.Diagnostics)
	}
	if _, err := os.Stat(filepath.Join(dir, PromptsDir, "dev.md")); err != nil {
		t.Errorf("prompt not written: %v", err)
	}
}

func TestHistoryStrategies(t *testing.T) {
	tests := []struct {
		name     string
		history  string
		want     []string
		notWant  []string
		wantDiag string
	}{
		{name: "window", history: "history:\n  window: 2\n", want: []string{"Mounted the middleware."}, notWant: []string{"Implement JWT auth"}},
		{name: "summary extractive", history: "history:\n  strategy: summary\n  keep: 2\n", want: []string{"Summary of earlier conversation", "(extractive summary of"}},
		{name: "summary command", history: "history:\n  strategy: summary\n  keep: 2\n  summarizer: \"echo folded-by-command\"\n", want: []string{"folded-by-command"}},
		{name: "summary command fails", history: "history:\n  strategy: summary\n  keep: 2\n  window: 2\n  summarizer: \"exit 3\"\n", want: []string{"Mounted the middleware."}, wantDiag: "history summary"},
		{name: "importance", history: "history:\n  strategy: importance\n  keep: 2\n  low_water: 1\n", want: []string{"call_1"}},
		{name: "tokens", history: "history:\n  strategy: tokens\n  tokens: 5\n", want: []string{"Mounted the middleware."}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := convProject(t, "targets:\n  - name: dev\n    conversation: c1\n    providers: [markdown]\n"+tc.history, nil)
			toolConversation(t, dir, "c1")
			rep, err := New(dir).Build(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			b, _ := os.ReadFile(filepath.Join(dir, PromptsDir, "dev.md"))
			conv := string(b)
			if i := strings.Index(conv, "## Conversation"); i >= 0 {
				conv = conv[i:]
			}
			if j := strings.Index(conv, "## Recent errors"); j >= 0 {
				conv = conv[:j]
			}
			for _, w := range tc.want {
				if !strings.Contains(conv, w) {
					t.Errorf("conversation lacks %q:\n%s", w, conv)
				}
			}
			for _, w := range tc.notWant {
				if strings.Contains(conv, w) {
					t.Errorf("conversation has %q", w)
				}
			}
			var diags []string
			for _, d := range rep.Diagnostics {
				diags = append(diags, d.String())
			}
			if got := strings.Contains(strings.Join(diags, "\n"), tc.wantDiag); tc.wantDiag != "" && !got {
				t.Errorf("diagnostics %v lack %q", diags, tc.wantDiag)
			}
		})
	}
}

func TestRunConversation(t *testing.T) {
	tests := []struct {
		name      string
		yaml      string
		wantErr   string // "" ok; "agent" *AgentError; "input" *InputError
		wantReply string
		wantFile  string
		recorded  string
	}{
		{name: "configured target, stdin", yaml: "targets:\n  - name: dev\n    conversation: c1\nagent:\n  command: \"cat > seen.txt; echo hi-from-agent\"\n",
			wantReply: "hi-from-agent", wantFile: PromptsDir + "/dev.md", recorded: "hi-from-agent"},
		{name: "ad hoc target, prompt file", yaml: "agent:\n  command: \"cp {prompt_file} seen.txt; echo adhoc\"\n",
			wantReply: "adhoc", wantFile: AdHocPromptDir + "/c1.md", recorded: "adhoc"},
		{name: "non-zero exit", yaml: "agent:\n  command: \"cat > seen.txt; echo partial; echo boom >&2; exit 3\"\n",
			wantErr: "agent", wantFile: AdHocPromptDir + "/c1.md", recorded: "boom"},
		{name: "timeout", yaml: "agent:\n  command: \"cat > seen.txt; sleep 5\"\n  timeout: 200ms\n",
			wantErr: "agent", wantFile: AdHocPromptDir + "/c1.md", recorded: "timed out after 200ms"},
		{name: "no command", yaml: "targets:\n  - name: dev\n", wantErr: "input"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := convProject(t, tc.yaml, nil)
			toolConversation(t, dir, "c1")
			start := time.Now()
			res, err := New(dir).RunConversation(context.Background(), RunOptions{ID: "c1", Text: "Add refresh tokens"})
			if time.Since(start) > 4*time.Second {
				t.Errorf("run took %v", time.Since(start))
			}
			var ae *AgentError
			var ie *InputError
			switch tc.wantErr {
			case "":
				if err != nil {
					t.Fatal(err)
				}
				if res.Reply != tc.wantReply {
					t.Errorf("reply = %q, want %q", res.Reply, tc.wantReply)
				}
			case "agent":
				if !errors.As(err, &ae) {
					t.Fatalf("err = %v, want *AgentError", err)
				}
			case "input":
				if !errors.As(err, &ie) {
					t.Fatalf("err = %v, want *InputError", err)
				}
			}
			s, _ := New(dir).OpenConversations()
			c, _, _ := s.Read("c1")
			last := c.Messages[len(c.Messages)-1]
			if tc.wantErr == "input" {
				if last.Content == "Add refresh tokens" {
					t.Error("an input error appended the user message")
				}
				return
			}
			if res.PromptFile != tc.wantFile {
				t.Errorf("prompt file = %q, want %q", res.PromptFile, tc.wantFile)
			}
			seen, err := os.ReadFile(filepath.Join(dir, "seen.txt"))
			if err != nil || !strings.Contains(string(seen), "Add refresh tokens") || !strings.Contains(string(seen), "Implement JWT auth") {
				t.Errorf("agent saw %q (%v), want both user messages", seen, err)
			}
			if last.Role != "assistant" || !strings.Contains(last.Content, tc.recorded) || last.IsError != (tc.wantErr != "") {
				t.Errorf("last record = %+v, want assistant %q (error %v)", last, tc.recorded, tc.wantErr != "")
			}
			if last.Agent != "backend-developer" {
				t.Errorf("agent = %q", last.Agent)
			}
		})
	}
}

// gitInit makes dir a git repository with one commit of its files, or
// skips the test when git is not installed.
func gitInit(t *testing.T, dir string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"}, {"commit", "-q", "-m", "first"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
}

// TestRunConversationIterations: each run appends one iteration record
// after its reply (number, files the agent changed in the git work tree,
// output lines, exit code; for a failure the error and its hash), the
// messages carry the iteration number, and the next prompt's loop and role
// layer says "iteration N of M" and what failed.
func TestRunConversationIterations(t *testing.T) {
	state := t.TempDir() // the agent's own files, outside the project
	agent := filepath.Join(state, "agent.sh")
	script := `n=$(cat "$STATE/count" 2>/dev/null || echo 0); n=$((n+1)); echo $n > "$STATE/count"
cat > "$STATE/seen-$n.txt"
case $n in
1) echo 'package x' > handler.go; printf 'one\ntwo\nthree\n' ;;
2) echo 'running the tests'; echo 'FAIL TestLogin' >&2; rm old.go; exit 4 ;;
*) echo fine ;;
esac
`
	if err := os.WriteFile(agent, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("STATE", state)
	dir := convProject(t, "targets:\n  - name: dev\n    conversation: c1\nagent:\n  command: sh "+agent+"\n  max_iterations: 7\n",
		map[string]string{"old.go": "package x\n", "dirty.go": "package x\n"})
	gitInit(t, dir)
	if err := os.WriteFile(filepath.Join(dir, "dirty.go"), []byte("package y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, _ := New(dir).OpenConversations()
	if err := s.Create(context.Background(), "c1", conversation.Meta{AgentType: "dev"}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	type want struct {
		files []string
		lines int
		code  int
		fails bool
	}
	// The failed run printed one line to stdout before exiting: it counts.
	wants := []want{{[]string{"handler.go"}, 3, 0, false}, {[]string{"old.go"}, 1, 4, true}, {nil, 1, 0, false}}
	for i, w := range wants {
		res, err := New(dir).RunConversation(ctx, RunOptions{ID: "c1", Text: fmt.Sprintf("turn %d", i+1)})
		var ae *AgentError
		if w.fails != errors.As(err, &ae) {
			t.Fatalf("run %d: err = %v", i+1, err)
		}
		if res.Iteration != i+1 || res.ExitCode != w.code || !slices.Equal(res.FilesModified, w.files) {
			t.Fatalf("run %d: result %+v, want iteration %d exit %d files %v", i+1, res, i+1, w.code, w.files)
		}
	}
	c, _, err := s.Read("c1")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Iterations) != len(wants) {
		t.Fatalf("%d iteration records, want %d", len(c.Iterations), len(wants))
	}
	for i, it := range c.Iterations {
		w := wants[i]
		if it.Iteration != i+1 || *it.ExitCode != w.code || *it.OutputLines != w.lines || !slices.Equal(it.FilesModified, w.files) || it.IsError != w.fails {
			t.Errorf("iteration record %d = %+v, want %+v", i+1, it, w)
		}
		if w.fails != (it.ErrorHash != "") || (w.fails && !strings.Contains(it.Content, "FAIL TestLogin")) {
			t.Errorf("iteration record %d: error hash %q content %q", i+1, it.ErrorHash, it.Content)
		}
	}
	for _, m := range c.Messages {
		if m.Role == "user" || m.Role == "assistant" {
			if m.Iteration == 0 {
				t.Errorf("message %q carries no iteration", m.Content)
			}
		}
	}
	seen3, _ := os.ReadFile(filepath.Join(state, "seen-3.txt"))
	for _, line := range []string{"This iteration: 3 of 7", "Iteration 2: agent exit 4; 1 output lines; files old.go", "What failed in iteration 2:"} {
		if !strings.Contains(string(seen3), line) {
			t.Errorf("prompt of run 3 lacks %q:\n%s", line, seen3)
		}
	}
	// The breaker sees the runs: three iterations, the recorded output lines.
	recs := IterationRecords(c.Iterations)
	if len(recs) != 3 || recs[0].OutputLines != 3 || recs[1].OutputLines != 1 || recs[1].ErrorHash == "" || recs[0].FilesChanged != 1 {
		t.Errorf("breaker records = %+v", recs)
	}
}

// TestBuildConversation: only the targets bound to the conversation are
// rebuilt, and none when no target names it.
func TestBuildConversation(t *testing.T) {
	dir := convProject(t, "targets:\n  - name: dev\n    conversation: c1\n  - name: other\n", nil)
	toolConversation(t, dir, "c1")
	rep, err := New(dir).BuildConversation(context.Background(), "c1")
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Targets) != 1 || rep.Targets[0].Name != "dev" {
		t.Fatalf("targets = %+v", rep.Targets)
	}
	if _, err := os.Stat(filepath.Join(dir, PromptsDir, "dev.md")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, PromptsDir, "other.md")); err == nil {
		t.Fatal("other target built")
	}
	if rep, err := New(dir).BuildConversation(context.Background(), "nobody"); err != nil || len(rep.Targets) != 0 {
		t.Fatalf("unbound conversation: %v %+v", err, rep)
	}
}

// TestStopSignalsOutsideWindow: a BLOCKED line pruned out of the history
// window still reaches the prompt's dynamic tier verbatim, and no budget
// cut removes it (it shares the errors section, whose shorter forms all
// keep the stop signals).
func TestStopSignalsOutsideWindow(t *testing.T) {
	dir := convProject(t, `targets:
  - name: dev
    conversation: c
    providers: [markdown, anthropic]
history:
  window: 4
`, nil)
	s, err := New(dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	s.Now = fixedClock()
	ctx := context.Background()
	if err := s.Create(ctx, "c", conversation.Meta{}); err != nil {
		t.Fatal(err)
	}
	recs := []conversation.Record{
		{ID: "m1", Role: "user", Content: "start"},
		{ID: "m2", Role: "assistant", Content: "Looked around.\nBLOCKED: need the prod DB password from ops"},
		{ID: "m3", Role: "user", Content: "go 1"},
		{ID: "m4", Role: "assistant", Content: "done 1"},
		{ID: "m5", Role: "user", Content: "go 2"},
		{ID: "m6", Role: "assistant", Content: "done 2\n```\nBLOCKED: inside a fence is not a signal\n```"},
		{ID: "m7", Role: "assistant", Internal: true, Content: "STOP: internal notes are not replayed"},
	}
	if err := s.Append(ctx, "c", recs...); err != nil {
		t.Fatal(err)
	}
	rep, err := New(dir).Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	tr := rep.Targets[0]
	md, err := os.ReadFile(filepath.Join(dir, PromptsDir, "dev.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := "## Stop signals (verbatim)\n\n```text\nBLOCKED: need the prod DB password from ops\n```\n"
	if !strings.Contains(string(md), want) {
		t.Fatalf("prompt lacks the pruned stop signal %q:\n%s", want, md)
	}
	for _, bad := range []string{"inside a fence is not a signal\n```\n\n## Recitation", "internal notes"} {
		if strings.Contains(string(md), bad) {
			t.Errorf("prompt carries %q", bad)
		}
	}
	var sec *SectionReport
	for i := range tr.Sections {
		if tr.Sections[i].ID == prompt.IDErrors {
			sec = &tr.Sections[i]
		}
	}
	if sec == nil || !slices.Equal(sec.Sources, []string{".planning/conversations/c.jsonl#m2"}) {
		t.Fatalf("stop signals section = %+v", sec)
	}
}

// TestFitKeepsStopSignals: every shorter form of the errors section keeps
// the stop signals, so Fit cuts errors but never a stop signal.
func TestFitKeepsStopSignals(t *testing.T) {
	in := prompt.Input{Target: "t", Role: "implementer", RoleTemplate: "r",
		Errors: []string{"e1", "e2", "e3", "e4", "e5"}, Stops: []string{"BLOCKED: need the password"}}
	p := prompt.Assemble(in)
	count := func(s string) int { return len(s) }
	full := p.Count(count)
	p.Fit(count, full-40)
	sec := p.Section(prompt.IDErrors)
	if sec == nil || !strings.Contains(sec.Body, "BLOCKED: need the password") || strings.Contains(sec.Body, "e1") {
		t.Fatalf("after Fit: %+v, cuts %v", sec, p.Cuts)
	}
}

// TestHugeMessageCappedAtAssembly: a 1 MB reply with NUL and escape bytes
// enters the prompt cut to its head and tail around a "⟨N bytes omitted⟩"
// line, without control characters, while the log keeps every byte.
func TestHugeMessageCappedAtAssembly(t *testing.T) {
	dir := convProject(t, `targets:
  - name: dev
    conversation: c
    providers: [markdown, openai]
`, nil)
	s, err := New(dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := s.Create(ctx, "c", conversation.Meta{}); err != nil {
		t.Fatal(err)
	}
	huge := "HEAD-MARK\x00\x1b[31m" + strings.Repeat("all work and no play. ", 1<<20/22) + "TAIL-MARK"
	if err := s.Append(ctx, "c", conversation.Record{ID: "m1", Role: "user", Content: "go"}, conversation.Record{ID: "m2", Role: "assistant", Content: huge}); err != nil {
		t.Fatal(err)
	}
	if _, err := New(dir).Build(ctx); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, PromptsDir, "dev.md"))
	if err != nil {
		t.Fatal(err)
	}
	if len(md) > MaxMessageBytes+64<<10 {
		t.Errorf("prompt is %d bytes; the message was not capped", len(md))
	}
	for _, w := range []string{"HEAD-MARK[31mall work", "TAIL-MARK", " bytes omitted⟩"} {
		if !strings.Contains(string(md), w) {
			t.Errorf("prompt lacks %q", w)
		}
	}
	if strings.ContainsAny(string(md), "\x00\x1b\r") {
		t.Error("prompt carries C0 control characters")
	}
	c, _, err := s.Read("c")
	if err != nil || c.Messages[len(c.Messages)-1].Content != huge {
		t.Errorf("the log lost the full text: %v", err)
	}
}

// TestRecentErrorsDistinct: an error repeated across iterations enters the
// errors section once, as its newest occurrence, and does not push an older
// distinct error out of the layers.MaxConversationErrors slots.
func TestRecentErrorsDistinct(t *testing.T) {
	dir := convProject(t, "targets:\n  - name: dev\n    conversation: c\n", nil)
	s, err := New(dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	s.Now = fixedClock()
	ctx := context.Background()
	if err := s.Create(ctx, "c", conversation.Meta{}); err != nil {
		t.Fatal(err)
	}
	recs := []conversation.Record{{ID: "first", Role: "tool", ToolName: "Bash", IsError: true, Content: "Error: connect ECONNREFUSED 127.0.0.1:5432"}}
	// Errors that differ in a quoted name are different errors.
	for _, mod := range []string{"lodash", "express"} {
		recs = append(recs, conversation.Record{ID: "mod-" + mod, Role: "tool", ToolName: "Bash", IsError: true, Content: "Error: Cannot find module '" + mod + "'"})
	}
	for i := range layers.MaxConversationErrors + 2 {
		recs = append(recs, conversation.Record{ID: fmt.Sprintf("r%d", i), Role: "tool", ToolName: "Bash", IsError: true,
			Content: fmt.Sprintf("TypeError: Cannot read properties of undefined (reading 'paid_at')\n    at paidInvoicesSince (src/stripe.ts:14:%d)", 48+i)})
	}
	if err := s.Append(ctx, "c", recs...); err != nil {
		t.Fatal(err)
	}
	if _, err := New(dir).Build(ctx); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, PromptsDir, "dev.md"))
	if err != nil {
		t.Fatal(err)
	}
	sec := string(md)[strings.Index(string(md), "## Recent errors"):]
	sec = sec[:strings.Index(sec, "\n## Recitation")]
	newest := fmt.Sprintf("src/stripe.ts:14:%d", 48+layers.MaxConversationErrors+1)
	if n := strings.Count(sec, "TypeError"); n != 1 || !strings.Contains(sec, newest) {
		t.Errorf("repeated error appears %d times (want once, as %s):\n%s", n, newest, sec)
	}
	for _, want := range []string{"ECONNREFUSED", "'lodash'", "'express'"} {
		if !strings.Contains(sec, want) {
			t.Errorf("the older distinct error %s was pushed out or merged:\n%s", want, sec)
		}
	}
}

// TestModifiedFilesInLoopLayer: files iteration records modified are
// listed in the loop layer, after the conversation, not in the epic layer
// before it, so an iteration touching a new file leaves the anthropic
// system blocks (the cached prefix before the conversation) unchanged.
func TestModifiedFilesInLoopLayer(t *testing.T) {
	dir := convProject(t, "targets:\n  - name: dev\n    conversation: c1\n    providers: [markdown, anthropic]\n", nil)
	toolConversation(t, dir, "c1")
	ctx := context.Background()
	e := New(dir)
	if _, err := e.Build(ctx); err != nil {
		t.Fatal(err)
	}
	system := func() string {
		b, err := os.ReadFile(filepath.Join(dir, PromptsDir, "dev.anthropic.json"))
		if err != nil {
			t.Fatal(err)
		}
		var body struct {
			System json.RawMessage `json:"system"`
		}
		if err := json.Unmarshal(b, &body); err != nil {
			t.Fatal(err)
		}
		return string(body.System)
	}
	before := system()
	s, err := e.OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	yes := true
	if err := s.Append(ctx, "c1", conversation.Record{Kind: conversation.KindIteration, Iteration: 2, TestsPassing: &yes, FilesModified: []string{"jwt.go"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Build(ctx); err != nil {
		t.Fatal(err)
	}
	if after := system(); after != before {
		t.Errorf("an iteration modifying a new file changed the system blocks:\nbefore %s\nafter  %s", before, after)
	}
	md, err := os.ReadFile(filepath.Join(dir, PromptsDir, "dev.md"))
	if err != nil {
		t.Fatal(err)
	}
	epic := string(md)[strings.Index(string(md), "## Epic and phase"):]
	epic = epic[:strings.Index(epic[3:], "\n## ")+3]
	if strings.Contains(epic, "jwt.go") || !strings.Contains(epic, "- auth.ts") {
		t.Errorf("epic layer lists touched files or lost the planned deliverable:\n%s", epic)
	}
	if !strings.Contains(string(md), "Files modified so far: auth.ts, jwt.go\n") {
		t.Errorf("loop layer lacks the files modified so far:\n%s", md)
	}
}

// buildConversationMD creates conversation c with recs in a project whose
// recite.yaml is yaml (target dev bound to c, markdown provider), builds,
// and returns the markdown prompt file.
func buildConversationMD(t *testing.T, yaml string, recs []conversation.Record) string {
	t.Helper()
	dir, s := newConversation(t, yaml, nil, "c")
	ctx := context.Background()
	for i := range recs {
		if recs[i].Kind == "" {
			recs[i].Kind = conversation.KindMessage
		}
	}
	if err := s.Append(ctx, "c", recs...); err != nil {
		t.Fatal(err)
	}
	if _, err := New(dir).Build(ctx); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, PromptsDir, "dev.md"))
	if err != nil {
		t.Fatal(err)
	}
	return string(md)
}

// rejection is a Claude Code rejected tool use answering call id with the
// user's words.
func rejection(id, words string) []conversation.Record {
	return []conversation.Record{
		{Role: "assistant", ToolCalls: []conversation.ToolCall{{ID: id, Name: "Edit", Arguments: `{"file_path":"x.go"}`}}},
		{Role: "tool", ToolCallID: id, ToolName: "Edit", IsError: true, Content: "The user doesn't want to proceed with this tool use. The tool use was rejected. To tell you how to proceed, the user said:\n" + words},
	}
}

// TestStopsAndErrorsSections: what goes to the stop signals and what to
// the errors.
func TestStopsAndErrorsSections(t *testing.T) {
	const yaml = "targets:\n  - name: dev\n    conversation: c\n"
	sections := func(md string) (stops, errs string) {
		i := strings.Index(md, "## Stop signals")
		if i < 0 {
			return "", ""
		}
		sec := md[i:]
		sec = sec[:strings.Index(sec, "\n## Recitation")]
		stops, errs, _ = strings.Cut(sec, "### Errors")
		return stops, errs
	}
	t.Run("an error with a stop line stays an error", func(t *testing.T) {
		md := buildConversationMD(t, yaml, []conversation.Record{{Role: "assistant", IsError: true,
			Content: "panic: schema lock held\n\tat migrate.go:12\nBLOCKED: cannot continue until the schema lock is released"}})
		stops, errs := sections(md)
		if !strings.Contains(stops, "BLOCKED: cannot continue") || !strings.Contains(errs, "panic: schema lock held") {
			t.Errorf("stops:\n%s\nerrors:\n%s", stops, errs)
		}
	})
	t.Run("no rejection among the errors", func(t *testing.T) {
		var recs []conversation.Record
		recs = append(recs, rejection("r0", "STOP. do not deploy to prod, use staging")...)
		for i := range 12 {
			recs = append(recs, rejection("r"+strconv.Itoa(i+1), "rule "+strconv.Itoa(i+1)+": ask before editing")...)
		}
		recs = append(recs, rejection("r13", "STOP. do not deploy to prod, use staging")...)
		recs = append(recs, conversation.Record{Role: "tool", ToolName: "Bash", IsError: true, Content: "make: *** [build] Error 2"})
		_, errs := sections(buildConversationMD(t, yaml, recs))
		if strings.Contains(errs, "doesn't want to proceed") || !strings.Contains(errs, "make: ***") {
			t.Errorf("errors:\n%s", errs)
		}
	})
	t.Run("instructions differing in a name are two stops", func(t *testing.T) {
		var recs []conversation.Record
		recs = append(recs, rejection("a", "never edit 'billing.go'")...)
		recs = append(recs, rejection("b", "never edit 'auth.go'")...)
		stops, _ := sections(buildConversationMD(t, yaml, recs))
		if !strings.Contains(stops, "'billing.go'") || !strings.Contains(stops, "'auth.go'") {
			t.Errorf("stops:\n%s", stops)
		}
	})
	t.Run("a message naming a stop word stays whole", func(t *testing.T) {
		long := "the CI job is BLOCKED on the vendor token, ignore it\n" + strings.Repeat("requirement line\n", 1200) + "the final requirement"
		md := buildConversationMD(t, yaml, []conversation.Record{{Role: "user", Content: long}})
		if !strings.Contains(md, "the final requirement") {
			t.Errorf("the 20 KB user message was cut")
		}
	})
	t.Run("a huge rejection is cut with compression off, and no secret is split", func(t *testing.T) {
		const token = "ghp_Ab3dE6gH9jK2mN5pQ8rS1tU4vW7xY0zA1bC3"
		// The token starts 19 bytes before the 8 KiB cut, after 8 KiB
		// with no separator (a long query string).
		head := len(rejection("", "")[1].Content)
		words := strings.Repeat("A", 8192-head-20) + "=" + token + " " + strings.Repeat("more words ", 300000)
		md := buildConversationMD(t, "compression:\n  enabled: false\n"+yaml, rejection("big", words))
		if len(md) > 64<<10 {
			t.Errorf("prompt is %d bytes: the 3 MB rejection was not cut", len(md))
		}
		if strings.Contains(md, token[:12]) {
			t.Errorf("part of the token reached the prompt")
		}
	})
	t.Run("no secret is split by a cut", func(t *testing.T) {
		const token = "ghp_Ab3dE6gH9jK2mN5pQ8rS1tU4vW7xY0zA1bC3"
		const keyBody = "MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB"
		pem := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat(keyBody+"\n", 25) + "-----END RSA PRIVATE KEY-----\n"
		pad := func(n int) string { return strings.Repeat("w ", n/2) }
		// A key across an error's 8 KiB cut; tokens across a tool result's
		// 256 KiB head cut and its tail cut.
		big := pad(MaxMessageBytes*2/3-20) + token + "\n" + pad(200<<10) + token + "\n" + pad(MaxMessageBytes/3-30)
		md := buildConversationMD(t, "compression:\n  enabled: false\n"+yaml, []conversation.Record{
			{Role: "assistant", ToolCalls: []conversation.ToolCall{{ID: "k", Name: "Bash", Arguments: `{"command":"cat key"}`}}},
			{Role: "tool", ToolCallID: "k", ToolName: "Bash", IsError: true, Content: pad(8192-1000) + pem + "after"},
			{Role: "assistant", ToolCalls: []conversation.ToolCall{{ID: "b", Name: "Bash", Arguments: `{"command":"cat log"}`}}},
			{Role: "tool", ToolCallID: "b", ToolName: "Bash", Content: big},
		})
		if !strings.Contains(md, "bytes omitted⟩") {
			t.Fatalf("the big tool result is not in the prompt")
		}
		for _, part := range []string{keyBody[:16], token[:10], token[len(token)-10:]} {
			if strings.Contains(md, part) {
				t.Errorf("%q reached the prompt", part)
			}
		}
	})
	t.Run("no secret is split where redaction shortens the window", func(t *testing.T) {
		const token = "ghp_Ab3dE6gH9jK2mN5pQ8rS1tU4vW7xY0zA1bC3"
		const keyBody = "MIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB"
		pem := "-----BEGIN RSA PRIVATE KEY-----\n" + strings.Repeat(keyBody+"\n", 50) + "-----END RSA PRIVATE KEY-----\n"
		pems := strings.Repeat(pem, 4) // about 13 KB that redact to about 150 bytes
		fill := func(n int) string { return strings.Repeat("w ", max(0, n)/2) }
		// An error: the token across byte 16 KiB, the first window's edge.
		errText := pems + fill(2*(8<<10)-10-len(pems)) + token + "\nend"
		// A long tool result: the token across the tail window's start,
		// the keys after it.
		tail := MaxMessageBytes / 3
		big := fill(300<<10) + token + "\n" + pems + fill(tail+layers.SecretReach-len(pems)-len(token)-1+20)
		md := buildConversationMD(t, yaml, []conversation.Record{
			{Role: "assistant", ToolCalls: []conversation.ToolCall{{ID: "k", Name: "Bash", Arguments: `{"command":"cat keys"}`}}},
			{Role: "tool", ToolCallID: "k", ToolName: "Bash", IsError: true, Content: errText},
			{Role: "assistant", ToolCalls: []conversation.ToolCall{{ID: "b", Name: "Bash", Arguments: `{"command":"cat log"}`}}},
			{Role: "tool", ToolCallID: "b", ToolName: "Bash", Content: big},
		})
		for _, part := range []string{keyBody[:16], token[:8], token[len(token)-8:]} {
			if strings.Contains(md, part) {
				t.Errorf("%q reached the prompt", part)
			}
		}
	})
	t.Run("stops that differ in a number are two stops", func(t *testing.T) {
		var recs []conversation.Record
		recs = append(recs, rejection("a", "never run migration 0001 on prod")...)
		recs = append(recs, rejection("b", "never run migration 0002 on prod")...)
		stops, _ := sections(buildConversationMD(t, yaml, recs))
		if !strings.Contains(stops, "migration 0001") || !strings.Contains(stops, "migration 0002") {
			t.Errorf("stops:\n%s", stops)
		}
	})
}

// TestCutRedactionsReported: a secret past an 8 KiB cut is in no prompt and
// not reported; one kept before the cut is reported once per place. The
// log is written raw, as a recite that did not redact its logs wrote it
// (or an older clone's, merged in): prompts redact what logs still hold.
func TestCutRedactionsReported(t *testing.T) {
	dir, _ := newConversation(t, "targets:\n  - name: dev\n    conversation: c\n", nil, "c")
	s, err := conversation.Open(filepath.Join(dir, filepath.FromSlash(ConversationsDir)))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	const kept, gone = "ghp_Ab3dE6gH9jK2mN5pQ8rS1tU4vW7xY0zA1bC3", "ghp_Zz3dE6gH9jK2mN5pQ8rS1tU4vW7xY0zA1bC9"
	words := "use " + kept + " for now\n" + strings.Repeat("w ", 4600) + gone + "\n"
	recs := rejection("r", words)
	for i := range recs {
		recs[i].Kind = conversation.KindMessage
	}
	if err := s.Append(ctx, "c", recs...); err != nil {
		t.Fatal(err)
	}
	rep, err := New(dir).Build(ctx)
	if err != nil {
		t.Fatal(err)
	}
	got := rep.Targets[0].Redactions
	seen := map[string]bool{}
	for _, r := range got {
		if seen[r] {
			t.Errorf("reported twice: %s", r)
		}
		seen[r] = true
	}
	if len(got) != 2 {
		t.Errorf("redactions = %q, want the kept token once in the stop signals and once in the conversation", got)
	}
}

// newConversation makes a project with recite.yaml yaml and files (see
// convProject) and creates conversation id in it; it returns the project
// and the store.
func newConversation(t *testing.T, yaml string, files map[string]string, id string) (string, *conversation.Store) {
	t.Helper()
	dir := convProject(t, yaml, files)
	s, err := New(dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Create(context.Background(), id, conversation.Meta{}); err != nil {
		t.Fatal(err)
	}
	return dir, s
}

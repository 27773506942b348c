package claudecode_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine"
	"github.com/recite-dev/recite/engine/claudecode"
	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/planning/conversation"
)

// The payloads in testdata/agents/codex are the bodies codex-cli 0.169.0
// sent a recording hook against a scripted model server; the rollouts are
// the ones it wrote then (planning/conversation/testdata/codex/0.169).

// rollout copies a recorded rollout into a temporary file and returns its
// path.
func rollout(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(sharedtest.ModuleRoot(), "planning", "conversation", "testdata", "codex", "0.169", name))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestCodexHook: a Codex session through `recite hook codex`, from the
// events codex-cli 0.169 sent. SessionStart prints plain text (Codex adds
// it to the context), UserPromptSubmit Claude Code's JSON; PostToolUse
// of a command that exited 3 — whose tool_response is its output alone —
// is recorded as an error with its exit code, read from the rollout, and
// with the call as the rollout has it (exec_command, its cmd); an MCP call
// keeps its server's namespace; the records match `recite import codex` of
// the same rollout.
func TestCodexHook(t *testing.T) {
	dir := enginetest.HookProject(t)
	tr := rollout(t, "rollout-2026-12-03T12-57-25-01a23bfb-270e-79a1-b54d-37dc341fd616.jsonl")
	const sid = "01a23bfb-270e-79a1-b54d-37dc341fd616"
	ev := func(name string) string { return agentEvent(t, "codex", name, dir, tr, sid) }
	out, errOut := runAgent(t, claudecode.AgentCodex, ev("SessionStart-startup"))
	if !strings.HasPrefix(out, "recite: where this project stands") || !strings.Contains(out, "## Recitation") {
		t.Errorf("SessionStart stdout (plain text for Codex):\n%s\nstderr %s", out, errOut)
	}
	out, _ = runAgent(t, claudecode.AgentCodex, ev("UserPromptSubmit"))
	if out != "" {
		var v map[string]any
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Errorf("UserPromptSubmit stdout is not JSON: %q", out)
		}
	}
	runAgent(t, claudecode.AgentCodex, ev("PostToolUse"))
	runAgent(t, claudecode.AgentCodex, ev("Stop"))

	s, err := engine.New(dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := s.Read(claudecode.SessionConversationOf(claudecode.AgentCodex, sid))
	if err != nil {
		t.Fatal(err)
	}
	var live []string
	for _, m := range c.Messages {
		if m.Agent != claudecode.AgentCodex {
			t.Errorf("record %s by %q", m.ID, m.Agent)
		}
		live = append(live, toolView(m)...)
	}
	if len(c.Iterations) != 1 || c.Iterations[0].ErrorHash == "" {
		t.Errorf("iterations %+v, want the turn ending on the failed command", c.Iterations)
	}
	f, err := os.Open(tr)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, _, err := conversation.ImportCodex(f)
	if err != nil {
		t.Fatal(err)
	}
	var imported []string
	for _, r := range recs {
		imported = append(imported, toolView(r)...)
	}
	if strings.Join(live, "\n") != strings.Join(imported, "\n") || len(live) != 2 {
		t.Errorf("tool records of the hook:\n%s\nof the import:\n%s", strings.Join(live, "\n"), strings.Join(imported, "\n"))
	}

	// The MCP call of another session.
	mcp := rollout(t, "rollout-2026-12-03T13-36-14-01a23c1e-b160-7a10-aab1-0da264718848.jsonl")
	runAgent(t, claudecode.AgentCodex, agentEvent(t, "codex", "PostToolUse-mcp", dir, mcp, "mcp-session"))
	m, _, err := s.Read(claudecode.SessionConversationOf(claudecode.AgentCodex, "mcp-session"))
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Messages) != 2 || m.Messages[0].ToolCalls[0].Name != "mcp__recite__recitation" || m.Messages[1].IsError {
		t.Errorf("MCP call records %+v", m.Messages)
	}
}

// toolView is what a tool call or result record says, for comparing the
// hook's log with an import: the call's name and command, the result's
// error flag and text.
func toolView(r conversation.Record) []string {
	var out []string
	for _, tc := range r.ToolCalls {
		out = append(out, "call "+tc.Name+" "+conversation.CallCommand(tc.Name, tc.Arguments))
	}
	if r.Role == conversation.RoleTool {
		out = append(out, "result "+r.ToolName+" error="+map[bool]string{true: "yes", false: "no"}[r.IsError]+" "+strings.TrimSpace(r.Content))
	}
	return out
}

// TestCodexCompaction: Codex's PostCompact has no compact_summary; the
// hook checks the preservation block against the summary of the rollout's
// "compacted" item (from a compaction codex-cli 0.169 made), and the
// SessionStart after it re-injects what that summary lost, nothing when
// the summary kept it.
func TestCodexCompaction(t *testing.T) {
	const key = "Error: connect ECONNREFUSED 127.0.0.1:5432"
	b, err := os.ReadFile(filepath.Join("testdata", "agents", "codex", "rollout-compacted.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		rollout  string
		reinject bool
	}{
		{"a summary that lost the error", string(b), true},
		{"a summary that kept it", strings.Replace(string(b), `summary to assist with your own analysis:\nok"`, `summary to assist with your own analysis:\n`+key+` (test/sync.test.ts:7:14) ; BLOCKER-001 BLOCKER-002 docker.sock DATABASE_URL backoff pg.Pool"`, 1), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := enginetest.HookProject(t)
			tr := filepath.Join(t.TempDir(), "rollout.jsonl")
			if err := os.WriteFile(tr, []byte(tc.rollout), 0o644); err != nil {
				t.Fatal(err)
			}
			const sid = "01a23bf4-b238-7043-8123-e4f0af8f4caa"
			e := func(name string, fields map[string]any) string {
				m := map[string]any{"session_id": sid, "transcript_path": tr, "cwd": dir, "hook_event_name": name, "model": "gpt-5.5", "turn_id": "t1"}
				for k, v := range fields {
					m[k] = v
				}
				out, err := json.Marshal(m)
				if err != nil {
					t.Fatal(err)
				}
				return string(out)
			}
			runAgent(t, claudecode.AgentCodex, e("SessionStart", map[string]any{"source": "startup", "permission_mode": "bypassPermissions"}))
			runAgent(t, claudecode.AgentCodex, e("PreCompact", map[string]any{"trigger": "auto"}))
			runAgent(t, claudecode.AgentCodex, e("PostCompact", map[string]any{"trigger": "auto"}))
			out, errOut := runAgent(t, claudecode.AgentCodex, e("SessionStart", map[string]any{"source": "compact", "permission_mode": "bypassPermissions"}))
			if got := strings.Contains(out, key); got != tc.reinject {
				t.Errorf("key line re-injected %v, want %v:\n%s\nstderr %s", got, tc.reinject, out, errOut)
			}
			if tc.reinject && !strings.Contains(out, "checked by recite at PostCompact") {
				t.Errorf("not checked against the rollout's summary:\n%s", out)
			}
			s, err := engine.New(dir).OpenConversations()
			if err != nil {
				t.Fatal(err)
			}
			c, _, err := s.Read(claudecode.SessionConversationOf(claudecode.AgentCodex, sid))
			if err != nil {
				t.Fatal(err)
			}
			summaries := 0
			for _, m := range c.Messages {
				if m.CompactSummary {
					summaries++
				}
			}
			if summaries != 1 {
				t.Errorf("%d compact summaries recorded, want the rollout's", summaries)
			}
		})
	}
}

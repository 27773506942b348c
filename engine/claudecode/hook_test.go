package claudecode_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/recite-dev/recite/engine"
	"github.com/recite-dev/recite/engine/claudecode"
	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/planning/conversation"
	"github.com/recite-dev/recite/templates"
)

// Hook event payloads, written from Claude Code's hooks reference
// (docs/providers.md#claude-code-hooks): the common fields session_id, transcript_path, cwd,
// permission_mode and hook_event_name, then each event's own. {{DIR}} is
// the project, {{T}} a transcript path.
const (
	evStartup  = `{"session_id":"abc123","transcript_path":"{{T}}","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"SessionStart","source":"startup","model":"claude-sonnet-4-6"}`
	evCompact  = `{"session_id":"abc123","transcript_path":"{{T}}","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"SessionStart","source":"compact"}`
	evPrompt   = `{"session_id":"abc123","transcript_path":"{{T}}","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"Write a function to calculate the factorial of a number"}`
	evWrite    = `{"session_id":"abc123","transcript_path":"{{T}}","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Write","tool_input":{"file_path":"{{DIR}}/src/factorial.ts","content":"export const f = 1;"},"tool_response":{"filePath":"{{DIR}}/src/factorial.ts","success":true},"tool_use_id":"toolu_01ABC123","duration_ms":12}`
	evBash     = `{"session_id":"abc123","transcript_path":"{{T}}","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"npm run build","description":"Build"},"tool_response":{"stdout":"built","stderr":"","interrupted":false,"isImage":false},"tool_use_id":"toolu_02","duration_ms":800}`
	evRead     = `{"session_id":"abc123","transcript_path":"{{T}}","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":"{{DIR}}/src/db.ts"},"tool_response":{"type":"text","file":{"filePath":"{{DIR}}/src/db.ts","content":"import pg"}},"tool_use_id":"toolu_03"}`
	evFailure  = `{"session_id":"abc123","transcript_path":"{{T}}","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"npm test","description":"Run test suite"},"tool_use_id":"toolu_04","error":"Command exited with non-zero status code 1\nError: connect ECONNREFUSED 127.0.0.1:5433\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)","is_interrupt":false}`
	evFailure2 = `{"session_id":"abc123","transcript_path":"{{T}}","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"npm run migrate"},"tool_use_id":"toolu_05","error":"error: relation \"invoices_v2\" does not exist","is_interrupt":false}`
	evInterr   = `{"session_id":"abc123","transcript_path":"{{T}}","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"sleep 100"},"tool_use_id":"toolu_06","error":"Error: interrupted by user","is_interrupt":true}`
	evStop     = `{"session_id":"abc123","transcript_path":"{{T}}","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"I've completed the refactoring. Here's a summary..."}`
	evPre      = `{"session_id":"abc123","transcript_path":"{{T}}","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"PreCompact","trigger":"manual","custom_instructions":""}`
	evPostSm   = `{"session_id":"abc123","transcript_path":"{{T}}","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"PostCompact","trigger":"auto","compact_summary":"We worked on the invoice sync. Some issues were encountered with the database and a few approaches were tried."}`
	evNotify   = `{"session_id":"abc123","transcript_path":"{{T}}","cwd":"{{DIR}}","hook_event_name":"Notification","message":"Claude needs your permission to use Bash"}`
)

// hook runs one event (a template above) in dir and returns stdout and
// stderr.
func hook(t testing.TB, dir, transcript, event string, opts claudecode.Options) (string, string) {
	t.Helper()
	ev := strings.NewReplacer("{{DIR}}", dir, "{{T}}", transcript).Replace(event)
	if !json.Valid([]byte(ev)) {
		t.Fatalf("test payload is not JSON: %s", ev)
	}
	if opts.Deadline == nil {
		opts.Deadline = noDeadline
	}
	var out, errOut bytes.Buffer
	engine.RunClaudeHook(context.Background(), opts, strings.NewReader(ev), &out, &errOut)
	return out.String(), errOut.String()
}

// noDeadline is an Options.Deadline that never ends, for the tests that
// are not about the deadline: none depends on the machine's speed.
func noDeadline(ctx context.Context, _ time.Duration) (context.Context, context.CancelFunc) {
	return context.WithCancel(ctx)
}

// session reads the hook session's conversation.
func session(t testing.TB, dir string) *conversation.Conversation {
	t.Helper()
	s, err := engine.New(dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	c, _, err := s.Read("cc-abc123")
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestClaudeHookEvents(t *testing.T) {
	const errVerbatim = "Command exited with non-zero status code 1\nError: connect ECONNREFUSED 127.0.0.1:5433\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)"
	tests := []struct {
		name   string
		events []string
		// before runs ahead of event beforeAt, 0 meaning the last (e.g. to
		// change a file).
		before   func(t *testing.T, dir string)
		beforeAt int
		check    func(t *testing.T, dir, out, errOut string)
	}{
		{name: "SessionStart startup prints the recitation and the open signals", events: []string{evStartup}, check: func(t *testing.T, dir, out, errOut string) {
			// No block was preserved: the open signals are the planning
			// tree's (the loop file's last error, its blocker).
			for _, want := range []string{"## Recitation", "### Task", "- Next: Page through paid invoices with the Stripe auto-pager", "Circuit breaker: TRIPPED (stall: 2/5 | spin: 5/5 | decline: 71%)",
				"the stop signals still open in the project's recent conversations and planning files", "Error: connect ECONNREFUSED 127.0.0.1:5432", "BLOCKER-002"} {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "timestamp:") {
				t.Error("printed a preservation block that does not exist")
			}
		}},
		{name: "SessionStart startup adds the latest block", events: []string{evPre, evStartup}, check: func(t *testing.T, dir, out, errOut string) {
			if !strings.Contains(out, "## Context Preservation Block (auto-generated)") || !strings.Contains(out, "Error: connect ECONNREFUSED 127.0.0.1:5432") {
				t.Errorf("stdout lacks the latest block:\n%s", out)
			}
		}},
		{name: "UserPromptSubmit appends the prompt", events: []string{evPrompt}, check: func(t *testing.T, dir, out, errOut string) {
			c := session(t, dir)
			// The session was given no recitation yet: the prompt gets it
			// (TestPromptRecitation).
			if ctx := promptOutput(t, out); !strings.Contains(ctx, "## Recitation") || len(c.Messages) != 1 || c.Messages[0].Role != "user" || c.Messages[0].Content != "Write a function to calculate the factorial of a number" {
				t.Errorf("stdout %q, messages %+v", out, c.Messages)
			}
			if c.Meta.AgentType != "claude-code" {
				t.Errorf("meta %+v", c.Meta)
			}
		}},
		{name: "a turn with a Write records its file at Stop", events: []string{evWrite, evStop}, check: func(t *testing.T, dir, out, errOut string) {
			c := session(t, dir)
			if len(c.Messages) != 3 || len(c.Messages[0].ToolCalls) != 1 || c.Messages[0].ToolCalls[0].ID != "toolu_01ABC123" || c.Messages[1].ToolCallID != "toolu_01ABC123" || c.Messages[1].IsError {
				t.Fatalf("messages %+v", c.Messages)
			}
			if len(c.Iterations) != 1 || strings.Join(c.Iterations[0].FilesModified, ",") != "src/factorial.ts" {
				t.Errorf("iterations %+v", c.Iterations)
			}
		}},
		{name: "PostToolUse alone records no iteration yet", events: []string{evWrite}, check: func(t *testing.T, dir, out, errOut string) {
			if c := session(t, dir); len(c.Iterations) != 0 {
				t.Errorf("iterations %+v", c.Iterations)
			}
		}},
		{name: "PostToolUse Bash records the files git sees changed", events: []string{evStartup, evBash, evStop}, beforeAt: 1,
			before: func(t *testing.T, dir string) {
				if err := os.WriteFile(filepath.Join(dir, "src", "db.ts"), []byte("changed\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			},
			check: func(t *testing.T, dir, out, errOut string) {
				c := session(t, dir)
				if len(c.Iterations) != 1 || strings.Join(c.Iterations[0].FilesModified, ",") != "src/db.ts" {
					t.Errorf("iterations %+v (stderr %s)", c.Iterations, errOut)
				}
				if c.Messages[1].Content != "built" {
					t.Errorf("tool result %q, want the stdout", c.Messages[1].Content)
				}
			}},
		{name: "PostToolUse Bash without a change records none", events: []string{evStartup, evBash, evStop}, check: func(t *testing.T, dir, out, errOut string) {
			if c := session(t, dir); len(c.Iterations) != 1 || len(c.Iterations[0].FilesModified) != 0 {
				t.Errorf("iterations %+v", c.Iterations)
			}
		}},
		{name: "a turn that only read is no iteration", events: []string{evRead, evStop}, check: func(t *testing.T, dir, out, errOut string) {
			c := session(t, dir)
			if len(c.Iterations) != 0 || len(c.Messages) != 3 || c.Messages[1].Content != "import pg" {
				t.Errorf("iterations %+v messages %+v", c.Iterations, c.Messages)
			}
		}},
		{name: "PostToolUseFailure records the error verbatim", events: []string{evFailure}, check: func(t *testing.T, dir, out, errOut string) {
			c := session(t, dir)
			if len(c.Messages) != 2 || !c.Messages[1].IsError || c.Messages[1].Content != errVerbatim || c.Messages[1].ToolName != "Bash" {
				t.Errorf("messages %+v", c.Messages)
			}
		}},
		{name: "an interrupt is not an error", events: []string{evInterr}, check: func(t *testing.T, dir, out, errOut string) {
			c := session(t, dir)
			if len(c.Messages) != 2 || c.Messages[1].IsError || !c.Messages[1].Internal {
				t.Errorf("messages %+v", c.Messages)
			}
		}},
		{name: "Stop appends the last assistant message; an answer is no iteration", events: []string{evStop}, check: func(t *testing.T, dir, out, errOut string) {
			c := session(t, dir)
			if len(c.Messages) != 1 || c.Messages[0].Role != "assistant" || !strings.HasPrefix(c.Messages[0].Content, "I've completed the refactoring.") || len(c.Iterations) != 0 {
				t.Errorf("messages %+v iterations %+v", c.Messages, c.Iterations)
			}
		}},
		{name: "a failed turn is an iteration", events: []string{evFailure, evStop}, check: func(t *testing.T, dir, out, errOut string) {
			c := session(t, dir)
			if len(c.Iterations) != 1 || c.Iterations[0].ErrorHash != signals.Hash("Error: connect ECONNREFUSED 127.0.0.1:5433") {
				t.Errorf("iterations %+v", c.Iterations)
			}
		}},
		{name: "PreCompact writes a compaction block with the session's errors", events: []string{evFailure, evPre}, check: func(t *testing.T, dir, out, errOut string) {
			b, err := os.ReadFile(filepath.Join(dir, ".planning", "context-preserved.md"))
			if err != nil {
				t.Fatal(err)
			}
			if out != "" || !strings.Contains(string(b), "trigger: compaction") || !strings.Contains(string(b), errVerbatim) {
				t.Errorf("stdout %q, block:\n%s", out, b)
			}
		}},
		{name: "smoothed summary: SessionStart compact re-injects the lost errors", events: []string{evFailure, evFailure2, evPre, evPostSm, evCompact}, check: func(t *testing.T, dir, out, errOut string) {
			for _, want := range []string{errVerbatim, `error: relation "invoices_v2" does not exist`, "Error: connect ECONNREFUSED 127.0.0.1:5432", "checked by recite at PostCompact"} {
				if !strings.Contains(out, want) {
					t.Errorf("stdout lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, "## Recitation") {
				t.Error("after a compaction only the lost signals are printed")
			}
		}},
		{name: "unknown events are ignored", events: []string{evNotify}, check: func(t *testing.T, dir, out, errOut string) {
			if out != "" || errOut != "" {
				t.Errorf("stdout %q stderr %q", out, errOut)
			}
			if _, err := os.Stat(filepath.Join(dir, ".planning", "conversations", "cc-abc123.jsonl")); err == nil {
				t.Error("a conversation was created")
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := enginetest.HookProject(t)
			var out, errOut string
			for i, ev := range tt.events {
				at := tt.beforeAt
				if at == 0 {
					at = len(tt.events) - 1
				}
				if i == at && tt.before != nil {
					tt.before(t, dir)
				}
				out, errOut = hook(t, dir, filepath.Join(dir, "no-transcript.jsonl"), ev, claudecode.Options{})
			}
			tt.check(t, dir, out, errOut)
		})
	}
}

// TestClaudeHookFaithfulSummary: a summary that keeps every signal
// verbatim re-injects nothing.
func TestClaudeHookFaithfulSummary(t *testing.T) {
	dir := enginetest.HookProject(t)
	for _, ev := range []string{evFailure, evFailure2, evPre} {
		hook(t, dir, "", ev, claudecode.Options{})
	}
	blocks, err := readPreserved(dir)
	if err != nil || len(blocks) != 1 {
		t.Fatalf("blocks %d, %v", len(blocks), err)
	}
	var sum strings.Builder
	sum.WriteString("Summary of the session. The circuit breaker is TRIPPED.\n")
	for _, s := range blocks[0].Signals {
		sum.WriteString("- " + signals.Key(s) + "\n")
	}
	post, _ := json.Marshal(map[string]any{"session_id": "abc123", "transcript_path": "", "cwd": dir, "hook_event_name": "PostCompact", "trigger": "manual", "compact_summary": sum.String()})
	hook(t, dir, "", string(post), claudecode.Options{})
	out, errOut := hook(t, dir, "", evCompact, claudecode.Options{})
	if out != "" {
		t.Errorf("faithful summary re-injected:\n%s\nstderr %s", out, errOut)
	}
}

// TestClaudeHookTranscriptFallback: without PostCompact, SessionStart
// compact reads the compact summary entry of the transcript.
func TestClaudeHookTranscriptFallback(t *testing.T) {
	dir := enginetest.HookProject(t)
	for _, ev := range []string{evFailure, evPre} {
		hook(t, dir, "", ev, claudecode.Options{})
	}
	tr := filepath.Join(t.TempDir(), "session.jsonl")
	lines := []string{
		`{"type":"system","subtype":"compact_boundary","uuid":"u1","parentUuid":null,"logicalParentUuid":"u0","timestamp":"2026-02-07T10:00:00Z","content":"Conversation compacted","compactMetadata":{"trigger":"auto","preTokens":160000}}`,
		`{"type":"user","uuid":"u2","parentUuid":"u1","timestamp":"2026-02-07T10:00:01Z","isCompactSummary":true,"message":{"role":"user","content":"This session is being continued from a previous conversation. Tests failed with a connection problem."}}`,
	}
	if err := os.WriteFile(tr, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _ := hook(t, dir, tr, evCompact, claudecode.Options{})
	if !strings.Contains(out, "against the transcript's summary") || !strings.Contains(out, "Error: connect ECONNREFUSED 127.0.0.1:5433") {
		t.Errorf("stdout:\n%s", out)
	}
	// No transcript and no PostCompact: everything preserved is repeated.
	out, _ = hook(t, dir, filepath.Join(dir, "missing.jsonl"), evCompact, claudecode.Options{})
	if !strings.Contains(out, "every preserved signal is repeated") || !strings.Contains(out, "BLOCKER-002") {
		t.Errorf("stdout:\n%s", out)
	}
}

func TestClaudeHookNeverFails(t *testing.T) {
	dir := enginetest.HookProject(t)
	tests := []struct{ name, dir, input, wantErr string }{
		{"not JSON", dir, "{not json", "parse event"},
		{"not an object", dir, `[1, 2]`, "parse event"},
		{"no planning tree", t.TempDir(), `{"session_id":"s","hook_event_name":"UserPromptSubmit","prompt":"hi"}`, "no .planning folder"},
		{"no session id", dir, `{"hook_event_name":"UserPromptSubmit","prompt":"hi"}`, "no session_id"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			engine.RunClaudeHook(context.Background(), claudecode.Options{Dir: tt.dir, Deadline: noDeadline}, strings.NewReader(tt.input), &out, &errOut)
			if out.Len() != 0 || !strings.Contains(errOut.String(), tt.wantErr) {
				t.Errorf("stdout %q stderr %q, want %q", out.String(), errOut.String(), tt.wantErr)
			}
		})
	}
}

func TestSessionConversation(t *testing.T) {
	tests := map[string]string{
		"abc123":                               "cc-abc123",
		"00893aaf-19fa-41d2-8238-13269b9b3ca0": "cc-00893aaf-19fa-41d2-8238-13269b9b3ca0",
		"../../etc/passwd":                     "cc-..-..-etc-passwd",
		"a b/é":                                "cc-a-b--",
		strings.Repeat("x", 300):               "cc-" + strings.Repeat("x", 125),
	}
	for in, want := range tests {
		got := claudecode.SessionConversation(in)
		if got != want {
			t.Errorf("claudecode.SessionConversation(%q) = %q, want %q", in, got, want)
		}
		if err := conversation.ValidateID(got); err != nil {
			t.Errorf("%q: %v", got, err)
		}
	}
}

// leftOut reads how many signals fitOutput's note says it left out (0
// without a note).
func leftOut(t *testing.T, out string) int {
	t.Helper()
	_, rest, ok := strings.Cut(out, " and left out ")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(strings.Fields(rest)[0])
	if err != nil {
		t.Fatalf("note %q: %v", rest, err)
	}
	return n
}

// TestFitOutput: the output stays within the limit; every stop signal
// appears at least as its key line (errors first, newest first) before
// the recitation, failed approaches' details or the working state get
// room; what was shortened or left out is counted in a note.
func TestFitOutput(t *testing.T) {
	var sigs []signals.Signal
	for i := range 40 {
		sigs = append(sigs, signals.Signal{Kind: signals.KindError, Text: strings.Repeat("é", 50) + " error number " + string(rune('A'+i%26)) + strings.Repeat("x", i)})
		sigs = append(sigs, signals.Signal{Kind: signals.KindFailedApproach, Text: "approach " + strconv.Itoa(i) + " " + strings.Repeat("y", 300), Detail: "why " + strings.Repeat("z", 80)})
	}
	b := signals.Block{Signals: sigs, Breaker: "stall: 1/5 | spin: 0/5 | decline: 0%", Task: "Plan 1", FilesModified: []string{"a.go"}}
	rec := "## Recitation\n\n" + strings.Repeat("- line\n", 30)
	for _, limit := range []int{100000, 10000, 3000, 600} {
		out := claudecode.FitOutput("lead", rec, b, limit)
		if n := claudecode.Utf16Len(out); n > limit {
			t.Errorf("limit %d: %d UTF-16 units", limit, n)
		}
		if limit == 100000 {
			if !strings.Contains(out, "## Recitation") || strings.Contains(out, "(recite shortened") || !strings.Contains(out, "why zzz") || !strings.Contains(out, "a.go") {
				t.Errorf("nothing should be cut at %d:\n%s", limit, out)
			}
			continue
		}
		errs, approaches := 0, 0
		for _, s := range sigs {
			switch {
			case s.Kind == signals.KindError && strings.Contains(out, s.Text+"\n"):
				errs++
			case s.Kind == signals.KindFailedApproach && strings.Contains(out, ". "+s.Text[:12]):
				approaches++
			}
		}
		if omitted := leftOut(t, out); errs+approaches != 80-omitted {
			t.Errorf("limit %d: %d errors and %d approaches shown, the note says %d left out:\n%s", limit, errs, approaches, omitted, out)
		}
		if errs < 40 && (approaches > 0 || strings.Contains(out, "## Recitation")) {
			t.Errorf("limit %d: errors left out before the failed approaches and the recitation", limit)
		}
		if !strings.Contains(out, "(recite shortened") {
			t.Errorf("limit %d: no note", limit)
		}
	}
	// One huge error does not push out the small ones: it is shown as its
	// key line, cut at its end.
	mixed := signals.Block{Signals: []signals.Signal{
		{Kind: signals.KindError, Text: "Error: small one"},
		{Kind: signals.KindError, Text: "Error: huge " + strings.Repeat("h", 9000)},
		{Kind: signals.KindError, Text: "Error: small two"},
		{Kind: signals.KindBlocked, Text: "BLOCKED: waiting for credentials"},
	}}
	out := claudecode.FitOutput("lead", "", mixed, 2000)
	for _, want := range []string{"Error: small one\n", "Error: small two\n", "BLOCKED: waiting", "Error: huge hhhh", "h…\n", "(recite shortened 1 of 4 stop signals"} {
		if !strings.Contains(out, want) || claudecode.Utf16Len(out) > 2000 {
			t.Errorf("mixed lacks %q:\n%s", want, out)
		}
	}
	// One error (one line) longer than the limit keeps its start.
	long := signals.Block{Signals: []signals.Signal{{Kind: signals.KindError, Text: "Error: " + strings.Repeat("w", 20000)}}}
	out = claudecode.FitOutput("lead", "", long, claudecode.HookMaxOutput)
	if claudecode.Utf16Len(out) > claudecode.HookMaxOutput || !strings.Contains(out, "Error: www") || !strings.Contains(out, "w…") {
		t.Errorf("long error: %d units:\n%s", claudecode.Utf16Len(out), out)
	}
}

// TestClaudeHookOutputLimit: SessionStart never prints more than 10,000
// characters, even with a huge preserved block.
func TestClaudeHookOutputLimit(t *testing.T) {
	skipUnderRace(t)
	dir := enginetest.HookProject(t)
	for i := range 60 {
		ev := strings.Replace(evFailure, "5433", "5433 #"+strings.Repeat("n", i)+" "+strings.Repeat("payload ", 40), 1)
		hook(t, dir, "", ev, claudecode.Options{})
	}
	hook(t, dir, "", evPre, claudecode.Options{})
	out, _ := hook(t, dir, "", evStartup, claudecode.Options{})
	if n := claudecode.Utf16Len(out); n > claudecode.HookMaxOutput || n < claudecode.HookMaxOutput/2 {
		t.Errorf("SessionStart printed %d UTF-16 units, want ≤ %d and not nearly empty", n, claudecode.HookMaxOutput)
	}
	if !strings.Contains(out, "left out") {
		t.Errorf("no omission note:\n%s", out)
	}
}

func FuzzClaudeHook(f *testing.F) {
	dir := enginetest.HookProject(f)
	for _, ev := range []string{evStartup, evCompact, evPrompt, evWrite, evBash, evRead, evFailure, evInterr, evStop, evPre, evPostSm, evNotify} {
		f.Add([]byte(strings.NewReplacer("{{DIR}}", dir, "{{T}}", "").Replace(ev)))
	}
	f.Add([]byte(`{"hook_event_name":"PostToolUse","session_id":"x","tool_name":"Edit","tool_input":{"file_path":"../../../etc/passwd"}}`))
	f.Add([]byte(`{"hook_event_name":"PostToolUseFailure","session_id":"..","error":{"nested":[1,2]}}`))
	f.Add([]byte("\x00\xff"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		var out, errOut bytes.Buffer
		engine.RunClaudeHook(context.Background(), claudecode.Options{Dir: dir, Deadline: noDeadline}, bytes.NewReader(data), &out, &errOut)
		if strings.Contains(errOut.String(), "internal error") {
			t.Fatalf("panic recovered: %s", errOut.String())
		}
		if n := claudecode.Utf16Len(out.String()); n > claudecode.HookMaxOutput {
			t.Fatalf("printed %d UTF-16 units", n)
		}
	})
}

// BenchmarkClaudeHook times one hook invocation on examples/fire (the
// budget is Budget(DefaultHookTimeout), 8.5 s).
func BenchmarkClaudeHook(b *testing.B) {
	for _, bc := range []struct{ name, event string }{
		{"SessionStart", evStartup},
		{"PostToolUseBash", evBash},
		{"PostToolUseFailure", evFailure},
		{"PreCompact", evPre},
	} {
		b.Run(bc.name, func(b *testing.B) {
			dir := enginetest.HookProject(b)
			hook(b, dir, "", evFailure, claudecode.Options{})
			hook(b, dir, "", evPre, claudecode.Options{})
			ev := strings.NewReplacer("{{DIR}}", dir, "{{T}}", "").Replace(bc.event)
			for b.Loop() {
				var out, errOut bytes.Buffer
				engine.RunClaudeHook(context.Background(), claudecode.Options{}, strings.NewReader(ev), &out, &errOut)
				if errOut.Len() > 0 {
					b.Fatal(errOut.String())
				}
			}
		})
	}
}

// BenchmarkClaudeHookPreCompactBigLog times PreCompact on a session log of
// 100,000 generated records (about 26 MB) in examples/fire and, when
// ../shared/realdata is present, in a copy of norish (a 340 KB STATE.md):
// PreCompact reads only the log's tail, so the log's length does not
// count. The budget is a minute.
func BenchmarkClaudeHookPreCompactBigLog(b *testing.B) {
	projects := map[string]func(b *testing.B) string{
		"fire": func(b *testing.B) string { return enginetest.HookProject(b) },
		"norish": func(b *testing.B) string {
			src := filepath.Join(sharedtest.Realdata(b), "23492__norish")
			if _, err := os.Stat(src); err != nil {
				b.Skipf("../shared/realdata/23492__norish is absent: %v", err)
			}
			return enginetest.CopyTree(b, src)
		},
	}
	for _, name := range []string{"fire", "norish"} {
		b.Run(name, func(b *testing.B) {
			dir := projects[name](b)
			enginetest.WriteBigLog(b, dir, 100000)
			ev := strings.NewReplacer("{{DIR}}", dir, "{{T}}", "").Replace(evPre)
			for b.Loop() {
				var out, errOut bytes.Buffer
				engine.RunClaudeHook(context.Background(), claudecode.Options{Budget: time.Minute}, strings.NewReader(ev), &out, &errOut)
				if errOut.Len() > 0 {
					b.Fatal(errOut.String())
				}
			}
		})
	}
}

// ev fills a payload for session abc123 in dir with the given event and
// fields.
func ev(t testing.TB, dir, name string, fields map[string]any) string {
	t.Helper()
	m := map[string]any{"session_id": "abc123", "transcript_path": "", "cwd": dir, "permission_mode": "default", "hook_event_name": name}
	for k, v := range fields {
		m[k] = v
	}
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestClaudeHookBadConfig: a recite.yaml that does not load is named
// (file:line) on stderr and the defaults are used: PreCompact still writes
// its block, SessionStart still prints the recitation.
func TestClaudeHookBadConfig(t *testing.T) {
	dir := enginetest.HookProject(t)
	if err := os.WriteFile(filepath.Join(dir, ".planning", "recite.yaml"), []byte("context_window: 100000\nbogus_key: 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	hook(t, dir, "", evFailure, claudecode.Options{})
	_, errOut := hook(t, dir, "", evPre, claudecode.Options{})
	if !strings.Contains(errOut, ".planning/recite.yaml:2:") || !strings.Contains(errOut, "default configuration") {
		t.Errorf("PreCompact stderr %q, want the config error with file:line", errOut)
	}
	b, err := os.ReadFile(filepath.Join(dir, ".planning", "context-preserved.md"))
	if err != nil || !strings.Contains(string(b), "trigger: compaction") || !strings.Contains(string(b), "Error: connect ECONNREFUSED 127.0.0.1:5433") {
		t.Fatalf("no block written (%v):\n%s", err, b)
	}
	out, errOut := hook(t, dir, "", evStartup, claudecode.Options{})
	if !strings.Contains(out, "## Recitation") || !strings.Contains(out, "ECONNREFUSED 127.0.0.1:5433") || !strings.Contains(errOut, ".planning/recite.yaml:2:") {
		t.Errorf("SessionStart stdout:\n%s\nstderr %q", out, errOut)
	}
}

// TestClaudeHookTurns: an iteration of a hook session is one agent turn,
// so the circuit breaker sees stalls (turns without file changes) and
// spins (turns ending on the same normalised error).
func TestClaudeHookTurns(t *testing.T) {
	gsd := func(t *testing.T) string {
		return enginetest.CopyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	}
	status := func(t *testing.T, dir string) *engine.SignalsReport {
		rep, err := engine.New(dir).Status(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return rep.Signals
	}
	t.Run("questions and reads are no stall", func(t *testing.T) {
		dir := gsd(t)
		for i := range 6 {
			hook(t, dir, "", ev(t, dir, "UserPromptSubmit", map[string]any{"prompt": "what does the importer do? " + strconv.Itoa(i)}), claudecode.Options{})
			hook(t, dir, "", ev(t, dir, "PostToolUse", map[string]any{"tool_name": "Read", "tool_input": map[string]any{"file_path": "x"}, "tool_use_id": "r" + strconv.Itoa(i), "tool_response": "x"}), claudecode.Options{})
			hook(t, dir, "", ev(t, dir, "PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "git log --oneline -5 && grep -rn Import src"}, "tool_use_id": "g" + strconv.Itoa(i), "tool_response": map[string]any{"stdout": "a1 init"}}), claudecode.Options{})
			hook(t, dir, "", ev(t, dir, "Stop", map[string]any{"last_assistant_message": "The importer reads a transcript.\nIt writes records."}), claudecode.Options{})
		}
		s := status(t, dir)
		if s.Iterations != 0 || s.Health.State != signals.HealthProgress || s.Health.Breaker != signals.BreakerHealthy {
			t.Errorf("iterations %d, %s, breaker %s (%s)", s.Iterations, s.Health.State, s.Health.Breaker, s.BreakerLine)
		}
	})
	t.Run("stall", func(t *testing.T) {
		dir := gsd(t)
		for i := range 6 {
			hook(t, dir, "", ev(t, dir, "UserPromptSubmit", map[string]any{"prompt": "try again " + strconv.Itoa(i)}), claudecode.Options{})
			hook(t, dir, "", ev(t, dir, "PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./..."}, "tool_use_id": "r" + strconv.Itoa(i), "tool_response": map[string]any{"stdout": "ok  \tacme\t0.01s"}}), claudecode.Options{})
			hook(t, dir, "", ev(t, dir, "Stop", map[string]any{"last_assistant_message": "Still looking.\nNothing changed."}), claudecode.Options{})
		}
		s := status(t, dir)
		if s.Iterations != 6 || s.Health.Breaker != signals.BreakerTripped || !strings.HasPrefix(s.BreakerLine, "stall: 6/5") {
			t.Errorf("iterations %d, breaker %s (%s)", s.Iterations, s.Health.Breaker, s.BreakerLine)
		}
	})
	t.Run("spin", func(t *testing.T) {
		dir := gsd(t)
		for i := range 5 {
			hook(t, dir, "", ev(t, dir, "UserPromptSubmit", map[string]any{"prompt": "fix it"}), claudecode.Options{})
			hook(t, dir, "", ev(t, dir, "PostToolUse", map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": dir + "/src/a.go"}, "tool_use_id": "w" + strconv.Itoa(i), "tool_response": "ok"}), claudecode.Options{})
			hook(t, dir, "", ev(t, dir, "PostToolUseFailure", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "go test"}, "tool_use_id": "b" + strconv.Itoa(i), "error": "panic: boom at main.go:" + strconv.Itoa(10+i) + ":3", "is_interrupt": false}), claudecode.Options{})
			hook(t, dir, "", ev(t, dir, "Stop", map[string]any{"last_assistant_message": "Tried again."}), claudecode.Options{})
		}
		s := status(t, dir)
		if s.Iterations != 5 || s.Health.Breaker != signals.BreakerTripped || !strings.Contains(s.BreakerLine, "spin: 5/5") || !strings.HasPrefix(s.BreakerLine, "stall: 0/") {
			t.Errorf("iterations %d, breaker %s (%s)", s.Iterations, s.Health.Breaker, s.BreakerLine)
		}
		c := session(t, dir)
		if got := c.Iterations[4]; strings.Join(got.FilesModified, ",") != "src/a.go" || got.ErrorHash != signals.Hash("panic: boom at main.go:14:3") || got.OutputLines == nil || *got.OutputLines != 1 {
			t.Errorf("turn record %+v", got)
		}
	})
	t.Run("a turn without Stop is closed by the next prompt", func(t *testing.T) {
		dir := gsd(t)
		build := func(id string) string {
			return ev(t, dir, "PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}, "tool_use_id": id, "tool_response": map[string]any{"stdout": "ok"}})
		}
		hook(t, dir, "", ev(t, dir, "UserPromptSubmit", map[string]any{"prompt": "one"}), claudecode.Options{})
		hook(t, dir, "", build("m1"), claudecode.Options{})
		hook(t, dir, "", ev(t, dir, "UserPromptSubmit", map[string]any{"prompt": "two"}), claudecode.Options{})
		hook(t, dir, "", build("m2"), claudecode.Options{})
		hook(t, dir, "", ev(t, dir, "Stop", map[string]any{"last_assistant_message": "done"}), claudecode.Options{})
		if c := session(t, dir); len(c.Iterations) != 2 || *c.Iterations[0].OutputLines != -1 || *c.Iterations[1].OutputLines != 1 {
			t.Errorf("iterations %+v", c.Iterations)
		}
	})
	t.Run("parallel PostToolUse events count once", func(t *testing.T) {
		dir := enginetest.HookProject(t)
		hook(t, dir, "", evStartup, claudecode.Options{})
		if err := os.WriteFile(filepath.Join(dir, "src", "db.ts"), []byte("changed\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		for i := range 8 {
			wg.Go(func() {
				hook(t, dir, "", ev(t, dir, "PostToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "make"}, "tool_use_id": "p" + strconv.Itoa(i), "tool_response": map[string]any{"stdout": "ok"}}), claudecode.Options{})
			})
		}
		wg.Wait()
		hook(t, dir, "", ev(t, dir, "Stop", map[string]any{}), claudecode.Options{})
		c := session(t, dir)
		if len(c.Iterations) != 1 || strings.Join(c.Iterations[0].FilesModified, ",") != "src/db.ts" || c.Iterations[0].Content != "turn of 8 tool calls" || len(c.Messages) != 16 {
			t.Errorf("iterations %+v, %d messages", c.Iterations, len(c.Messages))
		}
		if _, err := os.Stat(filepath.Join(dir, ".planning", ".recite", "locks", "hook-cc-abc123.lock")); err != nil {
			t.Error(err)
		}
	})
}

// TestClaudeHookProjectDir: $CLAUDE_PROJECT_DIR (ProjectDir) wins when it
// holds .planning/, then -C (Dir), then the event's cwd.
func TestClaudeHookProjectDir(t *testing.T) {
	a, b, c := enginetest.HookProject(t), enginetest.HookProject(t), enginetest.HookProject(t)
	sub := filepath.Join(c, "src")
	tests := []struct {
		name string
		opts claudecode.Options
		cwd  string
		want string
	}{
		{"CLAUDE_PROJECT_DIR first", claudecode.Options{ProjectDir: a, Dir: b}, c, a},
		{"CLAUDE_PROJECT_DIR without .planning", claudecode.Options{ProjectDir: t.TempDir(), Dir: b}, c, b},
		{"-C before cwd", claudecode.Options{Dir: b}, c, b},
		{"cwd walking up", claudecode.Options{}, sub, c},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := ev(t, tt.cwd, "UserPromptSubmit", map[string]any{"prompt": tt.name})
			var out, errOut bytes.Buffer
			opts := tt.opts
			opts.Deadline = noDeadline
			engine.RunClaudeHook(context.Background(), opts, strings.NewReader(e), &out, &errOut)
			for _, d := range []string{a, b, c} {
				got, _ := os.ReadFile(filepath.Join(d, ".planning", "conversations", "cc-abc123.jsonl"))
				if has := strings.Contains(string(got), tt.name); has != (d == tt.want) {
					t.Errorf("%s holds the prompt: %v (stderr %s)", d, has, errOut.String())
				}
			}
		})
	}
}

// TestClaudeHookUTF16Limit: the 10,000-character cap counts UTF-16 code
// units as Claude Code (JavaScript) does: an emoji is 2.
func TestClaudeHookUTF16Limit(t *testing.T) {
	if claudecode.Utf16Len("a😀é") != 4 {
		t.Fatalf("utf16Len = %d", claudecode.Utf16Len("a😀é"))
	}
	var sigs []signals.Signal
	for i := range 30 {
		sigs = append(sigs, signals.Signal{Kind: signals.KindError, Text: "Error " + strconv.Itoa(i) + ": " + strings.Repeat("😀", 200)})
	}
	for _, limit := range []int{claudecode.HookMaxOutput, 3000, 700} {
		out := claudecode.FitOutput("lead", "", signals.Block{Signals: sigs}, limit)
		if n := claudecode.Utf16Len(out); n > limit || n < limit/2 || !utf8.ValidString(out) {
			t.Errorf("limit %d: %d UTF-16 units (%d runes)", limit, n, utf8.RuneCountInString(out))
		}
	}
	long := signals.Block{Signals: []signals.Signal{{Kind: signals.KindError, Text: strings.Repeat("😀", 20000)}}}
	if out := claudecode.FitOutput("lead", "", long, claudecode.HookMaxOutput); claudecode.Utf16Len(out) > claudecode.HookMaxOutput || !strings.Contains(out, "😀…") || !utf8.ValidString(out) {
		t.Errorf("one long error: %d units", claudecode.Utf16Len(out))
	}
	if got := signals.CutUTF16("a😀b", 2); got != "a" {
		t.Errorf("cutUTF16 split a surrogate pair: %q", got)
	}
}

// TestClaudeHookLenientDecode: a field of an unexpected type does not drop
// the event, and an oversized payload is still handled when its JSON is
// complete within the limit.
func TestClaudeHookLenientDecode(t *testing.T) {
	tests := []struct {
		name, payload string
		conv          string
		check         func(t *testing.T, c *conversation.Conversation)
	}{
		{"is_interrupt as a string", `{"session_id":"abc123","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_use_id":"t1","error":"Error: boom","is_interrupt":"false"}`, "cc-abc123",
			func(t *testing.T, c *conversation.Conversation) {
				if len(c.Messages) != 2 || !c.Messages[1].IsError || c.Messages[1].Content != "Error: boom" {
					t.Errorf("messages %+v", c.Messages)
				}
			}},
		{"is_interrupt true as a string", `{"session_id":"abc123","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_use_id":"t1","error":"stop","is_interrupt":"TRUE"}`, "cc-abc123",
			func(t *testing.T, c *conversation.Conversation) {
				if c.Messages[1].IsError || !c.Messages[1].Internal {
					t.Errorf("messages %+v", c.Messages)
				}
			}},
		{"numeric tool_use_id", `{"session_id":"abc123","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_use_id":5,"error":"Error: five"}`, "cc-abc123",
			func(t *testing.T, c *conversation.Conversation) {
				if c.Messages[1].ToolCallID != "5" || c.Messages[1].Content != "Error: five" {
					t.Errorf("messages %+v", c.Messages)
				}
			}},
		{"numeric session_id", `{"session_id":7,"hook_event_name":"UserPromptSubmit","prompt":"hi"}`, "cc-7",
			func(t *testing.T, c *conversation.Conversation) {
				if len(c.Messages) != 1 || c.Messages[0].Content != "hi" {
					t.Errorf("messages %+v", c.Messages)
				}
			}},
		{"oversized with complete JSON", `{"session_id":"abc123","hook_event_name":"UserPromptSubmit","prompt":"big"}` + strings.Repeat(" ", claudecode.HookMaxInput+10), "cc-abc123",
			func(t *testing.T, c *conversation.Conversation) {
				if len(c.Messages) != 1 || c.Messages[0].Content != "big" {
					t.Errorf("messages %+v", c.Messages)
				}
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := enginetest.HookProject(t)
			var out, errOut bytes.Buffer
			engine.RunClaudeHook(context.Background(), claudecode.Options{Dir: dir, Deadline: noDeadline}, strings.NewReader(tt.payload), &out, &errOut)
			if errOut.Len() > 0 {
				t.Fatalf("stderr %s", errOut.String())
			}
			s, _ := engine.New(dir).OpenConversations()
			c, _, err := s.Read(tt.conv)
			if err != nil {
				t.Fatal(err)
			}
			tt.check(t, c)
		})
	}
	// Cut off within the limit: a message, exit 0, nothing recorded.
	dir := enginetest.HookProject(t)
	var out, errOut bytes.Buffer
	big := `{"session_id":"abc123","hook_event_name":"UserPromptSubmit","prompt":"` + strings.Repeat("x", claudecode.HookMaxInput+10) + `"}`
	engine.RunClaudeHook(context.Background(), claudecode.Options{Dir: dir, Deadline: noDeadline}, strings.NewReader(big), &out, &errOut)
	if !strings.Contains(errOut.String(), "incomplete") {
		t.Errorf("stderr %q", errOut.String())
	}
}

// TestClaudeHookGitignore: the hook's state folder gets the .gitignore
// that keeps it out of git, as a build's does.
func TestClaudeHookGitignore(t *testing.T) {
	dir := enginetest.HookProject(t)
	if err := os.RemoveAll(filepath.Join(dir, ".planning", ".recite")); err != nil {
		t.Fatal(err)
	}
	hook(t, dir, "", evStartup, claudecode.Options{})
	hook(t, dir, "", evBash, claudecode.Options{})
	got, err := os.ReadFile(filepath.Join(dir, ".planning", ".recite", ".gitignore"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := templates.Init("prompts.gitignore", "")
	if err != nil || string(got) != want {
		t.Errorf(".gitignore %q, want %q (%v)", got, want, err)
	}
}

// TestTranscriptLongLine: a transcript of one endless line costs bounded
// memory, and a device is not read.
func TestTranscriptLongLine(t *testing.T) {
	if _, ok := claudecode.TranscriptCompactSummary(context.Background(), "/dev/zero"); ok {
		t.Error("/dev/zero has a summary")
	}
	p := filepath.Join(t.TempDir(), "t.jsonl")
	line := append([]byte(`{"type":"user","isCompactSummary":true,"message":{"role":"user","content":"`), bytes.Repeat([]byte("z"), 40<<20)...)
	if err := os.WriteFile(p, line, 0o644); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, ok := claudecode.TranscriptCompactSummary(context.Background(), p)
	runtime.ReadMemStats(&after)
	if ok {
		t.Error("a 40 MiB line was kept")
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 12<<20 {
		t.Errorf("scanning a 40 MiB line allocated %d MiB", got>>20)
	}
}

// TestClaudeHookRedactsSecrets: a secret in a
// planning file or a tool error never reaches context-preserved.md (which
// is committed), the hook's records (committed too), the hook's output
// (SessionStart startup and compact) or `recite verify`'s result; each
// place holds the project's deterministic placeholder instead.
func TestClaudeHookRedactsSecrets(t *testing.T) {
	dir := enginetest.SecretProject(t)
	ctx := context.Background()
	hook(t, dir, "", ev(t, dir, "PostToolUseFailure", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_s1",
		"tool_input": map[string]any{"command": "curl -u " + enginetest.TestSecret + ": https://api.stripe.com/v1/charges"},
		"error":      "Error: authentication failed for key " + enginetest.TestSecret}), claudecode.Options{})
	if _, err := engine.New(dir).Preserve(ctx, engine.PreserveOptions{}); err != nil {
		t.Fatal(err)
	}
	hook(t, dir, "", ev(t, dir, "PreCompact", map[string]any{"trigger": "auto"}), claudecode.Options{})
	hook(t, dir, "", ev(t, dir, "PostCompact", map[string]any{"trigger": "auto", "compact_summary": "Some things happened."}), claudecode.Options{})

	preserved, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(engine.PreservedFile)))
	if err != nil {
		t.Fatal(err)
	}
	enginetest.NoSecret(t, engine.PreservedFile, string(preserved))
	if !strings.Contains(string(preserved), "(key ⟨secret:stripe-access-token:") {
		t.Errorf("%s lacks the placeholder:\n%s", engine.PreservedFile, preserved)
	}
	logs, _ := filepath.Glob(filepath.Join(dir, ".planning", "conversations", "*.jsonl"))
	if len(logs) == 0 {
		t.Fatal("the hook wrote no conversation")
	}
	for _, l := range logs {
		b, err := os.ReadFile(l)
		if err != nil {
			t.Fatal(err)
		}
		enginetest.NoSecret(t, l, string(b))
	}
	c := session(t, dir)
	var recorded string
	for _, r := range c.Messages {
		if r.IsError {
			recorded = r.Content
		}
	}
	if !strings.HasPrefix(recorded, "Error: authentication failed for key ⟨secret:stripe-access-token:") {
		t.Errorf("recorded tool error %q", recorded)
	}

	outStart, _ := hook(t, dir, "", ev(t, dir, "SessionStart", map[string]any{"source": "startup"}), claudecode.Options{})
	outCompact, _ := hook(t, dir, "", ev(t, dir, "SessionStart", map[string]any{"source": "compact"}), claudecode.Options{})
	// Without PostCompact's state: the whole latest block.
	if err := os.Remove(filepath.Join(dir, filepath.FromSlash(claudecode.HookStateDir), "cc-abc123.compact.json")); err != nil {
		t.Fatal(err)
	}
	outWhole, _ := hook(t, dir, "", ev(t, dir, "SessionStart", map[string]any{"source": "compact"}), claudecode.Options{})
	for name, out := range map[string]string{"startup": outStart, "compact": outCompact, "compact without state": outWhole} {
		enginetest.NoSecret(t, "SessionStart "+name, out)
		if !strings.Contains(out, "⟨secret:stripe-access-token:") || !strings.Contains(out, "Redirect test fails (key ⟨secret:") {
			t.Errorf("SessionStart %s: the signals are not there, redacted:\n%s", name, out)
		}
	}
	if !strings.Contains(outCompact, "authentication failed for key ⟨secret:") {
		t.Errorf("SessionStart compact lost the tool error:\n%s", outCompact)
	}

	// A block written raw (by a recite before this fix) is redacted on
	// the way out.
	raw := signals.Block{Timestamp: time.Now().UTC().Add(time.Hour), Trigger: signals.TriggerManual,
		Signals: []signals.Signal{{Kind: signals.KindError, Text: "Error: old block with " + enginetest.TestSecret}}, Task: "rotate " + enginetest.TestSecret}
	if err := signals.AppendBlock(ctx, filepath.Join(dir, filepath.FromSlash(engine.PreservedFile)), raw); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"startup", "compact"} {
		out, _ := hook(t, dir, "", ev(t, dir, "SessionStart", map[string]any{"source": src}), claudecode.Options{})
		enginetest.NoSecret(t, "SessionStart "+src+" of a raw block", out)
		if !strings.Contains(out, "Error: old block with ⟨secret:") {
			t.Errorf("SessionStart %s of a raw block:\n%s", src, out)
		}
	}
	res, err := engine.New(dir).Verify(ctx, "Some things happened.", engine.VerifyOptions{FromBlock: true})
	if err != nil {
		t.Fatal(err)
	}
	enginetest.NoSecret(t, "verify --from-block", res.Reinject)
	for _, s := range res.Lost {
		enginetest.NoSecret(t, "verify --from-block lost signal", s.Text)
	}
	if len(res.Lost) != 1 || !strings.Contains(res.Reinject, "old block with ⟨secret:") {
		t.Errorf("verify --from-block of a raw block: %d lost:\n%s", len(res.Lost), res.Reinject)
	}
}

// TestClaudeHookLongErrorsShortened: three errors
// each longer than the 10,000-character cap, lost by a smoothed summary,
// all come back after the compaction, shortened to head and tail with
// their last line (the exception and its marker) and a visible omission
// marker, instead of being left out.
func TestClaudeHookLongErrorsShortened(t *testing.T) {
	dir := enginetest.CopyTree(t, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	traceback := func(m int) string {
		var sb strings.Builder
		sb.WriteString("Traceback (most recent call last):\n")
		for i := 0; sb.Len() < 35000; i++ {
			fmt.Fprintf(&sb, "  File \"/app/src/module_%d.py\", line %d, in function_%d\n    result = compute_value_%d(argument_%d, other=%d)\n", i, i+10, i, i, i, i)
		}
		fmt.Fprintf(&sb, "ValueError: invalid value MARKER-%d-END", m)
		return sb.String()
	}
	for m := 1; m <= 3; m++ {
		hook(t, dir, "", ev(t, dir, "PostToolUseFailure", map[string]any{"tool_name": "Bash", "tool_use_id": "toolu_" + strconv.Itoa(m),
			"tool_input": map[string]any{"command": "python run.py"}, "error": traceback(m)}), claudecode.Options{})
	}
	hook(t, dir, "", ev(t, dir, "Stop", map[string]any{"last_assistant_message": "done"}), claudecode.Options{})
	hook(t, dir, "", ev(t, dir, "PreCompact", map[string]any{"trigger": "auto"}), claudecode.Options{})
	hook(t, dir, "", ev(t, dir, "PostCompact", map[string]any{"trigger": "auto", "compact_summary": "Some python errors happened."}), claudecode.Options{})
	out, errOut := hook(t, dir, "", ev(t, dir, "SessionStart", map[string]any{"source": "compact"}), claudecode.Options{})
	if n := claudecode.Utf16Len(out); n > claudecode.HookMaxOutput || n < claudecode.HookMaxOutput*3/4 {
		t.Errorf("printed %d UTF-16 units, want at most %d and most of it used", n, claudecode.HookMaxOutput)
	}
	for m := 1; m <= 3; m++ {
		if !strings.Contains(out, fmt.Sprintf("ValueError: invalid value MARKER-%d-END\n", m)) {
			t.Errorf("error %d does not come back with its last line", m)
		}
	}
	if c := strings.Count(out, " lines omitted⟩"); c != 3 || !strings.Contains(out, "Traceback (most recent call last):\n  File \"/app/src/module_0.py\"") {
		t.Errorf("%d omission markers, or the heads are missing", c)
	}
	if strings.Contains(out, "left out") {
		t.Errorf("errors left out:\n%s\nstderr: %s", out, errOut)
	}
}

// readPreserved parses the preservation blocks of dir's
// context-preserved.md.
func readPreserved(dir string) ([]signals.Block, error) {
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(engine.PreservedFile)))
	if err != nil {
		return nil, err
	}
	blocks, _ := signals.ParseBlocks(engine.PreservedFile, b)
	return blocks, nil
}

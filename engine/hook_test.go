package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine/claudecode"
	"github.com/recite-dev/recite/engine/health"
	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/planning/conversation"
)

// Hook event payloads (as in engine/claudecode's tests) for the engine
// tests that drive the Claude Code hook.
const (
	evFailure = `{"session_id":"abc123","transcript_path":"{{T}}","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"npm test","description":"Run test suite"},"tool_use_id":"toolu_04","error":"Command exited with non-zero status code 1\nError: connect ECONNREFUSED 127.0.0.1:5433\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)","is_interrupt":false}`
	evPre     = `{"session_id":"abc123","transcript_path":"{{T}}","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"PreCompact","trigger":"manual","custom_instructions":""}`
)

// hook runs one event (a template above) in dir and returns stdout and
// stderr.
func hook(t testing.TB, dir, transcript, event string, opts HookOptions) (string, string) {
	t.Helper()
	ev := strings.NewReplacer("{{DIR}}", dir, "{{T}}", transcript).Replace(event)
	if !json.Valid([]byte(ev)) {
		t.Fatalf("test payload is not JSON: %s", ev)
	}
	if opts.Deadline == nil {
		opts.Deadline = noDeadline
	}
	var out, errOut bytes.Buffer
	RunClaudeHook(context.Background(), opts, strings.NewReader(ev), &out, &errOut)
	return out.String(), errOut.String()
}

// noDeadline is a HookOptions.Deadline that never ends, for the tests
// that are not about the deadline: none depends on the machine's speed.
func noDeadline(ctx context.Context, _ time.Duration) (context.Context, context.CancelFunc) {
	return context.WithCancel(ctx)
}

// TestPreserveLenientPastDeadline: the hook's Preserve, out of time
// before the block is complete, writes no block: the previous block stays
// the latest, byte for byte, and a diagnostic says so
// (docs/architecture.md#hook-deadline).
func TestPreserveLenientPastDeadline(t *testing.T) {
	dir := enginetest.HookProject(t)
	hook(t, dir, "", evFailure, HookOptions{})
	hk := hookEngine{New(dir)}
	if _, err := hk.PreserveCompaction(context.Background(), []string{"cc-abc123"}, nil, claudecode.HookTail); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, ".planning", "context-preserved.md")
	before, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(before), "Error: connect ECONNREFUSED 127.0.0.1:5433") {
		t.Fatalf("first block: %v\n%s", err, before)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	diags, err := hk.PreserveCompaction(ctx, []string{"cc-abc123"}, nil, claudecode.HookTail)
	if err != nil {
		t.Fatal(err)
	}
	said := false
	for _, d := range diags {
		said = said || strings.Contains(d.Message, "no block written, the previous one stays")
	}
	after, _ := os.ReadFile(path)
	if !said || !bytes.Equal(before, after) {
		t.Errorf("diagnostics %v; file changed:\n%s", diags, after)
	}
	// The strict Preserve (recite preserve) fails instead.
	if _, err := New(dir).Preserve(ctx, PreserveOptions{}); !errors.Is(err, context.Canceled) {
		t.Errorf("Preserve past its deadline = %v, want context.Canceled", err)
	}
}

// TestTailConversation: the tail of a long log holds the last n messages
// and the iteration records among them, in read order, and counts what
// lies before; a log within the window is read whole.
func TestTailConversation(t *testing.T) {
	dir := enginetest.HookProject(t)
	enginetest.WriteBigLog(t, dir, 20000)
	store, err := New(dir).OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	full, _, err := store.Read("cc-abc123")
	if err != nil {
		t.Fatal(err)
	}
	c, diags, err := health.ConversationWindow(context.Background(), store, "cc-abc123", 100)
	if err != nil || len(diags) != 0 {
		t.Fatal(err, diags)
	}
	if len(c.Messages) != 100 || c.Messages[99].ID != full.Messages[len(full.Messages)-1].ID || c.Messages[0].ID != full.Messages[len(full.Messages)-100].ID {
		t.Errorf("%d messages, first %s last %s", len(c.Messages), c.Messages[0].ID, c.Messages[len(c.Messages)-1].ID)
	}
	if len(c.Iterations) != 25 || c.Iterations[24].ID != full.Iterations[len(full.Iterations)-1].ID {
		t.Errorf("%d iterations", len(c.Iterations))
	}
	if c.Earlier.Messages != len(full.Messages)-100 || c.Earlier.Iterations != len(full.Iterations)-25 {
		t.Errorf("earlier %+v, want %d messages and %d iterations", c.Earlier, len(full.Messages)-100, len(full.Iterations)-25)
	}
	small, _, err := health.ConversationWindow(context.Background(), store, "cc-abc123", 1<<30)
	if err != nil || len(small.Messages) != len(full.Messages) || small.Earlier != (conversation.Earlier{}) {
		t.Errorf("a log within the window is read whole: %d messages, %v", len(small.Messages), err)
	}
	// PreCompact on the long log keeps the newest errors.
	hook(t, dir, "", evPre, HookOptions{})
	blocks, _, _ := New(dir).readPreserved()
	if len(blocks) != 1 || !strings.Contains(signals.RenderBlock(blocks[0]), "ECONNREFUSED") {
		t.Errorf("blocks %+v", blocks)
	}
}

// TestVerifyRedactedSecrets: a lost error holding
// a secret is reported redacted, and a summary keeps it whether it quotes
// the raw error (written from the raw conversation) or the redacted one
// (written from recite's context).
func TestVerifyRedactedSecrets(t *testing.T) {
	dir := enginetest.SecretProject(t)
	ctx := context.Background()
	e := New(dir)
	store, err := e.OpenConversations()
	if err != nil {
		t.Fatal(err)
	}
	// An imported log stays raw (conversation logs are the raw record).
	if err := store.Create(ctx, "imp", conversation.Meta{}); err != nil {
		t.Fatal(err)
	}
	rawErr := "Error: authentication failed for key " + enginetest.TestSecret
	if err := store.Append(ctx, "imp",
		conversation.Record{Kind: conversation.KindMessage, Role: conversation.RoleAssistant, ToolCalls: []conversation.ToolCall{{ID: "c1", Name: "Bash", Arguments: "{}"}}},
		conversation.Record{Kind: conversation.KindMessage, Role: conversation.RoleTool, ToolCallID: "c1", ToolName: "Bash", IsError: true, Content: rawErr}); err != nil {
		t.Fatal(err)
	}
	opts := VerifyOptions{Conversations: []string{"imp"}}
	lost, err := e.Verify(ctx, "Some things happened.", opts)
	if err != nil {
		t.Fatal(err)
	}
	var redErr, redBlocked string
	for _, s := range lost.Lost {
		enginetest.NoSecret(t, "lost signal", s.Text+s.Detail+s.ID)
		switch {
		case s.Kind == signals.KindError && strings.Contains(s.Text, "authentication failed"):
			redErr = s.Text
		case strings.Contains(s.Text, "Redirect test fails"):
			redBlocked = s.Text
		}
	}
	enginetest.NoSecret(t, "re-inject block", lost.Reinject)
	if !strings.Contains(redErr, "⟨secret:stripe-access-token:") || !strings.Contains(redBlocked, "⟨secret:stripe-access-token:") {
		t.Fatalf("lost signals not reported redacted: error %q, blocked %q", redErr, redBlocked)
	}
	for name, summary := range map[string]string{
		"raw":      "We hit `" + rawErr + "` and the blocker: Redirect test fails (key " + enginetest.TestSecret + ") with 404 for a slug that was just created — debugging in debug/redirect-returns-404.md.",
		"redacted": "We hit `" + redErr + "` and the blocker: " + redBlocked + ".",
	} {
		res, err := e.Verify(ctx, summary, opts)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Lost) != len(lost.Lost)-2 {
			t.Errorf("%s summary: %d lost, want %d (the error and the blocker kept)", name, len(res.Lost), len(lost.Lost)-2)
		}
		for _, s := range res.Lost {
			if strings.Contains(s.Text, "authentication failed") || strings.Contains(s.Text, "Redirect test fails") {
				t.Errorf("%s summary: reported lost although kept: %s", name, s.Text)
			}
		}
	}
}

// TestInitClaudeInputError: a settings file recite cannot merge into is an
// *InputError for the CLI (exit 2), with claudecode's message, and the file
// is left as it was.
func TestInitClaudeInputError(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	const src = `{"hooks": []}`
	if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := InitClaude(dir, ClaudeOptions{})
	var ie *InputError
	if !errors.As(err, &ie) || err.Error() != `.claude/settings.json: "hooks": not a JSON object (left unchanged)` {
		t.Errorf("err = %v (%T), want an *InputError naming the file", err, err)
	}
	if b, _ := os.ReadFile(path); string(b) != src {
		t.Errorf("file changed to %q", b)
	}
	if res, err := InitClaude(dir+"/new", ClaudeOptions{}); err != nil || !res.Created || len(res.Added) != len(ClaudeHookEvents) {
		t.Errorf("InitClaude on a new project: %+v, %v", res, err)
	}
}

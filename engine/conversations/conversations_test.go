package conversations_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/conversations"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// dirHost is a Host over a real project folder: the real store and
// recite.yaml, a prompt assembled from the target's name and conversation
// (the engine's assembly is tested in package engine), and a redaction of
// one known secret.
type dirHost struct {
	dir    string
	builds int
}

const secret = "sk-test-0123456789"

func redact(text string) (string, int) {
	n := strings.Count(text, secret)
	return strings.ReplaceAll(text, secret, "⟨secret⟩"), n
}

func (h *dirHost) Dir() string { return h.dir }
func (h *dirHost) Store() (*conversation.Store, error) {
	s, err := conversation.Open(filepath.Join(h.dir, layout.ConversationsDir))
	if err == nil {
		s.Redact = redact
	}
	return s, err
}
func (h *dirHost) RedactLog(text string) (string, int) { return redact(text) }
func (h *dirHost) RedactText(text string) string       { out, _ := redact(text); return out }
func (h *dirHost) Load() (*config.Config, *planning.Project, error) {
	cfg, _, err := config.Load(h.dir)
	if err != nil {
		return nil, nil, err
	}
	proj, err := planning.Load(os.DirFS(filepath.Join(h.dir, ".planning")))
	return cfg, proj, err
}
func (h *dirHost) Build(context.Context) ([]markdown.Diagnostic, error) { h.builds++; return nil, nil }
func (h *dirHost) Assemble(_ context.Context, _ *config.Config, tg *config.Target, _ *planning.Project) (*prompt.Prompt, []markdown.Diagnostic) {
	p := &prompt.Prompt{Target: tg.Name}
	p.Add(prompt.Section{ID: "task", Heading: "Task", Body: "conversation " + tg.Conversation})
	return p, nil
}
func (h *dirHost) Progress(r io.Reader, _ string, _ int64) io.Reader { return r }

func project(t *testing.T, yaml string) *dirHost {
	t.Helper()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".planning"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, config.FileName), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return &dirHost{dir: dir}
}

// TestNewNeedsPlanning: without a .planning folder the coordinator is an
// *InputError naming `recite init`, and nothing is created.
func TestNewNeedsPlanning(t *testing.T) {
	dir := t.TempDir()
	_, err := conversations.New(&dirHost{dir: dir})
	var ie *conversations.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "recite init") {
		t.Fatalf("New = %v, want an *InputError naming recite init", err)
	}
	if _, err := os.Stat(filepath.Join(dir, ".planning")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf(".planning created: %v", err)
	}
}

// TestRunAdHoc runs one turn through the Host alone: the agent reads the
// ad-hoc prompt on stdin, its reply and the iteration record are logged,
// no build runs (no target names the conversation), and a failed run's
// error is recorded redacted and returned as *AgentError.
func TestRunAdHoc(t *testing.T) {
	ctx := context.Background()
	h := project(t, "agent:\n  command: \"cat; test -z \\\"$FAIL\\\" || { echo "+secret+" >&2; exit 3; }\"\n")
	cs, err := conversations.New(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.Create(ctx, "c1", conversation.Meta{AgentType: "dev"}); err != nil {
		t.Fatal(err)
	}
	res, err := cs.Run(ctx, conversations.RunOptions{ID: "c1", Text: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.AdHoc || res.PromptFile != conversations.AdHocPromptDir+"/c1.md" || res.Iteration != 1 || res.ExitCode != 0 {
		t.Errorf("result = %+v", res)
	}
	body, err := os.ReadFile(filepath.Join(h.dir, filepath.FromSlash(res.PromptFile)))
	if err != nil || !strings.Contains(string(body), "conversation c1") || res.Reply != strings.TrimSpace(string(body)) {
		t.Errorf("reply %q, prompt file %q (%v)", res.Reply, body, err)
	}
	if h.builds != 0 {
		t.Errorf("%d builds for an ad-hoc turn", h.builds)
	}

	t.Setenv("FAIL", "1")
	_, err = cs.Run(ctx, conversations.RunOptions{ID: "c1", Text: "again"})
	var ae *conversations.AgentError
	if !errors.As(err, &ae) || ae.Conversation != "c1" {
		t.Fatalf("failed run = %v, want *AgentError", err)
	}
	conv, _, err := cs.Read("c1")
	if err != nil {
		t.Fatal(err)
	}
	if len(conv.Messages) != 4 || len(conv.Iterations) != 2 {
		t.Fatalf("%d messages, %d iterations; want 4, 2", len(conv.Messages), len(conv.Iterations))
	}
	last := conv.Messages[3]
	if !last.IsError || last.Iteration != 2 || strings.Contains(last.Content, secret) || !strings.Contains(last.Content, "⟨secret⟩") {
		t.Errorf("error record = %+v", last)
	}
	raw, err := os.ReadFile(filepath.Join(h.dir, filepath.FromSlash(layout.ConversationLog("c1"))))
	if err != nil || bytes.Contains(raw, []byte(secret)) {
		t.Errorf("log holds the secret (%v)", err)
	}
}

// TestRunNeedsAgentCommand: without agent.command nothing is appended.
func TestRunNeedsAgentCommand(t *testing.T) {
	ctx := context.Background()
	h := project(t, "targets:\n  - name: dev\n")
	cs, err := conversations.New(h)
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.Create(ctx, "c1", conversation.Meta{}); err != nil {
		t.Fatal(err)
	}
	_, err = cs.Run(ctx, conversations.RunOptions{ID: "c1", Text: "hello"})
	var ie *conversations.InputError
	if !errors.As(err, &ie) || !strings.Contains(err.Error(), "agent.command") {
		t.Fatalf("Run = %v, want an *InputError naming agent.command", err)
	}
	conv, _, err := cs.Read("c1")
	if err != nil || len(conv.Messages) != 0 {
		t.Errorf("messages after a refused run: %v (%v)", conv, err)
	}
}

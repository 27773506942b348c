package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/engine/internal/gitstore/gittest"
	"github.com/recite-dev/recite/engine/internal/redact/redacttest"
)

// TestSecretFormsNeverLeave sends every secret form of the rules' corpus
// (redacttest.Forms, those not bound to a file name) through a Claude
// Code session — in the prompt, in a tool call's input (a JSON string,
// quotes escaped), in its output, in a failed tool's error and in the
// agent's reply — then compacts, starts a session, builds and commits:
// none reaches the hook's output, a prompt file or git, and the commit's
// own secret scan finds nothing left to refuse.
func TestSecretFormsNeverLeave(t *testing.T) {
	ctx := context.Background()
	dir := enginetest.HookProject(t)
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	var secrets []string
	var hookOut bytes.Buffer
	run := func(ev map[string]any) {
		ev["session_id"], ev["cwd"], ev["transcript_path"] = "forms", dir, filepath.Join(dir, "none.jsonl")
		b, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		var errOut bytes.Buffer
		RunClaudeHook(ctx, HookOptions{Deadline: func(ctx context.Context, _ time.Duration) (context.Context, context.CancelFunc) {
			return context.WithCancel(ctx)
		}}, bytes.NewReader(b), &hookOut, &errOut)
		hookOut.WriteString(errOut.String())
	}
	forms := 0
	for _, f := range redacttest.Forms() {
		if f.Path != "" {
			continue // a rule of one kind of file (.env values)
		}
		forms++
		secrets = append(secrets, f.Secrets...)
		run(map[string]any{"hook_event_name": "UserPromptSubmit", "prompt": f.Text})
		run(map[string]any{"hook_event_name": "PostToolUse", "tool_name": "Bash", "tool_use_id": "toolu_1",
			"tool_input": map[string]any{"command": "echo " + f.Text}, "tool_response": map[string]any{"stdout": f.Text, "stderr": ""}})
		run(map[string]any{"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_use_id": "toolu_2",
			"tool_input": map[string]any{"command": "deploy"}, "error": "Error: " + f.Text})
		run(map[string]any{"hook_event_name": "Stop", "stop_hook_active": false, "last_assistant_message": "done: " + f.Text})
	}
	if forms < 40 {
		t.Fatalf("%d secret forms, want at least 40", forms)
	}
	run(map[string]any{"hook_event_name": "PreCompact", "trigger": "manual", "custom_instructions": ""})
	run(map[string]any{"hook_event_name": "SessionStart", "source": "compact"})
	run(map[string]any{"hook_event_name": "SessionStart", "source": "startup"})
	e := New(dir)
	if _, err := e.Build(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := e.Commit(ctx, CommitOptions{})
	if err != nil || res.Hash == "" {
		t.Fatalf("commit = %+v, %v", res, err)
	}

	leak := func(what string, b []byte) {
		for _, s := range secrets {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s holds the secret %q", what, s)
			}
		}
	}
	leak("the hook's output", hookOut.Bytes())
	_ = filepath.WalkDir(filepath.Join(dir, ".planning", "prompts"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			leak(p, b)
		}
		return nil
	})
	_, head := gittest.HeadCommit(t, dir)
	files, err := head.Files()
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	_ = files.ForEach(func(f *object.File) error {
		c, err := f.Contents()
		if err != nil {
			return err
		}
		if strings.HasPrefix(f.Name, ".planning/conversations/") {
			n++
		}
		leak("git: "+f.Name, []byte(c))
		return nil
	})
	if n == 0 {
		t.Error("the session's log was not committed")
	}
}

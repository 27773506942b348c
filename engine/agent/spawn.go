package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/textutil"
)

// PromptFilePlaceholder in agent.command is replaced by the prompt file's
// path; without it the prompt goes to the command's stdin.
const PromptFilePlaceholder = "{prompt_file}"

// Command is one run of recite.yaml's agent.command.
type Command struct {
	// Dir is the project directory, where the command runs.
	Dir string
	// Agent is the configured agent: its command (run through `sh -c`)
	// and its timeout.
	Agent config.Agent
	// Conversation and Target name the run, for the command's
	// environment (RECITE_CONVERSATION, RECITE_TARGET).
	Conversation, Target string
	// PromptFile is the project-relative path of the prompt the agent
	// reads; Body is its content, written to stdin when the command does
	// not name {prompt_file}.
	PromptFile string
	Body       []byte
	// Stderr receives the command's stderr as it runs; nil discards it.
	Stderr io.Writer
}

// Spawn runs the agent command once and returns its stdout (trailing
// newlines trimmed) and exit code (-1 when it did not exit), and for a
// failed run (non-zero exit, timeout, interruption) also an error whose
// text is what gets recorded: the failure, the last 20 lines of stderr
// and the stdout. The stdout is returned for a failed run too, so the
// iteration record counts the lines the agent printed before it failed.
// `{prompt_file}` in the command is replaced by the prompt file's absolute
// path (shell-quoted); the command also gets RECITE_CONVERSATION,
// RECITE_TARGET and RECITE_PROMPT_FILE in its environment. On Unix it runs
// in its own process group, killed whole on cancellation.
func Spawn(ctx context.Context, c Command) (string, int, error) {
	abs, err := filepath.Abs(filepath.Join(c.Dir, filepath.FromSlash(c.PromptFile)))
	if err != nil {
		return "", -1, err
	}
	command := c.Agent.Command
	usesFile := strings.Contains(command, PromptFilePlaceholder)
	command = strings.ReplaceAll(command, PromptFilePlaceholder, shellQuote(abs))
	timeout := time.Duration(c.Agent.Timeout)
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, "sh", "-c", command)
	cmd.Dir = c.Dir
	cmd.Env = append(os.Environ(), "RECITE_CONVERSATION="+c.Conversation, "RECITE_TARGET="+c.Target, "RECITE_PROMPT_FILE="+abs)
	if !usesFile {
		cmd.Stdin = bytes.NewReader(c.Body)
	}
	var out, errTail bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errTail
	if c.Stderr != nil {
		cmd.Stderr = io.MultiWriter(&errTail, c.Stderr)
	}
	setProcessGroup(cmd)
	cmd.WaitDelay = 2 * time.Second
	err = cmd.Run()
	code := -1
	if cmd.ProcessState != nil {
		code = cmd.ProcessState.ExitCode()
	}
	if err == nil {
		return strings.TrimRight(out.String(), "\n"), code, nil
	}
	var msg string
	switch {
	case errors.Is(runCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil:
		msg = fmt.Sprintf("agent command timed out after %s: %s", timeout, c.Agent.Command)
	case ctx.Err() != nil:
		msg = fmt.Sprintf("agent command interrupted: %s", c.Agent.Command)
	default:
		msg = fmt.Sprintf("agent command failed (%v): %s", err, c.Agent.Command)
	}
	if t := strings.TrimSpace(textutil.LastLines(errTail.String(), 20)); t != "" {
		msg += "\nstderr:\n" + t
	}
	if t := strings.TrimSpace(out.String()); t != "" {
		msg += "\nstdout:\n" + t
	}
	return strings.TrimRight(out.String(), "\n"), code, errors.New(msg)
}

// shellQuote quotes s for sh when it holds anything but safe characters.
func shellQuote(s string) string {
	safe := true
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+,:@%", r)) {
			safe = false
			break
		}
	}
	if safe && s != "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

package engine

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

	"github.com/recite-dev/recite/internal/fsutil"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/internal/gitstore"
	"github.com/recite-dev/recite/engine/internal/textutil"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/planning/conversation"
)

// AdHocPromptDir holds the prompt files of conversations no target names:
// `recite conversation run` renders the first target with its conversation
// set to the run's id and writes the markdown prompt to ID.md here (under
// .recite/, out of git).
const AdHocPromptDir = ".planning/.recite/conversations"

// promptFilePlaceholder in agent.command is replaced by the prompt file's
// path; without it the prompt goes to the command's stdin.
const promptFilePlaceholder = "{prompt_file}"

// RunOptions are the inputs of one conversation turn.
type RunOptions struct {
	// ID is the conversation.
	ID string
	// Text is the user message.
	Text string
	// Stderr receives the agent command's stderr as it runs; nil discards
	// it.
	Stderr io.Writer
}

// RunResult is the outcome of one conversation turn.
type RunResult struct {
	// Target is the target whose prompt the agent read; AdHoc is true when
	// no target names the conversation and the first target was rendered
	// with it.
	Target string `json:"target"`
	AdHoc  bool   `json:"ad_hoc,omitempty"`
	// PromptFile is the project-relative path of the prompt the agent read.
	PromptFile string `json:"prompt_file"`
	// Reply is the agent's stdout, recorded as the assistant message.
	Reply string `json:"reply"`
	// ExitCode is the agent command's exit code (-1 when it did not exit).
	ExitCode int `json:"exit_code"`
	// Iteration is the iteration this run recorded (1 for the first run of
	// a conversation).
	Iteration int `json:"iteration"`
	// FilesModified are the project files the run changed, as git status
	// saw them before and after it, plus the files of the commits the run
	// made (HEAD before the run against HEAD after it); none outside a git
	// repository.
	FilesModified []string `json:"files_modified,omitempty"`
	// Diagnostics are the build's diagnostics.
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
}

// AgentError is a failed agent run (non-zero exit, timeout): the failure is
// recorded in the conversation as an error message and returned.
type AgentError struct {
	// Conversation is the conversation id; Message the error record's text.
	Conversation string
	Message      string
}

func (e *AgentError) Error() string { return e.Message }

// RunConversation is one turn of the conversation coordinator (seeds/000
// handleMessage): it appends opts.Text as a user message, regenerates the
// prompt that carries the conversation, runs recite.yaml's agent.command
// through `sh -c` in the project directory under agent.timeout, and records
// the command's stdout as the assistant message (agent: the conversation's
// agent type).
//
// The prompt is the markdown prompt (else the first provider's file) of the
// first target whose `conversation:` is opts.ID, after a full Build. When no
// target names the conversation, the first target is rendered with its
// conversation set to opts.ID, and its markdown prompt is written to
// AdHocPromptDir/ID.md; the configured prompt files are not touched.
//
// `{prompt_file}` in the command is replaced by the prompt file's absolute
// path (shell-quoted); without it the prompt is written to stdin. The
// command also gets RECITE_CONVERSATION, RECITE_TARGET and
// RECITE_PROMPT_FILE in its environment. A non-zero exit or a timeout is
// recorded as an assistant message with is_error (its text: the failure,
// the last lines of stderr, and any stdout) and returned as *AgentError.
// A missing agent.command, conversation or invalid id is an *InputError, and
// nothing is appended.
//
// Each run is one iteration of the conversation (numbered after its last
// iteration record): the user message and the reply carry its number, and
// with the reply the run appends an iteration record (KindIteration) with
// the files the run modified (git status before and after, and the files
// the commits made during the run changed, when the project is in a git
// repository), the lines the agent printed, its exit code and,
// for a failed run, the error and its hash. The loop and role layer of the
// next prompt reads it ("iteration N of M", what failed), and so does the
// circuit breaker.
func (e *Engine) RunConversation(ctx context.Context, opts RunOptions) (*RunResult, error) {
	cfg, _, proj, err := e.load()
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(cfg.Agent.Command) == "" {
		return nil, &InputError{Err: fmt.Errorf("%s: agent.command is not set: recite conversation run needs the agent command to spawn", config.FileName)}
	}
	store, err := e.OpenConversations()
	if err != nil {
		return nil, err
	}
	c, _, err := store.Read(opts.ID)
	if err != nil {
		return nil, &InputError{Err: err}
	}
	iter := nextIteration(c)
	if err := store.Append(ctx, opts.ID, conversation.Record{Role: conversation.RoleUser, Content: opts.Text, Iteration: iter}); err != nil {
		return nil, err
	}
	res := &RunResult{ExitCode: -1, Iteration: iter}

	var body []byte
	var tg *config.Target
	for i := range cfg.Targets {
		if cfg.Targets[i].Conversation == opts.ID {
			tg = &cfg.Targets[i]
			break
		}
	}
	if tg != nil {
		rep, err := e.Build(ctx)
		if err != nil {
			return nil, err
		}
		res.Diagnostics = rep.Diagnostics
		res.Target = tg.Name
		provider := tg.Providers[0]
		for _, p := range tg.Providers {
			if p == prompt.Markdown {
				provider = p
			}
		}
		caps, _ := prompt.CapabilitiesOf(provider)
		res.PromptFile = PromptsDir + "/" + tg.Name + caps.Ext
		if body, err = os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(res.PromptFile))); err != nil {
			return nil, err
		}
	} else {
		adhoc := cfg.Targets[0]
		adhoc.Conversation = opts.ID
		tr, diags := e.assemble(ctx, cfg, &adhoc, proj)
		res.Diagnostics = diags
		res.Target, res.AdHoc = adhoc.Name, true
		if body, err = prompt.Render(tr.prompt, prompt.Markdown, prompt.RenderOptions{OpenAISystemRole: adhoc.OpenAISystemRole, Model: adhoc.Model, MaxTokens: adhoc.MaxTokens}); err != nil {
			return nil, err
		}
		res.PromptFile = AdHocPromptDir + "/" + opts.ID + ".md"
		abs := filepath.Join(e.dir, filepath.FromSlash(res.PromptFile))
		if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
			return nil, err
		}
		if err := fsutil.WriteFile(abs, body, 0o644); err != nil {
			return nil, fmt.Errorf("write %s: %w", res.PromptFile, err)
		}
	}

	before, inGit := e.snapshotRun(ctx)
	var head gitstore.Head
	if inGit {
		head = gitstore.HeadOf(e.dir)
	}
	reply, code, runErr := e.runAgent(ctx, cfg, res, opts, body)
	res.ExitCode = code
	// Record the outcome even when ctx was cancelled mid-run.
	rctx := context.WithoutCancel(ctx)
	var files []string
	if inGit {
		if after, ok := e.snapshotRun(rctx); ok {
			files = runChangedFiles(before, after)
		}
		// Files the agent committed are gone from git status: take them
		// from the commits the run made (only when HEAD moved).
		files = mergeFiles(files, e.committedFiles(rctx, head))
	}
	res.FilesModified = files
	msg := conversation.Record{Role: conversation.RoleAssistant, Agent: c.Meta.AgentType, Content: reply, Iteration: iter}
	if runErr != nil {
		msg.IsError, msg.Content = true, runErr.Error()
	}
	// The reply (or the error) and the iteration record go in one append,
	// so a reader never sees one without the other.
	if err := store.Append(rctx, opts.ID, msg, iterationRecord(iter, c.Meta.AgentType, reply, code, runErr, files)); err != nil {
		return res, err
	}
	if runErr != nil {
		if tg != nil {
			// The next prompt says what failed in this iteration.
			if _, err := e.Build(rctx); err != nil {
				return res, err
			}
		}
		return res, &AgentError{Conversation: opts.ID, Message: textutil.FirstLine(runErr.Error())}
	}
	res.Reply = reply
	if tg != nil {
		// Leave the prompt files current with the reply.
		if _, err := e.Build(rctx); err != nil {
			return res, err
		}
	}
	return res, nil
}

// runAgent runs the agent command once and returns its stdout (trailing
// newlines trimmed) and exit code, and for a failed run also an error
// whose text is what gets recorded. The stdout is returned for a failed
// run too, so the iteration record counts the lines the agent printed
// before it failed.
func (e *Engine) runAgent(ctx context.Context, cfg *config.Config, res *RunResult, opts RunOptions, body []byte) (string, int, error) {
	abs, err := filepath.Abs(filepath.Join(e.dir, filepath.FromSlash(res.PromptFile)))
	if err != nil {
		return "", -1, err
	}
	command := cfg.Agent.Command
	usesFile := strings.Contains(command, promptFilePlaceholder)
	command = strings.ReplaceAll(command, promptFilePlaceholder, shellQuote(abs))
	timeout := time.Duration(cfg.Agent.Timeout)
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, "sh", "-c", command)
	cmd.Dir = e.dir
	cmd.Env = append(os.Environ(), "RECITE_CONVERSATION="+opts.ID, "RECITE_TARGET="+res.Target, "RECITE_PROMPT_FILE="+abs)
	if !usesFile {
		cmd.Stdin = bytes.NewReader(body)
	}
	var out, errTail bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &errTail
	if opts.Stderr != nil {
		cmd.Stderr = io.MultiWriter(&errTail, opts.Stderr)
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
		msg = fmt.Sprintf("agent command timed out after %s: %s", timeout, cfg.Agent.Command)
	case ctx.Err() != nil:
		msg = fmt.Sprintf("agent command interrupted: %s", cfg.Agent.Command)
	default:
		msg = fmt.Sprintf("agent command failed (%v): %s", err, cfg.Agent.Command)
	}
	if t := strings.TrimSpace(lastLines(errTail.String(), 20)); t != "" {
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

package conversations

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/recite-dev/recite/engine/agent"
	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/history"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/internal/textutil"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// AdHocPromptDir holds the prompt files of conversations no target names:
// `recite conversation run` renders the first target with its conversation
// set to the run's id and writes the markdown prompt to ID.md here (under
// .recite/, out of git).
const AdHocPromptDir = ".planning/.recite/conversations"

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

// Error is the recorded error message.
func (e *AgentError) Error() string { return e.Message }

// Run is one turn of the conversation coordinator (docs/formats.md#conversation-layers
// handleMessage): it appends opts.Text as a user message, regenerates the
// prompt that carries the conversation, runs recite.yaml's agent.command
// through `sh -c` in the project directory under agent.timeout, and records
// the command's stdout as the assistant message (agent: the conversation's
// agent type).
//
// The prompt is the markdown prompt (else the first provider's file) of the
// first target whose `conversation:` is opts.ID, after a full build. When no
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
func Run(ctx context.Context, h Host, opts RunOptions) (*RunResult, error) {
	cfg, proj, err := h.Load()
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(cfg.Agent.Command) == "" {
		return nil, &InputError{Err: fmt.Errorf("%s: agent.command is not set: recite conversation run needs the agent command to spawn", config.FileName)}
	}
	store, err := h.Store()
	if err != nil {
		return nil, err
	}
	// The last iteration record numbers the run; the index counts the
	// others (a long log is not read).
	w, _, err := store.Window(ctx, opts.ID, conversation.WindowOptions{Iterations: 1, MaxBytes: history.HorizonBytes})
	if err != nil {
		return nil, &InputError{Err: err}
	}
	c := w.Conversation()
	iter := agent.NextIteration(c)
	if err := store.Append(ctx, opts.ID, conversation.Record{Role: conversation.RoleUser, Content: opts.Text, Iteration: iter}); err != nil {
		return nil, err
	}
	res := &RunResult{ExitCode: -1, Iteration: iter}
	tg, body, err := turnPrompt(ctx, h, cfg, proj, opts.ID, res)
	if err != nil {
		return nil, err
	}

	dir := h.Dir()
	track := agent.Track(ctx, dir)
	reply, code, runErr := agent.Spawn(ctx, agent.Command{Dir: dir, Agent: cfg.Agent, Conversation: opts.ID, Target: res.Target,
		PromptFile: res.PromptFile, Body: body, Stderr: opts.Stderr})
	res.ExitCode = code
	// Record the outcome even when ctx was cancelled mid-run.
	rctx := context.WithoutCancel(ctx)
	files := track.Modified(rctx)
	res.FilesModified = files
	msg := conversation.Record{Role: conversation.RoleAssistant, Agent: c.Meta.AgentType, Content: reply, Iteration: iter}
	if runErr != nil {
		msg.IsError, msg.Content = true, runErr.Error()
	}
	// The reply (or the error) and the iteration record go in one append,
	// so a reader never sees one without the other. The iteration record's
	// error hash is the hash of the error as the log keeps it, redacted: an
	// unkeyed hash of a secret would let a guess be checked.
	iterErr := runErr
	if runErr != nil {
		iterErr = errors.New(h.RedactText(runErr.Error()))
	}
	if err := store.Append(rctx, opts.ID, msg, agent.IterationRecord(iter, c.Meta.AgentType, reply, code, iterErr, files)); err != nil {
		return res, err
	}
	if runErr == nil {
		res.Reply = reply
	}
	if tg != nil {
		// The next prompt says what failed in this iteration, or the
		// prompt files stay current with the reply.
		if _, err := h.Build(rctx); err != nil {
			return res, err
		}
	}
	if runErr != nil {
		return res, &AgentError{Conversation: opts.ID, Message: textutil.FirstLine(runErr.Error())}
	}
	return res, nil
}

// turnPrompt makes the prompt the agent reads for conversation id and
// returns the target that names the conversation (nil for an ad-hoc
// prompt) and the prompt's bytes, filling res's Target, AdHoc, PromptFile
// and Diagnostics. With a target, it is the target's markdown prompt (else
// its first provider's file) after a full build; without one, the first
// target rendered with its conversation set to id, written to
// AdHocPromptDir/ID.md.
func turnPrompt(ctx context.Context, h Host, cfg *config.Config, proj *planning.Project, id string, res *RunResult) (*config.Target, []byte, error) {
	var tg *config.Target
	for i := range cfg.Targets {
		if cfg.Targets[i].Conversation == id {
			tg = &cfg.Targets[i]
			break
		}
	}
	dir := h.Dir()
	if tg != nil {
		diags, err := h.Build(ctx)
		if err != nil {
			return nil, nil, err
		}
		res.Diagnostics = diags
		res.Target = tg.Name
		provider := tg.Providers[0]
		for _, p := range tg.Providers {
			if p == prompt.Markdown {
				provider = p
			}
		}
		caps, _ := prompt.CapabilitiesOf(provider)
		res.PromptFile = layout.PromptsDir + "/" + tg.Name + caps.Ext
		body, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(res.PromptFile)))
		return tg, body, err
	}
	adhoc := cfg.Targets[0]
	adhoc.Conversation = id
	p, diags := h.Assemble(ctx, cfg, &adhoc, proj)
	res.Diagnostics = diags
	res.Target, res.AdHoc = adhoc.Name, true
	body, err := prompt.Render(p, prompt.Markdown, prompt.RenderOptions{OpenAISystemRole: adhoc.OpenAISystemRole, Model: adhoc.Model, MaxTokens: adhoc.MaxTokens})
	if err != nil {
		return nil, nil, err
	}
	res.PromptFile = AdHocPromptDir + "/" + id + ".md"
	abs := filepath.Join(dir, filepath.FromSlash(res.PromptFile))
	if err := os.MkdirAll(filepath.Dir(abs), 0o755); err != nil {
		return nil, nil, err
	}
	if err := fsutil.WriteFile(abs, body, 0o644); err != nil {
		return nil, nil, fmt.Errorf("write %s: %w", res.PromptFile, err)
	}
	return nil, body, nil
}

package engine

import (
	"context"
	"errors"
	"io"
	"strings"
	"time"

	"github.com/recite-dev/recite/engine/agent"
	"github.com/recite-dev/recite/engine/claudecode"
	"github.com/recite-dev/recite/engine/health"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning/conversation"
)

// Limits of the Claude Code hook (claudecode.HookTimeout,
// claudecode.HookMaxOutput).
const (
	// HookTimeout bounds one hook invocation.
	HookTimeout = claudecode.HookTimeout
	// HookMaxOutput is the most UTF-16 code units SessionStart prints.
	HookMaxOutput = claudecode.HookMaxOutput
)

// Claude Code's settings, as InitClaude merges them (package claudecode).
const (
	// ClaudeSettingsFile is Claude Code's project settings file, relative
	// to the project root.
	ClaudeSettingsFile = claudecode.SettingsFile
	// ClaudeHookCommand is the command `recite init --claude` installs.
	ClaudeHookCommand = claudecode.HookCommand
)

// ClaudeHookEvents are the events recite handles, in the order they are
// added, with the matcher each group gets (claudecode.HookEvents).
var ClaudeHookEvents = claudecode.HookEvents

// HookOptions configures RunClaudeHook (claudecode.Options).
type HookOptions = claudecode.Options

// ClaudeHookEvent is one Claude Code hook event as read from stdin
// (claudecode.Event).
type ClaudeHookEvent = claudecode.Event

// ClaudeResult is what InitClaude did (claudecode.SettingsResult).
type ClaudeResult = claudecode.SettingsResult

// RunClaudeHook handles one Claude Code hook event read from in
// (`recite hook claude-code`), as claudecode.Run describes, on the engine
// of the project the event names. It never fails: problems are lines on
// errOut, and the work is bounded by opts.Timeout (2 s by default).
func RunClaudeHook(ctx context.Context, opts HookOptions, in io.Reader, out, errOut io.Writer) {
	claudecode.Run(ctx, opts, func(dir string) claudecode.Engine { return hookEngine{New(dir)} }, in, out, errOut)
}

// SessionConversation is the conversation id of a Claude Code session
// (claudecode.SessionConversation): "cc-" + the session id with characters
// outside [A-Za-z0-9._-] replaced by "-"; "" for an empty session id.
func SessionConversation(sessionID string) string {
	return claudecode.SessionConversation(sessionID)
}

// InitClaude merges recite's hooks into the project's .claude/settings.json
// (claudecode.InstallHooks). A settings file recite cannot merge into is an
// *InputError naming the file, and the file is left untouched.
func InitClaude(dir string) (*ClaudeResult, error) {
	res, err := claudecode.InstallHooks(dir)
	if se := (*claudecode.SettingsError)(nil); errors.As(err, &se) {
		return nil, &InputError{Err: se.Err}
	}
	return res, err
}

// hookEngine is the Engine the Claude Code hook talks to
// (claudecode.Engine): the engine's own methods under the names the hook
// asks for, so the Engine type's exported API stays the CLI's.
type hookEngine struct{ e *Engine }

func (h hookEngine) EnsureDirs() error { return h.e.ensureDirs() }

func (h hookEngine) OpenConversations() (*conversation.Store, error) { return h.e.OpenConversations() }

func (h hookEngine) RedactText(text string) string { return h.e.redactText("", text) }

func (h hookEngine) RedactSignals(sigs []signals.Signal) []signals.Signal {
	return h.e.redactSignals(sigs)
}

func (h hookEngine) RedactBlock(b signals.Block) signals.Block { return h.e.redactBlock(b) }

func (h hookEngine) LostSignals(summary string, sigs []signals.Signal) []signals.Signal {
	return h.e.lostSignals(summary, sigs)
}

func (h hookEngine) RelPath(abs string) (string, bool) { return h.e.relPath(abs) }

func (h hookEngine) ModifiedFiles(ctx context.Context) ([]string, error) {
	return agent.ModifiedFiles(ctx, h.e.dir)
}

func (h hookEngine) PreserveCompaction(ctx context.Context, convs []string, now func() time.Time, tail int) ([]markdown.Diagnostic, error) {
	pr, err := h.e.Preserve(ctx, PreserveOptions{Trigger: signals.TriggerCompaction, Conversations: convs, Now: now, tail: tail, lenient: true})
	if pr == nil {
		return nil, err
	}
	return pr.Diagnostics, err
}

func (h hookEngine) ReadPreserved() ([]signals.Block, error) {
	blocks, _, err := h.e.readPreserved()
	return blocks, err
}

// OpenSignals returns the stop signals a new session must know
// (health.OpenSignals over the project's recent conversations and its
// planning tree, known first), redacted. A configuration that does not
// load does not matter here; a planning tree that does not read is an
// error.
func (h hookEngine) OpenSignals(ctx context.Context, known []signals.Signal) ([]signals.Signal, []markdown.Diagnostic, error) {
	_, proj, _, err := h.e.loadLenient()
	if err != nil {
		return nil, nil, err
	}
	sigs, diags := health.OpenSignals(ctx, h.e.dir, health.OpenSources{Project: proj, Known: known, HookAgent: claudecode.Agent})
	return h.e.redactSignals(sigs), diags, nil
}

// Recitation renders the first target's recitation block (engine/prompt
// Recite, FORMATS.md §2.7) with the loop health, secrets redacted. A
// configuration that does not load is a diagnostic, and the defaults are
// used.
func (h hookEngine) Recitation(ctx context.Context) (string, []markdown.Diagnostic, error) {
	cfg, proj, diags, err := h.e.loadLenient()
	if err != nil {
		return "", diags, err
	}
	tg := cfg.Targets[0]
	in := prompt.Input{Target: tg.Name, Role: tg.Role, Project: proj, PlanningDir: PlanningDir}
	in.Health, in.Approach = h.e.promptHealth(ctx, cfg, proj)
	p := prompt.Assemble(in)
	if _, err := h.e.redactPrompt(p, nil); err != nil {
		return "", diags, err
	}
	for _, s := range p.Sections {
		if s.ID == prompt.IDRecitation {
			return "## Recitation\n\n" + strings.TrimSpace(s.Body), diags, nil
		}
	}
	return "", diags, nil
}

package engine

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/recite-dev/recite/engine/agent"
	"github.com/recite-dev/recite/engine/claudecode"
	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/health"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning/conversation"
)

// Limits of the Claude Code hook (claudecode.DefaultHookTimeout,
// claudecode.HookMaxOutput; docs/architecture.md#hook-deadline).
const (
	// DefaultHookTimeout is the timeout `recite init --claude` gives the
	// hook; its budget is claudecode.Budget of it.
	DefaultHookTimeout = claudecode.DefaultHookTimeout
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
// errOut, and the work is bounded by opts.Budget (by default the
// timeout of the project's Claude Code settings less
// claudecode.HookMargin: 8.5 s of the 10 s `init --claude` writes;
// docs/architecture.md#hook-deadline).
func RunClaudeHook(ctx context.Context, opts HookOptions, in io.Reader, out, errOut io.Writer) {
	claudecode.Run(ctx, opts, ClaudeEngine, in, out, errOut)
}

// ClaudeEngine is the claudecode.Engine of the project rooted at dir (a
// claudecode.Opener): what the hook and the status line ask of the
// engine, for callers of package claudecode's own functions.
func ClaudeEngine(dir string) claudecode.Engine { return hookEngine{New(dir)} }

// SessionConversation is the conversation id of a Claude Code session
// (claudecode.SessionConversation): "cc-" + the session id with characters
// outside [A-Za-z0-9._-] replaced by "-"; "" for an empty session id.
func SessionConversation(sessionID string) string {
	return claudecode.SessionConversation(sessionID)
}

// ClaudeOptions configures InitClaude (claudecode.SettingsOptions): the
// personal settings file instead of the shared one, the program path,
// the status line.
type ClaudeOptions = claudecode.SettingsOptions

// ClaudeLocalSettingsFile is Claude Code's personal project settings
// file (`init --claude --local`), relative to the project root.
const ClaudeLocalSettingsFile = claudecode.LocalSettingsFile

// InitClaude merges recite's hooks, and with opts.StatusLine its status
// line, into the project's .claude/settings.json, or with opts.Local its
// .claude/settings.local.json (claudecode.InstallSettings). A settings
// file recite cannot merge into is an *InputError naming the file, and the
// file is left untouched.
func InitClaude(dir string, opts ClaudeOptions) (*ClaudeResult, error) {
	res, err := claudecode.InstallSettings(dir, opts)
	if se := (*claudecode.SettingsError)(nil); errors.As(err, &se) {
		return nil, &InputError{Err: se.Err}
	}
	return res, err
}

// CodexResult is what InitCodex did (claudecode.CodexResult).
type CodexResult = claudecode.CodexResult

// CodexOptions configures InitCodex (claudecode.CodexOptions).
type CodexOptions = claudecode.CodexOptions

// GeminiResult is what InitGemini did (claudecode.GeminiResult).
type GeminiResult = claudecode.GeminiResult

// GeminiOptions configures InitGemini (claudecode.GeminiOptions).
type GeminiOptions = claudecode.GeminiOptions

// Files `init --codex` and `init --gemini` write, project-relative, and
// what the agents need before they use them (docs/agents.md).
const (
	CodexHooksFile     = claudecode.CodexHooksFile
	CodexConfigFile    = claudecode.CodexConfigFile
	GeminiSettingsFile = claudecode.GeminiSettingsFile
	CodexTrust         = claudecode.CodexTrust
	GeminiTrust        = claudecode.GeminiTrust
)

// Agents whose hook `recite hook` handles (HookOptions.Agent).
const (
	AgentClaudeCode = claudecode.Agent
	AgentCodex      = claudecode.AgentCodex
	AgentGemini     = claudecode.AgentGemini
)

// InitCodex merges recite's hooks into the project's .codex/hooks.json
// and adds its MCP server to .codex/config.toml
// (claudecode.InstallCodex). A file recite cannot merge into is an
// *InputError naming the file, and the file is left untouched.
func InitCodex(dir string, opts CodexOptions) (*CodexResult, error) {
	res, err := claudecode.InstallCodex(dir, opts)
	if se := (*claudecode.SettingsError)(nil); errors.As(err, &se) {
		return nil, &InputError{Err: se.Err}
	}
	return res, err
}

// InitGemini merges recite's hooks and MCP server into the project's
// .gemini/settings.json (claudecode.InstallGemini). A file recite cannot
// merge into is an *InputError naming the file, and the file is left
// untouched.
func InitGemini(dir string, opts GeminiOptions) (*GeminiResult, error) {
	res, err := claudecode.InstallGemini(dir, opts)
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

func (h hookEngine) RedactText(text string) string { return h.e.redactor.Text("", text) }

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
	defer h.e.saveCaches() // the next event's process starts warm
	pr, err := h.e.Preserve(ctx, PreserveOptions{Trigger: signals.TriggerCompaction, Conversations: convs, Now: now, tail: tail, lenient: true})
	if pr == nil {
		return nil, err
	}
	return pr.Diagnostics, err
}

func (h hookEngine) PreserveCompactionIfChanged(ctx context.Context, convs []string, now func() time.Time, tail int) (bool, []markdown.Diagnostic, error) {
	defer h.e.saveCaches()
	pr, err := h.e.Preserve(ctx, PreserveOptions{Trigger: signals.TriggerCompaction, Conversations: convs, Now: now, tail: tail, lenient: true, ifChanged: true})
	if pr == nil {
		return false, nil, err
	}
	return !pr.Unchanged && pr.Summary != "no block written (deadline reached)", pr.Diagnostics, err
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
	sigs, diags := health.OpenSignals(ctx, h.e.dir, health.OpenSources{Project: proj, Known: known, HookAgents: claudecode.HookAgents, Store: h.e.readStore()})
	return h.e.redactSignals(sigs), diags, nil
}

// Recitation renders the first target's recitation block (engine/prompt
// Recite, docs/formats.md#recitation-block) with the loop health, secrets
// redacted. A configuration that does not load is a diagnostic, and the
// defaults are used.
func (h hookEngine) Recitation(ctx context.Context) (string, []markdown.Diagnostic, error) {
	defer h.e.saveCaches() // the next event's process starts warm
	cfg, proj, diags, err := h.e.loadLenient()
	if err != nil {
		return "", diags, err
	}
	tg := cfg.Targets[0]
	in := prompt.Input{Target: tg.Name, Role: tg.Role, Project: proj, PlanningDir: PlanningDir}
	in.Health, in.Approach = h.e.promptHealth(ctx, cfg, proj)
	in.Demote = h.e.demote
	p := prompt.Assemble(in)
	if _, err := h.e.redactor.Prompt(p, nil); err != nil {
		return "", diags, err
	}
	for _, s := range p.Sections {
		if s.ID == prompt.IDRecitation {
			return "## Recitation\n\n" + strings.TrimSpace(s.Body), diags, nil
		}
	}
	return "", diags, nil
}

// ReciteEvery is hooks.recite_every of recite.yaml (config.Hooks.Every):
// how often the Claude Code hook repeats an unchanged recitation at a
// prompt, 0 for never; config.DefaultReciteEvery when the configuration
// does not load (the hook's Recitation reports why).
func (h hookEngine) ReciteEvery() int {
	cfg, _, err := config.Load(h.e.dir)
	if err != nil {
		return config.DefaultReciteEvery
	}
	return cfg.Hooks.Every()
}

// StatusSummary computes the status summary `recite statusline` prints
// (claudecode.Engine): a lenient load of the configuration and planning
// tree (a broken configuration takes the defaults), the position in the
// plan, and the health and open stop signals as `recite status` collects
// them, reading only the last claudecode.HookTail or so messages of each
// conversation.
func (h hookEngine) StatusSummary(ctx context.Context) (*claudecode.StatusSummary, error) {
	cfg, proj, _, err := h.e.loadLenient()
	if err != nil {
		return nil, err
	}
	s := &claudecode.StatusSummary{Flavor: string(proj.Flavor), Thresholds: cfg.Thresholds, SignalKinds: []claudecode.SignalCount{}}
	s.Phase, s.Plan = claudecode.Position(proj)
	col, _ := h.e.collectSignals(ctx, cfg, proj, health.Sources{Tail: claudecode.HookTail})
	rep := col.Report
	s.Health, s.Breaker, s.Iterations = rep.Health.State, rep.Health.Breaker, rep.Iterations
	s.Signals = len(rep.Signals)
	for _, sig := range rep.Signals {
		k := string(sig.Kind)
		if i := slices.IndexFunc(s.SignalKinds, func(c claudecode.SignalCount) bool { return c.Kind == k }); i >= 0 {
			s.SignalKinds[i].Count++
		} else {
			s.SignalKinds = append(s.SignalKinds, claudecode.SignalCount{Kind: k, Count: 1})
		}
	}
	return s, nil
}

// StatusLineOptions configures StatusLine (claudecode.StatusLineOptions).
type StatusLineOptions = claudecode.StatusLineOptions

// StatusLine is `recite statusline` (claudecode.StatusLine): the one line
// for Claude Code's status line, from the statusLine JSON read on in and
// the project's status summary (claudecode.StatusSummaryFile). Errors:
// bad input, no planning folder, a planning tree that does not read.
func StatusLine(ctx context.Context, opts StatusLineOptions, in io.Reader) (string, error) {
	line, err := claudecode.StatusLine(ctx, opts, ClaudeEngine, in)
	if errors.Is(err, ErrNoPlanning) {
		return "", &InputError{Err: err}
	}
	return line, err
}

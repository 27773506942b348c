// Package claudecode is recite's side of the agents' hooks
// (docs/agents.md). Its base is Claude Code's hook protocol: it reads one
// hook event (SessionStart, UserPromptSubmit, PostToolUse,
// PostToolUseFailure, PreCompact, PostCompact, Stop), records the
// session's turns as a conversation, keeps the per-session turn state under
// a per-session lock, prints the context SessionStart injects fitted to
// Claude Code's output cap in UTF-16 code units, and merges recite's hooks
// into .claude/settings.json (InstallHooks). At each prompt it returns the
// recitation as additional context when it changed or every
// hooks.recite_every prompts (promptRecitation). It also owns `recite
// statusline` (StatusLine): Claude Code's statusLine input, the project's
// status summary file and its fingerprint, the one line printed, and the
// statusLine entry of the settings (InstallStatusLine). The order-keeping
// merge of a JSON settings file behind it is exported (MergeJSONFile): the
// engine merges recite's MCP server into Claude Code's .mcp.json with it.
//
// Codex CLI runs the same protocol with a few differences (codex.go:
// exit codes, the calls' names and the compaction summary read from its
// rollout; InstallCodex writes .codex/hooks.json and .codex/config.toml),
// and Gemini CLI's events map onto it (gemini.go: JSON-only output,
// PreCompress before every model call, the state snapshot of its
// transcript; InstallGemini writes .gemini/settings.json). A dialect
// (dialect.go, Options.Agent) says which agent an event comes from.
//
// It owns the event's parsing, the handlers, the session state and locks
// (.planning/.recite/hooks/ and .planning/.recite/locks/), the UTF-16 fit,
// the status summary (.planning/.recite/status-summary.json) and the
// settings merge. What it needs of the project — the conversation
// store, redaction, the preservation blocks, the recitation, git's list of
// modified files — it asks of an Engine, the small interface declared here
// and implemented by package engine, so claudecode never imports engine.
//
// It may import engine/budget, engine/config, engine/history, engine/signals,
// engine/internal/gitstore (for its ErrNoRepository),
// engine/internal/layout, engine/internal/textutil, planning/conversation,
// markdown, internal/fsutil and go-toml (the Codex configuration); never
// engine itself.
package claudecode

import (
	"context"
	"time"

	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning/conversation"
)

// Engine is what the hook asks of the engine of the project an event acts
// on. Package engine implements it.
type Engine interface {
	// EnsureDirs creates the cache folder with its .gitignore, as a build
	// does, so hook state never shows in git as untracked.
	EnsureDirs() error
	// OpenConversations opens the project's conversation store, which
	// writes every record with its secrets replaced by placeholders.
	OpenConversations() (*conversation.Store, error)
	// RedactText returns text with every secret replaced by its
	// deterministic placeholder.
	RedactText(text string) string
	// RedactSignals returns a copy of sigs with their texts, details and
	// ids redacted (and the hash of a changed text recomputed).
	RedactSignals(sigs []signals.Signal) []signals.Signal
	// RedactBlock is b with its signals and free-text working state
	// redacted.
	RedactBlock(b signals.Block) signals.Block
	// LostSignals returns the signals of sigs that summary lost, redacted;
	// a signal counts as kept when summary keeps its raw or its redacted
	// form.
	LostSignals(summary string, sigs []signals.Signal) []signals.Signal
	// RelPath turns an absolute path inside the project into a clean
	// project-relative, slash-separated one; false when it is outside.
	RelPath(abs string) (string, bool)
	// ModifiedFiles lists the project files git reports modified, staged
	// or untracked, without recite's own outputs, bounded by ctx. Errors
	// include gitstore's ErrNoRepository outside a repository.
	ModifiedFiles(ctx context.Context) ([]string, error)
	// PreserveCompaction appends a preservation block (trigger compaction)
	// from the planning tree and the last tail or so messages of each of
	// convs, leniently (a broken configuration is a diagnostic and the
	// defaults are used), stamped by now (nil: time.Now), and returns the
	// diagnostics. The block is written whole or not at all: when ctx has
	// ended before it is complete, none is written, the previous block
	// stays, and a diagnostic starting "deadline reached" says so
	// (docs/architecture.md#hook-deadline).
	PreserveCompaction(ctx context.Context, convs []string, now func() time.Time, tail int) ([]markdown.Diagnostic, error)
	// PreserveCompactionIfChanged is PreserveCompaction that writes no
	// block when it would say what the latest block says (its time
	// aside); written reports that a block was appended. Gemini CLI fires
	// PreCompress before every model call, not only before a compression.
	PreserveCompactionIfChanged(ctx context.Context, convs []string, now func() time.Time, tail int) (written bool, diags []markdown.Diagnostic, err error)
	// ReadPreserved parses the preservation blocks of the project's
	// preservation file; a missing file yields none.
	ReadPreserved() ([]signals.Block, error)
	// OpenSignals returns the stop signals a new session must know: known
	// (the latest preservation block's) first, marked resolved when a
	// recent conversation resolved them, then the open ones of the
	// project's recent conversations (their tails) and planning tree, all
	// redacted; diags are problems met reading them.
	OpenSignals(ctx context.Context, known []signals.Signal) ([]signals.Signal, []markdown.Diagnostic, error)
	// Recitation renders the first target's recitation block, with its
	// heading, the loop health and secrets redacted ("" when the prompt
	// has none); diags are the configuration's problems (the defaults
	// were used).
	Recitation(ctx context.Context) (rec string, diags []markdown.Diagnostic, err error)
	// ReciteEvery is hooks.recite_every of the project's configuration:
	// UserPromptSubmit repeats an unchanged recitation every that many
	// prompts, and 0 turns the recitation at prompts off; the default
	// when the configuration does not load (Recitation reports why).
	ReciteEvery() int
	// StatusSummary computes the project's status summary from a lenient
	// load of its configuration and planning tree and the tails of its
	// conversations (no build, no token count), leaving Version and
	// Fingerprint for this package to fill in.
	StatusSummary(ctx context.Context) (*StatusSummary, error)
}

// Opener returns the Engine of the project rooted at dir (absolute).
type Opener func(dir string) Engine

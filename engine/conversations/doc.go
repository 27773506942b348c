// Package conversations is recite's conversation coordinator
// (docs/formats.md#conversation-layers): it creates, appends to, reads,
// lists, shows, forks and archives the append-only conversation logs
// (docs/formats.md#conversation-logs) through a Coordinator, runs one turn
// of a conversation (Run: the user message, the prompt that carries the
// conversation, agent.command spawned through engine/agent, the reply or
// failure and the iteration record), renders a conversation's messages in
// a provider's shape (RenderConversation) and imports transcripts
// (Import).
//
// It owns the coordinator's operations, the turn's ad-hoc prompt file
// (AdHocPromptDir) and the conversation input of a build (Input). What it
// needs of the project — the redacting conversation store, the loaded
// configuration and planning tree, a full build, a target's assembled
// prompt, the redaction of text and the progress of a long read — it asks
// of a Host, the small interface declared here and implemented by package
// engine, so this package never imports engine.
//
// It may import engine/agent, engine/layers, engine/scope, engine/config,
// engine/history, engine/prompt, engine/internal/layout,
// engine/internal/textutil, planning, planning/conversation, markdown and
// internal/fsutil; never engine itself.
package conversations

import (
	"context"
	"io"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// Host is what the coordinator asks of the engine of the project it works
// on. Package engine implements it.
type Host interface {
	// Dir is the project root, absolute.
	Dir() string
	// Store opens the project's conversation store, whose writes redact
	// every record (docs/formats.md#secrets-in-committed-files).
	Store() (*conversation.Store, error)
	// RedactLog is the conversation.Redactor of the logs: text with its
	// secrets replaced by placeholders, and how many were replaced.
	RedactLog(text string) (string, int)
	// RedactText is text with its secrets replaced by the project's
	// placeholders, as prompts write them; never a secret.
	RedactText(text string) string
	// Load reads recite.yaml and the planning tree; its errors are the
	// build's.
	Load() (*config.Config, *planning.Project, error)
	// Build runs a full build and returns its diagnostics.
	Build(ctx context.Context) ([]markdown.Diagnostic, error)
	// Assemble builds target tg's prompt from cfg and proj without writing
	// it, with the build's diagnostics.
	Assemble(ctx context.Context, cfg *config.Config, tg *config.Target, proj *planning.Project) (*prompt.Prompt, []markdown.Diagnostic)
	// Progress wraps r so that the bytes read from it are reported as the
	// progress of stage, total bytes in all; r itself when nothing
	// listens.
	Progress(r io.Reader, stage string, total int64) io.Reader
}

// Diagnostic is a problem with a file, by path and 1-based line
// (markdown.Diagnostic).
type Diagnostic = markdown.Diagnostic

// Record is one line of a conversation log (conversation.Record;
// docs/formats.md#conversation-logs).
type Record = conversation.Record

// Conversation is a conversation read back from its log
// (conversation.Conversation).
type Conversation = conversation.Conversation

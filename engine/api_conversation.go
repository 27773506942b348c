package engine

import (
	"context"

	"github.com/recite-dev/recite/engine/conversations"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/layers"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/planning/conversation"
)

// Record is one line of a conversation log: a message, an iteration record
// or a meta record (planning/conversation.Record; docs/formats.md#conversation-logs).
type Record = conversation.Record

// ConversationMeta is a conversation's metadata: agent type, title, epic,
// phase, tags, deliverables and the fork it came from
// (planning/conversation.Meta).
type ConversationMeta = conversation.Meta

// ConversationSummary is one conversation as `recite conversation list`
// shows it: id, agent type, title, parent, number of messages and last
// activity (planning/conversation.Summary).
type ConversationSummary = conversation.Summary

// Conversation is a conversation read back from its log, a fork's
// inherited messages included (planning/conversation.Conversation).
type Conversation = conversation.Conversation

// The roles of a message (planning/conversation).
const (
	RoleUser      = conversation.RoleUser
	RoleAssistant = conversation.RoleAssistant
	RoleTool      = conversation.RoleTool
	RoleSystem    = conversation.RoleSystem
)

// Conversations is the conversation coordinator of one project
// (conversations.Coordinator; docs/formats.md#conversation-logs).
type Conversations = conversations.Coordinator

// Conversations opens the conversation coordinator of the project
// (conversations.New). Without a .planning folder the error is an
// *InputError that says to run `recite init`.
func (e *Engine) Conversations() (*Conversations, error) {
	return conversations.New(coordinatorHost{e})
}

// SayOptions are one message to append to a conversation
// (conversations.SayOptions).
type SayOptions = conversations.SayOptions

// SayResult is a message appended by Conversations.Say
// (conversations.SayResult).
type SayResult = conversations.SayResult

// ShowOptions are what `recite conversation show` prints
// (conversations.ShowOptions).
type ShowOptions = conversations.ShowOptions

// ConversationJSON is a conversation as `recite conversation show --format
// json` prints it; the lists are never nil (conversation.View).
type ConversationJSON = conversation.View

// NewConversationJSON is the JSON view of c: its replayable messages (every
// message when all is true; see Replayable), iteration and event records
// and deliverables (conversation.NewView).
func NewConversationJSON(c *Conversation, all bool) ConversationJSON {
	return conversation.NewView(c, all)
}

// ShowConversation renders c as `recite conversation show` prints it: md
// (or markdown) as ConversationMarkdown, a provider's shape as
// RenderConversation; another format is an *InputError
// (conversations.ShowConversation).
func ShowConversation(c *Conversation, format string, all bool) ([]byte, error) {
	return conversations.ShowConversation(c, format, all)
}

// ConversationMarkdown is c as markdown for a reader: a heading, the
// metadata, the number of messages, then every message under a heading
// numbered by its position in the log (the at of Fork), with its role,
// agent, tool, flags and time (RFC 3339, UTC). Internal and sidechain
// messages are counted and hidden unless all is true. For the newest part
// of a log (Conversation.Earlier) the count is the whole conversation's
// and the numbers go on from the messages before it
// (conversation.Listing, conversation.WriteMessage).
func ConversationMarkdown(c *Conversation, all bool) string { return c.Markdown(all) }

// RenderConversation renders the messages of c alone in a provider's shape
// (conversations.RenderConversation): internal and sidechain messages left
// out unless all is true, C0 controls other than tab and line feed
// removed; an unknown provider is an *InputError.
func RenderConversation(c *Conversation, provider string, all bool, opts prompt.RenderOptions) ([]byte, error) {
	return conversations.RenderConversation(c, provider, all, opts)
}

// AdHocPromptDir holds the prompt files of conversations no target names
// (conversations.AdHocPromptDir).
const AdHocPromptDir = conversations.AdHocPromptDir

// RunOptions are the inputs of one conversation turn
// (conversations.RunOptions).
type RunOptions = conversations.RunOptions

// RunResult is the outcome of one conversation turn
// (conversations.RunResult).
type RunResult = conversations.RunResult

// AgentError is a failed agent run, recorded in the conversation
// (conversations.AgentError).
type AgentError = conversations.AgentError

// RunConversation is one turn of the conversation coordinator
// (conversations.Run; docs/formats.md#conversation-layers): the user
// message, the prompt that carries the conversation, agent.command, the
// reply or failure (*AgentError) and the iteration record. A missing
// agent.command or conversation is an *InputError.
func (e *Engine) RunConversation(ctx context.Context, opts RunOptions) (*RunResult, error) {
	return conversations.Run(ctx, coordinatorHost{e}, opts)
}

// ConversationsDir is the folder of conversation logs, relative to the
// project root (docs/formats.md#files-recite-writes).
const ConversationsDir = layout.ConversationsDir

// ConversationLog is the project-relative path of conversation id's log.
func ConversationLog(id string) string { return layout.ConversationLog(id) }

// Replayable reports whether a message record is replayed to a model: it is
// a message, not internal (coordinator notes, imported thinking, harness
// output) and not from a side conversation (a subagent's sidechain)
// (layers.Replayable).
func Replayable(r conversation.Record) bool { return layers.Replayable(r) }

// ToPromptMessages converts message records to prompt messages, keeping
// roles, agents, tool calls (arguments verbatim), the tool call id and name
// of tool results, and is_error (layers.ToPromptMessages). Records that are
// not messages are left out; the caller filters internal records (see
// Replayable).
func ToPromptMessages(recs []conversation.Record) []prompt.Message {
	return layers.ToPromptMessages(recs)
}

// LearningsFile holds the project's learnings (layers.LearningsFile).
const LearningsFile = layers.LearningsFile

// MaxMessageBytes caps one message's content in a prompt, in bytes
// (layers.MaxMessageBytes).
const MaxMessageBytes = layers.MaxMessageBytes

// ImportReport accounts for every entry of an imported transcript: entries
// read, imported and skipped by reason, records produced, and a diagnostic
// per malformed line (planning/conversation.Report).
type ImportReport = conversation.Report

// The transcript formats Import reads (conversations.ImportClaudeCode…).
const (
	// ImportClaudeCode is a Claude Code session transcript (JSONL).
	ImportClaudeCode = conversations.ImportClaudeCode
	// ImportAider is an aider chat history (.aider.chat.history.md).
	ImportAider = conversations.ImportAider
	// ImportCodex is a Codex CLI session file (rollout JSONL).
	ImportCodex = conversations.ImportCodex
)

// ImportOptions are the inputs of Import (conversations.ImportOptions).
type ImportOptions = conversations.ImportOptions

// ImportResult is the outcome of Import (conversations.ImportResult).
type ImportResult = conversations.ImportResult

// Import appends the new records of the transcript at opts.Path to a
// conversation, creating it when needed, the bytes read reported as
// Progress (conversations.Import). Errors: *InputError for an invalid id,
// an unreadable file, a file not in the format or a project without a
// .planning folder; a plain error naming the file for a transcript that
// fails mid-read; failures to write the log.
func (e *Engine) Import(ctx context.Context, opts ImportOptions) (*ImportResult, error) {
	return conversations.Import(ctx, coordinatorHost{e}, opts)
}

// ImportID derives a conversation id from a transcript's file name
// (conversation.ImportID).
func ImportID(path, format string) string { return conversation.ImportID(path, format) }

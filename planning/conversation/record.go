// Package conversation is recite's conversation log: one append-only JSONL
// file per conversation under .planning/conversations/ (docs/formats.md#conversation-logs).
//
// # Format
//
// Every line of ID.jsonl is one JSON object, a [Record], marshalled from a
// struct so its keys always come in the same order. A record has a unique id
// (a ULID unless imported), the conversation id, a kind ([KindMessage],
// [KindIteration] or [KindMeta]) and an RFC 3339 UTC timestamp. Message
// records carry a role, content and metadata (the agent that wrote it, tool
// calls and results, confidence, iteration, files modified). Meta records
// carry conversation metadata ([Meta]); later meta records refine earlier
// ones.
//
// # Writing
//
// [Store.Append] formats every record in memory and appends it with one
// Write on an O_APPEND descriptor while holding an advisory lock on a
// sidecar lock file (internal/fsutil.TryLock), then fsyncs (docs/formats.md#conversation-logs). If
// the file does not end with a newline (a torn tail after a crash), the same
// Write starts with one, so the new record is never glued to the torn one.
// With [Store.Redact] set every record's secrets are replaced before it is
// written ([RedactRecord]); [Store.RawDir] keeps the records as they were
// outside the log. Logs are never rewritten, except by [Store.RedactLog],
// which replaces the secrets of a log written before.
//
// # Reading
//
// Readers tolerate torn and malformed lines anywhere: each is skipped with a
// diagnostic naming file and line, and hides nothing else (docs/architecture.md#append-only-logs).
// Because git merges the logs with merge=union
// (docs/architecture.md#concurrent-appends-and-merges),
// readers drop duplicate ids and order records by (timestamp, id).
//
// # The sidecar index
//
// [Store.Read] parses a whole log. The readers that need part of one
// ([Store.Window], [Store.Tail], [Store.Info], [Store.MessageNumber], and
// [Snapshot.Records] streaming all of it) go through a sidecar index per
// log under .planning/.recite/index (not in git; see
// docs/formats.md#conversation-index): the log's records in read order as
// fixed-size entries (byte offset, length, kind, message rank), and a
// header with the counts, the merged Meta, the torn lines and the length
// and end hashes of the prefix it covers. Append extends the index over
// the records it wrote without reading the log; a reader extends it over
// lines another writer added (a union merge, an older recite) by reading
// those lines alone. When they sort before the newest indexed record (a
// union merge interleaves two clones' appends, an import brings older
// records) or the log was rewritten, the index is rebuilt from the whole
// log once, sorting it. The index is a cache: damaged or stale, it is
// detected and rebuilt, never trusted.
package conversation

import (
	"errors"
	"fmt"
	"regexp"
	"time"
)

// Kind is the kind of a log record (docs/formats.md#conversation-logs).
type Kind string

// The record kinds.
const (
	// KindMessage is one turn: a role, content and metadata.
	KindMessage Kind = "message"
	// KindIteration records one iteration of the work (a loop pass), with its
	// confidence, files modified and whether tests passed.
	KindIteration Kind = "iteration"
	// KindMeta carries conversation metadata ([Meta]) or an event such as a
	// compaction boundary ([Record.Event]).
	KindMeta Kind = "meta"
)

// Roles of a message (docs/architecture.md#words).
const (
	RoleSystem    = "system"
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleTool      = "tool"
)

// Events carried by meta records.
const (
	// EventCompactBoundary marks where an agent compacted its context
	// (Claude Code `system` entry with subtype compact_boundary).
	EventCompactBoundary = "compact_boundary"
	// EventSessionStart marks the start of an agent session (aider's
	// "# aider chat started at" line).
	EventSessionStart = "session_start"
	// EventAPIError records an error the agent harness reported (Claude Code
	// `system` entry with subtype api_error).
	EventAPIError = "api_error"
	// EventSummary is a Claude Code `summary` entry (a session title).
	EventSummary = "summary"
)

// ToolCall is one tool call made by an assistant message.
type ToolCall struct {
	// ID is the provider's tool call id, replayed byte for byte.
	ID string `json:"id"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Arguments is the call's arguments as the provider sent them: a JSON
	// text kept verbatim, possibly invalid (docs/providers.md#request-shapes).
	Arguments string `json:"arguments"`
	// Signature is the Gemini thoughtSignature the call came back with,
	// kept so a replayed call of the current turn carries it
	// (docs/providers.md#request-shapes); "" when the provider gave none.
	Signature string `json:"thought_signature,omitempty"`
}

// Meta is conversation metadata, carried by meta records. When several meta
// records exist, non-empty scalar fields of later records win and lists are
// merged (see [Conversation.Meta]).
type Meta struct {
	// AgentType is the agent that handles the conversation, e.g.
	// "backend-developer".
	AgentType string `json:"agent_type,omitempty"`
	// Title is a human title.
	Title string `json:"title,omitempty"`
	// Epic and Phase place the conversation in the roadmap.
	Epic  string `json:"epic,omitempty"`
	Phase string `json:"phase,omitempty"`
	// Deliverables are files the conversation is expected to produce.
	Deliverables []string `json:"deliverables,omitempty"`
	// Tags are free labels.
	Tags []string `json:"tags,omitempty"`
	// Parent is the conversation this one was forked from, and ForkAt the
	// number of the parent's messages the fork inherits (messages 0..ForkAt-1
	// in the parent's read order). Only the first meta record's fork fields
	// count.
	Parent string `json:"parent,omitempty"`
	ForkAt *int   `json:"fork_at,omitempty"`
}

// Record is one line of a conversation log. Field order is the key order on
// disk. Zero fields are omitted.
type Record struct {
	// ID is unique across all conversations: a ULID for records recite
	// writes, or an id derived from the source for imports.
	ID string `json:"id"`
	// Conversation is the id of the conversation the record belongs to.
	Conversation string `json:"conversation"`
	// Kind is message, iteration or meta.
	Kind Kind `json:"kind"`
	// Time is when the record was written, marshalled as RFC 3339 in UTC.
	Time time.Time `json:"ts"`
	// Role is system, user, assistant or tool (messages only).
	Role string `json:"role,omitempty"`
	// Agent is the agent that wrote the message (one conversation can hold a
	// developer, a tester and a reviewer).
	Agent string `json:"agent,omitempty"`
	// Provider and Model name what produced an assistant message.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	// Event names what a meta record marks (EventCompactBoundary, …).
	Event string `json:"event,omitempty"`
	// Content is the message text (or the event's text).
	Content string `json:"content,omitempty"`
	// Internal marks a message not meant to be replayed to a model as
	// conversation text (coordinator notes, imported thinking, harness
	// output).
	Internal bool `json:"internal,omitempty"`
	// ToolCalls are the calls of an assistant message.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is, on a tool message, the id of the call it answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// ToolName is, on a tool message, the name of the tool that ran.
	ToolName string `json:"tool_name,omitempty"`
	// IsError marks a failed tool result or an error event.
	IsError bool `json:"is_error,omitempty"`
	// Confidence is the agent's self-reported confidence in [0, 1].
	Confidence *float64 `json:"confidence,omitempty"`
	// Iteration is the loop iteration the record belongs to (1-based; 0 is
	// none).
	Iteration int `json:"iteration,omitempty"`
	// FilesModified are files created or modified, slash-separated and
	// relative to the project root.
	FilesModified []string `json:"files_modified,omitempty"`
	// TestsPassing reports whether tests passed, when reported.
	TestsPassing *bool `json:"tests_passing,omitempty"`
	// ExitCode is, on an iteration record of `recite conversation run`, the
	// agent command's exit code (-1 when it did not exit: a timeout or an
	// interrupt).
	ExitCode *int `json:"exit_code,omitempty"`
	// OutputLines is, on an iteration record, how many lines the agent
	// printed on stdout (the circuit breaker's output decline reads it).
	OutputLines *int `json:"output_lines,omitempty"`
	// ErrorHash is, on the iteration record of a failed run, the hash of
	// the normalized error (signals.Hash): equal hashes in consecutive
	// iterations are the same error repeating.
	ErrorHash string `json:"error_hash,omitempty"`
	// CompactSummary marks a message that is an agent's compaction summary.
	CompactSummary bool `json:"compact_summary,omitempty"`
	// Sidechain marks a message from a side conversation (a Claude Code
	// subagent), not the main line.
	Sidechain bool `json:"sidechain,omitempty"`
	// Source names where an imported record came from (e.g. the Claude Code
	// entry uuid or "aider:LINE").
	Source string `json:"source,omitempty"`
	// Meta is the metadata of a meta record.
	Meta *Meta `json:"meta,omitempty"`
}

// Errors callers branch on.
var (
	// ErrInvalidID is returned for a conversation id that does not match
	// ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$ or would leave the conversations
	// folder (docs/architecture.md#safe-conversation-ids).
	ErrInvalidID = errors.New("invalid conversation id")
	// ErrExists is returned by Create and Fork when the conversation exists.
	ErrExists = errors.New("conversation exists")
	// ErrNotFound is returned when a conversation has no log.
	ErrNotFound = errors.New("conversation not found")
	// ErrLinkOutside is returned for a conversation log that is a symbolic
	// link leading out of the conversations folder: a log is read into
	// prompts and committed, so it must be the project's own file
	// (docs/formats.md#files-from-outside-the-project).
	ErrLinkOutside = errors.New("conversation log links outside the conversations folder")
)

var idPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// ValidateID reports whether id is a valid conversation id (docs/architecture.md#safe-conversation-ids). The error wraps [ErrInvalidID] and quotes the id.
func ValidateID(id string) error {
	if !idPattern.MatchString(id) || id == "." || id == ".." {
		return fmt.Errorf("%w %q: want ^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$", ErrInvalidID, id)
	}
	return nil
}

package engine

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/planning/conversation"
)

// Record is one line of a conversation log: a message, an iteration record
// or a meta record (planning/conversation.Record; docs/formats.md#conversations).
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

// Conversations is the conversation coordinator of one project: it creates,
// appends to, reads, lists, forks and archives the append-only logs in
// ConversationsDir, one file per conversation. Errors the user can fix (an
// invalid id, an unknown or existing conversation, a fork point out of
// range) are *InputError; the message is the store's.
type Conversations struct {
	e     *Engine
	store *conversation.Store
}

// Conversations opens the conversation coordinator of the project. The
// project must have a .planning folder (the store would create one
// otherwise): without it the error is an *InputError that says to run
// `recite init`.
func (e *Engine) Conversations() (*Conversations, error) {
	fi, err := os.Stat(filepath.Join(e.Dir(), PlanningDir))
	if err != nil || !fi.IsDir() {
		return nil, &InputError{Err: fmt.Errorf("no .planning folder in %s (run `recite init` to create one)", e.Dir())}
	}
	s, err := e.OpenConversations()
	if err != nil {
		return nil, err
	}
	return &Conversations{e: e, store: s}, nil
}

// conversationInputError marks the store's errors the user can fix as
// *InputError and returns the others as they are.
func conversationInputError(err error) error {
	var ie *InputError
	if err == nil || errors.As(err, &ie) {
		return err
	}
	for _, target := range []error{conversation.ErrInvalidID, conversation.ErrNotFound, conversation.ErrExists} {
		if errors.Is(err, target) {
			return &InputError{Err: err}
		}
	}
	return err
}

// Create starts conversation id with its metadata. Errors: an invalid id,
// or an existing conversation (*InputError wrapping
// conversation.ErrExists).
func (c *Conversations) Create(ctx context.Context, id string, meta ConversationMeta) error {
	return conversationInputError(c.store.Create(ctx, id, meta))
}

// SayOptions are one message to append to a conversation.
type SayOptions struct {
	// ID is the conversation.
	ID string
	// Role is user, assistant, tool or system.
	Role string
	// Agent names the agent that wrote the message.
	Agent string
	// Text is the message's content.
	Text string
	// Internal marks a note not replayed to models.
	Internal bool
	// ToolCallID and ToolName are, on a tool message, the call it answers
	// and the tool that ran.
	ToolCallID, ToolName string
	// IsError marks a failed tool result or an error.
	IsError bool
	// Iteration is the loop iteration the message belongs to (0: none).
	Iteration int
}

// Validate checks the role (user, assistant, tool or system) and that the
// tool fields come with the tool role. The errors name the flags of
// `recite conversation say` and are *InputError.
func (o SayOptions) Validate() error {
	switch o.Role {
	case RoleUser, RoleAssistant, RoleTool, RoleSystem:
	default:
		return &InputError{Err: fmt.Errorf("--role %q: want user, assistant, tool or system", o.Role)}
	}
	if (o.ToolCallID != "" || o.ToolName != "") && o.Role != RoleTool {
		return &InputError{Err: errors.New("--tool-call-id and --tool-name need --role tool")}
	}
	return nil
}

// SayResult is a message appended by Say.
type SayResult struct {
	// Record is the record as written (id and time stamped).
	Record Record
	// Number is the message's 1-based position among the conversation's
	// messages, as ConversationMarkdown numbers it and Fork's at counts;
	// 0 when the log could not be read back.
	Number int
}

// Say validates opts and appends the message to conversation opts.ID. It
// does not rebuild prompts (BuildConversation does). Errors: those of
// Validate, an invalid id or an unknown conversation (*InputError), and
// failures to lock or write the log.
func (c *Conversations) Say(ctx context.Context, opts SayOptions) (*SayResult, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if _, err := c.store.Path(opts.ID); err != nil {
		return nil, conversationInputError(err)
	}
	rec := Record{Role: opts.Role, Agent: opts.Agent, Content: opts.Text, Internal: opts.Internal,
		ToolCallID: opts.ToolCallID, ToolName: opts.ToolName, IsError: opts.IsError, Iteration: opts.Iteration}
	written, err := c.store.AppendStamped(ctx, opts.ID, rec)
	if err != nil {
		return nil, conversationInputError(err)
	}
	res := &SayResult{Record: written[0]}
	if conv, _, err := c.store.Read(opts.ID); err == nil {
		for i, m := range conv.Messages {
			if m.ID == res.Record.ID {
				res.Number = i + 1
				break
			}
		}
	}
	return res, nil
}

// Run is one turn of the coordinator: Engine.RunConversation after checking
// the id (an invalid id is an *InputError and nothing is appended). A
// failed agent run is an *AgentError, recorded in the log.
func (c *Conversations) Run(ctx context.Context, opts RunOptions) (*RunResult, error) {
	if err := conversation.ValidateID(opts.ID); err != nil {
		return nil, &InputError{Err: err}
	}
	res, err := c.e.RunConversation(ctx, opts)
	return res, conversationInputError(err)
}

// List summarises every conversation outside the archive, sorted by id;
// never nil. A conversation that cannot be read (a fork whose parent is
// gone) is left out with a diagnostic whose path is relative to the
// project root when inside it.
func (c *Conversations) List() ([]ConversationSummary, []Diagnostic, error) {
	list, diags, err := c.store.ListDiagnosed()
	if err != nil {
		return nil, nil, err
	}
	for i, d := range diags {
		if rel, err := filepath.Rel(c.e.Dir(), d.Path); err == nil && filepath.IsLocal(rel) {
			diags[i].Path = filepath.ToSlash(rel)
		}
	}
	if list == nil {
		list = []ConversationSummary{}
	}
	return list, diags, nil
}

// Read reads conversation id back from its log (the archive included),
// with a diagnostic for each malformed line. Errors: an invalid id or an
// unknown conversation (*InputError).
func (c *Conversations) Read(id string) (*Conversation, []Diagnostic, error) {
	conv, diags, err := c.store.Read(id)
	return conv, diags, conversationInputError(err)
}

// Fork creates conversation newID as a branch of id after its first at
// messages. Errors: an invalid id, an unknown parent, an existing newID or
// at outside 0..len(messages) (*InputError).
func (c *Conversations) Fork(ctx context.Context, id string, at int, newID string) error {
	if err := conversation.ValidateID(newID); err != nil {
		return &InputError{Err: err}
	}
	err := c.store.Fork(ctx, id, at, newID)
	if err != nil && strings.Contains(err.Error(), "out of range") {
		return &InputError{Err: err}
	}
	return conversationInputError(err)
}

// Archive moves conversation id's log to the archive folder, where Read
// still finds it and List does not. Errors: an invalid id, an unknown
// conversation or one already archived (*InputError).
func (c *Conversations) Archive(ctx context.Context, id string) error {
	return conversationInputError(c.store.Archive(ctx, id))
}

// ArchiveOlderThan archives every listed conversation whose last activity
// is more than age before now, and returns their ids in order (those
// archived before an error too).
func (c *Conversations) ArchiveOlderThan(ctx context.Context, age time.Duration, now time.Time) ([]string, error) {
	done, err := c.store.ArchiveOlderThan(ctx, age, now)
	return done, conversationInputError(err)
}

// ConversationJSON is a conversation as `recite conversation show --format
// json` prints it; the lists are never nil.
type ConversationJSON struct {
	ID           string           `json:"id"`
	Meta         ConversationMeta `json:"meta"`
	Messages     []Record         `json:"messages"`
	Iterations   []Record         `json:"iterations"`
	Events       []Record         `json:"events"`
	Deliverables []string         `json:"deliverables"`
}

// NewConversationJSON is the JSON view of c: its replayable messages (every
// message when all is true; see Replayable), iteration and event records
// and deliverables.
func NewConversationJSON(c *Conversation, all bool) ConversationJSON {
	out := ConversationJSON{ID: c.ID, Meta: c.Meta, Messages: []Record{}, Iterations: c.Iterations, Events: c.Events, Deliverables: c.Deliverables}
	for _, m := range c.Messages {
		if all || Replayable(m) {
			out.Messages = append(out.Messages, m)
		}
	}
	if out.Iterations == nil {
		out.Iterations = []Record{}
	}
	if out.Events == nil {
		out.Events = []Record{}
	}
	if out.Deliverables == nil {
		out.Deliverables = []string{}
	}
	return out
}

// ShowConversation renders c as `recite conversation show` prints it:
// "md" or "markdown" is ConversationMarkdown; openai, anthropic, gemini,
// ollama and text are the messages alone in that provider's request shape
// (RenderConversation with the default options). Another format is an
// *InputError.
func ShowConversation(c *Conversation, format string, all bool) ([]byte, error) {
	if format == "md" || format == "markdown" {
		return []byte(ConversationMarkdown(c, all)), nil
	}
	return RenderConversation(c, format, all, prompt.RenderOptions{})
}

// ConversationMarkdown is c as markdown for a reader: a heading, the
// metadata, the number of messages, then every message under a heading
// numbered by its position in the log (the at of Fork), with its role,
// agent, tool, flags and time (RFC 3339, UTC). Internal and sidechain
// messages are counted and hidden unless all is true.
func ConversationMarkdown(c *Conversation, all bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Conversation %s\n\n", c.ID)
	m := c.Meta
	for _, kv := range [][2]string{{"Title", m.Title}, {"Agent", m.AgentType}, {"Epic", m.Epic}, {"Phase", m.Phase}, {"Tags", strings.Join(m.Tags, ", ")}, {"Deliverables", strings.Join(c.Deliverables, ", ")}} {
		if kv[1] != "" {
			fmt.Fprintf(&b, "- %s: %s\n", kv[0], kv[1])
		}
	}
	if m.Parent != "" {
		at := "all"
		if m.ForkAt != nil {
			at = strconv.Itoa(*m.ForkAt)
		}
		fmt.Fprintf(&b, "- Forked from: %s after %s messages\n", m.Parent, at)
	}
	hidden := 0
	for _, r := range c.Messages {
		if !all && !Replayable(r) {
			hidden++
		}
	}
	fmt.Fprintf(&b, "- Messages: %d", len(c.Messages))
	if hidden > 0 {
		fmt.Fprintf(&b, " (%d internal hidden; --all shows them)", hidden)
	}
	b.WriteString("\n")
	for i, r := range c.Messages {
		if !all && !Replayable(r) {
			continue
		}
		fmt.Fprintf(&b, "\n### %d. %s · %s\n\n", i+1, messageLabel(r), r.Time.UTC().Format(time.RFC3339))
		if r.Content != "" {
			b.WriteString(r.Content + "\n")
		}
		for _, tc := range r.ToolCalls {
			fmt.Fprintf(&b, "[tool call %s %s] %s\n", tc.Name, tc.ID, tc.Arguments)
		}
	}
	return b.String()
}

// messageLabel is the heading of a message in ConversationMarkdown: role,
// agent, tool name, the call a tool result answers, then its flags.
func messageLabel(r Record) string {
	label := r.Role
	if r.Agent != "" {
		label += " (" + r.Agent + ")"
	}
	if r.ToolName != "" {
		label += " " + r.ToolName
	}
	if r.ToolCallID != "" {
		label += " ← " + r.ToolCallID
	}
	var flags []string
	if r.IsError {
		flags = append(flags, "error")
	}
	if r.Internal {
		flags = append(flags, "internal")
	}
	if r.Sidechain {
		flags = append(flags, "sidechain")
	}
	if r.CompactSummary {
		flags = append(flags, "compact summary")
	}
	if len(flags) > 0 {
		label += " [" + strings.Join(flags, ", ") + "]"
	}
	return label
}

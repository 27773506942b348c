package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

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
	// Found from the newest back through the index: one record read.
	res.Number, _ = c.store.MessageNumber(ctx, opts.ID, res.Record.ID)
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
// with a diagnostic for each malformed line, every record's secrets
// replaced by placeholders: a log recite wrote holds none, and one written
// before redaction (migrate it with `recite redact`) is shown as if it
// were migrated. Errors: an invalid id or an unknown conversation
// (*InputError).
func (c *Conversations) Read(id string) (*Conversation, []Diagnostic, error) {
	conv, diags, err := c.store.Read(id)
	if err != nil {
		return nil, nil, conversationInputError(err)
	}
	for _, list := range [][]Record{conv.Messages, conv.Iterations, conv.Events} {
		for i := range list {
			conversation.RedactRecord(&list[i], c.e.redactor.Log)
		}
	}
	return conv, diags, nil
}

// ReadRaw is Read without the redaction: every record whose secrets were
// replaced when it was written comes back as it was, from RawDir
// (conversations.keep_raw; the records of a fork's parent from the
// parent's raw store); the others, and every record written while
// keep_raw was off, as the log holds them. Raw reports how many records
// came from RawDir. Errors: those of Read.
func (c *Conversations) ReadRaw(id string) (conv *Conversation, diags []Diagnostic, raw int, err error) {
	conv, diags, raw, err = c.store.ReadRaw(id, filepath.Join(c.e.dir, filepath.FromSlash(RawDir)))
	return conv, diags, raw, conversationInputError(err)
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
// json` prints it; the lists are never nil (conversation.View).
type ConversationJSON = conversation.View

// NewConversationJSON is the JSON view of c: its replayable messages (every
// message when all is true; see Replayable), iteration and event records
// and deliverables (conversation.NewView).
func NewConversationJSON(c *Conversation, all bool) ConversationJSON {
	return conversation.NewView(c, all)
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
// messages are counted and hidden unless all is true. For the newest part
// of a log (Conversation.Earlier) the count is the whole conversation's
// and the numbers go on from the messages before it
// (conversation.Listing, conversation.WriteMessage).
func ConversationMarkdown(c *Conversation, all bool) string { return c.Markdown(all) }

// ShowOptions are what `recite conversation show` prints.
type ShowOptions struct {
	// ID is the conversation; Format md (or markdown), json, or a
	// provider's shape (openai, anthropic, gemini, ollama, text).
	ID, Format string
	// All includes internal and sidechain messages.
	All bool
	// Tail, when > 0, prints only the last Tail messages (md and json: the
	// iteration and event records among them; md numbers them by their
	// position in the whole conversation).
	Tail int
	// Raw shows the records as they were before redaction, from RawDir,
	// where conversations.keep_raw kept them (ReadRaw); RawShown, when
	// set, receives how many records came from there.
	Raw      bool
	RawShown func(n int)
}

// Show writes conversation opts.ID to out as ShowOptions say, reading it
// through the log's index: with Tail only the newest messages are read;
// without it md and json stream every record in constant memory, and a
// provider's shape is rendered whole. diag receives the log's torn lines
// first. Errors: an invalid id or an unknown conversation or format
// (*InputError), a failed read or write.
func (c *Conversations) Show(ctx context.Context, opts ShowOptions, out io.Writer, diag func(Diagnostic)) error {
	md := opts.Format == "md" || opts.Format == "markdown"
	if _, err := prompt.CapabilitiesOf(opts.Format); err != nil && !md && opts.Format != "json" {
		return &InputError{Err: fmt.Errorf("--format %q: want md, json, openai, anthropic, gemini, ollama or text", opts.Format)}
	}
	if opts.Raw {
		return c.showRaw(ctx, opts, out, diag)
	}
	if opts.Tail > 0 || !md && opts.Format != "json" {
		conv, diags, err := c.window(ctx, opts.ID, opts.Tail)
		if err != nil {
			return err
		}
		for _, d := range diags {
			diag(d)
		}
		if opts.Format == "json" {
			return NewConversationJSON(conv, opts.All).Write(out)
		}
		body, err := ShowConversation(conv, opts.Format, opts.All)
		if err == nil {
			_, err = out.Write(body)
		}
		return err
	}
	sn, err := c.store.Snapshot(ctx, opts.ID)
	if err != nil {
		return conversationInputError(err)
	}
	defer sn.Close()
	for _, d := range sn.Diagnostics {
		diag(d)
	}
	if md {
		return sn.WriteMarkdown(out, opts.All)
	}
	return sn.WriteJSON(out, func(r Record) bool { return opts.All || Replayable(r) })
}

// showRaw is Show with opts.Raw: the conversation in memory, each record
// replaced by its raw form where one was kept (the whole conversation
// through ReadRaw; with Tail, the newest messages of the log's own raw
// store).
func (c *Conversations) showRaw(ctx context.Context, opts ShowOptions, out io.Writer, diag func(Diagnostic)) error {
	var conv *Conversation
	var diags []Diagnostic
	n := 0
	if opts.Tail > 0 {
		cv, ds, err := c.window(ctx, opts.ID, opts.Tail)
		if err != nil {
			return err
		}
		kept, err := c.store.RawRecords(opts.ID)
		if err != nil {
			return err
		}
		for i, m := range cv.Messages {
			if r, ok := kept[m.ID]; ok {
				cv.Messages[i], n = r, n+1
			}
		}
		conv, diags = cv, ds
	} else {
		cv, ds, k, err := c.ReadRaw(opts.ID)
		if err != nil {
			return err
		}
		conv, diags, n = cv, ds, k
	}
	for _, d := range diags {
		diag(d)
	}
	if opts.RawShown != nil {
		opts.RawShown(n)
	}
	if opts.Format == "json" {
		return NewConversationJSON(conv, opts.All).Write(out)
	}
	body, err := ShowConversation(conv, opts.Format, opts.All)
	if err == nil {
		_, err = out.Write(body)
	}
	return err
}

// window reads the last tail messages of conversation id (the whole
// conversation when tail is 0).
func (c *Conversations) window(ctx context.Context, id string, tail int) (*Conversation, []Diagnostic, error) {
	w, diags, err := c.store.Window(ctx, id, conversation.WindowOptions{Messages: tail})
	if err != nil {
		return nil, nil, conversationInputError(err)
	}
	return w.Conversation(), diags, nil
}

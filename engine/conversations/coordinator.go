package conversations

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/planning/conversation"
)

// InputError is an error the user can fix (layout.InputError, the engine's
// InputError).
type InputError = layout.InputError

// RawDir keeps the raw form of the records whose secrets were replaced,
// relative to the project root (conversations.keep_raw;
// docs/formats.md#secrets-in-committed-files).
const RawDir = layout.CacheDir + "/raw"

// Coordinator is the conversation coordinator of one project: it creates,
// appends to, reads, lists, forks and archives the append-only logs of
// docs/formats.md#conversation-logs, one file per conversation. Errors the
// user can fix (an invalid id, an unknown or existing conversation, a fork
// point out of range) are *InputError; the message is the store's.
type Coordinator struct {
	h     Host
	store *conversation.Store
}

// New opens the conversation coordinator of h's project. The project must
// have a .planning folder (the store would create one otherwise): without
// it the error is an *InputError that says to run `recite init`. Errors of
// Host.Store are returned as they are.
func New(h Host) (*Coordinator, error) {
	fi, err := os.Stat(filepath.Join(h.Dir(), layout.PlanningDir))
	if err != nil || !fi.IsDir() {
		return nil, &InputError{Err: fmt.Errorf("no .planning folder in %s (run `recite init` to create one)", h.Dir())}
	}
	s, err := h.Store()
	if err != nil {
		return nil, err
	}
	return &Coordinator{h: h, store: s}, nil
}

// inputError marks the store's errors the user can fix as *InputError and
// returns the others as they are.
func inputError(err error) error {
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
func (c *Coordinator) Create(ctx context.Context, id string, meta conversation.Meta) error {
	return inputError(c.store.Create(ctx, id, meta))
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
	case conversation.RoleUser, conversation.RoleAssistant, conversation.RoleTool, conversation.RoleSystem:
	default:
		return &InputError{Err: fmt.Errorf("--role %q: want user, assistant, tool or system", o.Role)}
	}
	if (o.ToolCallID != "" || o.ToolName != "") && o.Role != conversation.RoleTool {
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
// does not rebuild prompts (a build does). Errors: those of Validate, an
// invalid id or an unknown conversation (*InputError), and failures to
// lock or write the log.
func (c *Coordinator) Say(ctx context.Context, opts SayOptions) (*SayResult, error) {
	if err := opts.Validate(); err != nil {
		return nil, err
	}
	if _, err := c.store.Path(opts.ID); err != nil {
		return nil, inputError(err)
	}
	rec := Record{Role: opts.Role, Agent: opts.Agent, Content: opts.Text, Internal: opts.Internal,
		ToolCallID: opts.ToolCallID, ToolName: opts.ToolName, IsError: opts.IsError, Iteration: opts.Iteration}
	written, err := c.store.AppendStamped(ctx, opts.ID, rec)
	if err != nil {
		return nil, inputError(err)
	}
	res := &SayResult{Record: written[0]}
	// Found from the newest back through the index: one record read.
	res.Number, _ = c.store.MessageNumber(ctx, opts.ID, res.Record.ID)
	return res, nil
}

// Run is one turn of the coordinator: the package's Run after checking the
// id (an invalid id is an *InputError and nothing is appended). A failed
// agent run is an *AgentError, recorded in the log.
func (c *Coordinator) Run(ctx context.Context, opts RunOptions) (*RunResult, error) {
	if err := conversation.ValidateID(opts.ID); err != nil {
		return nil, &InputError{Err: err}
	}
	res, err := Run(ctx, c.h, opts)
	return res, inputError(err)
}

// List summarises every conversation outside the archive, sorted by id;
// never nil. A conversation that cannot be read (a fork whose parent is
// gone) is left out with a diagnostic whose path is relative to the
// project root when inside it.
func (c *Coordinator) List() ([]conversation.Summary, []Diagnostic, error) {
	list, diags, err := c.store.ListDiagnosed()
	if err != nil {
		return nil, nil, err
	}
	for i, d := range diags {
		if rel, err := filepath.Rel(c.h.Dir(), d.Path); err == nil && filepath.IsLocal(rel) {
			diags[i].Path = filepath.ToSlash(rel)
		}
	}
	if list == nil {
		list = []conversation.Summary{}
	}
	return list, diags, nil
}

// Read reads conversation id back from its log (the archive included),
// with a diagnostic for each malformed line, every record's secrets
// replaced by placeholders: a log recite wrote holds none, and one written
// before redaction (migrate it with `recite redact`) is shown as if it
// were migrated. Errors: an invalid id or an unknown conversation
// (*InputError).
func (c *Coordinator) Read(id string) (*Conversation, []Diagnostic, error) {
	conv, diags, err := c.store.Read(id)
	if err != nil {
		return nil, nil, inputError(err)
	}
	for _, list := range [][]Record{conv.Messages, conv.Iterations, conv.Events} {
		for i := range list {
			conversation.RedactRecord(&list[i], c.h.RedactLog)
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
func (c *Coordinator) ReadRaw(id string) (conv *Conversation, diags []Diagnostic, raw int, err error) {
	conv, diags, raw, err = c.store.ReadRaw(id, filepath.Join(c.h.Dir(), filepath.FromSlash(RawDir)))
	return conv, diags, raw, inputError(err)
}

// Fork creates conversation newID as a branch of id after its first at
// messages. Errors: an invalid id, an unknown parent, an existing newID or
// at outside 0..len(messages) (*InputError).
func (c *Coordinator) Fork(ctx context.Context, id string, at int, newID string) error {
	if err := conversation.ValidateID(newID); err != nil {
		return &InputError{Err: err}
	}
	err := c.store.Fork(ctx, id, at, newID)
	if err != nil && strings.Contains(err.Error(), "out of range") {
		return &InputError{Err: err}
	}
	return inputError(err)
}

// Archive moves conversation id's log to the archive folder, where Read
// still finds it and List does not. Errors: an invalid id, an unknown
// conversation or one already archived (*InputError).
func (c *Coordinator) Archive(ctx context.Context, id string) error {
	return inputError(c.store.Archive(ctx, id))
}

// ArchiveOlderThan archives every listed conversation whose last activity
// is more than age before now, and returns their ids in order (those
// archived before an error too).
func (c *Coordinator) ArchiveOlderThan(ctx context.Context, age time.Duration, now time.Time) ([]string, error) {
	done, err := c.store.ArchiveOlderThan(ctx, age, now)
	return done, inputError(err)
}

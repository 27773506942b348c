package conversations

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/layers"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/planning/conversation"
)

// ShowOptions are what `recite conversation show` prints.
type ShowOptions struct {
	// ID is the conversation; Format md (or markdown), json, or a
	// built-in provider's shape (prompt.Providers).
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
func (c *Coordinator) Show(ctx context.Context, opts ShowOptions, out io.Writer, diag func(Diagnostic)) error {
	md := opts.Format == "md" || opts.Format == "markdown"
	if _, err := prompt.CapabilitiesOf(opts.Format); err != nil && !md && opts.Format != "json" {
		return &InputError{Err: fmt.Errorf("--format %q: want md, json or a provider's shape (%s)", opts.Format, strings.Join(prompt.Providers(), ", "))}
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
		return writeShown(conv, opts, out)
	}
	sn, err := c.store.Snapshot(ctx, opts.ID)
	if err != nil {
		return inputError(err)
	}
	defer sn.Close()
	for _, d := range sn.Diagnostics {
		diag(d)
	}
	if md {
		return sn.WriteMarkdown(out, opts.All)
	}
	return sn.WriteJSON(out, func(r Record) bool { return opts.All || layers.Replayable(r) })
}

// writeShown writes conv in opts.Format: the JSON view, else Show's
// rendering.
func writeShown(conv *Conversation, opts ShowOptions, out io.Writer) error {
	if opts.Format == "json" {
		return conversation.NewView(conv, opts.All).Write(out)
	}
	body, err := ShowConversation(conv, opts.Format, opts.All)
	if err == nil {
		_, err = out.Write(body)
	}
	return err
}

// showRaw is Show with opts.Raw: the conversation in memory, each record
// replaced by its raw form where one was kept (the whole conversation
// through ReadRaw; with Tail, the newest messages of the log's own raw
// store).
func (c *Coordinator) showRaw(ctx context.Context, opts ShowOptions, out io.Writer, diag func(Diagnostic)) error {
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
	return writeShown(conv, opts, out)
}

// window reads the last tail messages of conversation id (the whole
// conversation when tail is 0).
func (c *Coordinator) window(ctx context.Context, id string, tail int) (*Conversation, []Diagnostic, error) {
	w, diags, err := c.store.Window(ctx, id, conversation.WindowOptions{Messages: tail})
	if err != nil {
		return nil, nil, inputError(err)
	}
	return w.Conversation(), diags, nil
}

// ShowConversation renders c as `recite conversation show` prints it:
// "md" or "markdown" is c.Markdown (docs/formats.md#conversation-logs);
// a built-in provider (prompt.Providers) gives the messages alone in that
// provider's request shape (RenderConversation with the default options).
// Another format is an *InputError.
func ShowConversation(c *Conversation, format string, all bool) ([]byte, error) {
	if format == "md" || format == "markdown" {
		return []byte(c.Markdown(all)), nil
	}
	return RenderConversation(c, format, all, prompt.RenderOptions{})
}

// RenderConversation renders the messages of c alone (no other sections) in
// a built-in provider's shape (prompt.Providers); the tools block lists the
// tools the messages call, in order of first use.
// Internal and sidechain messages are left out unless all is true
// (layers.Replayable). C0 control characters other than tab and line feed
// are removed (prompt.CleanControls); the log keeps them. An unknown
// provider is an *InputError naming the ones there are.
func RenderConversation(c *Conversation, provider string, all bool, opts prompt.RenderOptions) ([]byte, error) {
	if _, err := prompt.CapabilitiesOf(provider); err != nil {
		return nil, &InputError{Err: fmt.Errorf("%v (want one of %s)", err, strings.Join(prompt.Providers(), ", "))}
	}
	var recs []Record
	for _, r := range c.Messages {
		if all || layers.Replayable(r) {
			recs = append(recs, r)
		}
	}
	msgs := layers.ToPromptMessages(recs)
	for i := range msgs {
		msgs[i].Content = prompt.CleanControls(msgs[i].Content)
	}
	p := &prompt.Prompt{Target: c.ID, Messages: msgs}
	p.Add(prompt.Section{ID: prompt.IDConversation, Heading: "Conversation " + c.ID, Sources: []string{layout.ConversationLog(c.ID)}})
	if opts.OpenAISystemRole == "" {
		opts.OpenAISystemRole = "system"
	}
	return prompt.Render(p, provider, opts)
}

package conversation

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"
	"time"
)

// View is a conversation as `recite conversation show --format json`
// prints it; the lists are never nil.
type View struct {
	ID           string   `json:"id"`
	Meta         Meta     `json:"meta"`
	Messages     []Record `json:"messages"`
	Iterations   []Record `json:"iterations"`
	Events       []Record `json:"events"`
	Deliverables []string `json:"deliverables"`
}

// NewView is the JSON view of c: its messages that are not Hidden (every
// message when all is true), its iteration and event records and its
// deliverables.
func NewView(c *Conversation, all bool) View {
	v := View{ID: c.ID, Meta: c.Meta, Messages: []Record{}, Iterations: c.Iterations, Events: c.Events, Deliverables: c.Deliverables}
	for _, m := range c.Messages {
		if all || !Hidden(m) {
			v.Messages = append(v.Messages, m)
		}
	}
	if v.Iterations == nil {
		v.Iterations = []Record{}
	}
	if v.Events == nil {
		v.Events = []Record{}
	}
	if v.Deliverables == nil {
		v.Deliverables = []string{}
	}
	return v
}

// Write writes v indented by two spaces, HTML not escaped, with a final
// newline (what WriteJSON streams).
func (v View) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// Markdown is c as markdown for a reader (the view of `recite
// conversation show`): Listing's heading, metadata and count, then every
// message (WriteMessage) numbered by its position in the log, the at of
// Fork. Internal and sidechain messages are counted and hidden unless all.
// For the newest part of a log (Earlier not zero) the count is the whole
// conversation's and the numbers go on from the messages before it.
func (c *Conversation) Markdown(all bool) string {
	var b strings.Builder
	first := c.Earlier.Messages
	l := Listing{ID: c.ID, Meta: c.Meta, Deliverables: c.Deliverables, Messages: first + len(c.Messages)}
	if first > 0 {
		l.Shown = len(c.Messages)
	}
	for _, r := range c.Messages {
		if !all && Hidden(r) {
			l.Hidden++
		}
	}
	_ = l.WriteHeader(&b)
	for i, r := range c.Messages {
		if all || !Hidden(r) {
			_ = WriteMessage(&b, first+i+1, r)
		}
	}
	return b.String()
}

// Listing is what the markdown view of a conversation (`recite
// conversation show`) says above its messages.
type Listing struct {
	// ID, Meta and Deliverables are the conversation's (as Conversation
	// has them).
	ID           string
	Meta         Meta
	Deliverables []string
	// Messages is how many messages the conversation holds, Shown how
	// many of its newest are listed (0: all of them), Hidden how many of
	// the listed ones are left out (internal or sidechain, without All).
	Messages, Shown, Hidden int
}

// Hidden reports whether the views leave message r out unless asked for
// everything: an internal or sidechain message (what engine/layers does
// not replay to a model).
func Hidden(r Record) bool { return r.Internal || r.Sidechain }

// WriteHeader writes the heading, the metadata and the message count.
func (l Listing) WriteHeader(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# Conversation %s\n\n", l.ID)
	m := l.Meta
	for _, kv := range [][2]string{{"Title", m.Title}, {"Agent", m.AgentType}, {"Epic", m.Epic}, {"Phase", m.Phase}, {"Tags", strings.Join(m.Tags, ", ")}, {"Deliverables", strings.Join(l.Deliverables, ", ")}} {
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
	fmt.Fprintf(&b, "- Messages: %d", l.Messages)
	if l.Shown > 0 && l.Shown < l.Messages {
		fmt.Fprintf(&b, "; the last %d shown", l.Shown)
	}
	if l.Hidden > 0 {
		fmt.Fprintf(&b, " (%d internal hidden; --all shows them)", l.Hidden)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteMessage writes message r, number n of the conversation (the at of
// Fork), under a heading with its role, agent, tool, flags and time (RFC
// 3339, UTC), then its content and tool calls.
func WriteMessage(w io.Writer, n int, r Record) error {
	var b strings.Builder
	fmt.Fprintf(&b, "\n### %d. %s · %s\n\n", n, messageLabel(r), r.Time.UTC().Format(time.RFC3339))
	if r.Content != "" {
		b.WriteString(r.Content + "\n")
	}
	for _, tc := range r.ToolCalls {
		fmt.Fprintf(&b, "[tool call %s %s] %s\n", tc.Name, tc.ID, tc.Arguments)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// messageLabel is the heading of a message in the markdown view: role,
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
	for _, f := range []struct {
		on   bool
		name string
	}{{r.IsError, "error"}, {r.Internal, "internal"}, {r.Sidechain, "sidechain"}, {r.CompactSummary, "compact summary"}} {
		if f.on {
			flags = append(flags, f.name)
		}
	}
	if len(flags) > 0 {
		label += " [" + strings.Join(flags, ", ") + "]"
	}
	return label
}

// deliverables collects Conversation.Deliverables over a stream of
// records: the meta's first, then the files of messages, then those of
// iteration records, each once.
type deliverables struct {
	seen       map[string]bool
	list, iter []string
}

func newDeliverables(meta Meta) *deliverables {
	d := &deliverables{seen: map[string]bool{}}
	d.list = d.add(d.list, meta.Deliverables)
	return d
}

func (d *deliverables) add(to, files []string) []string {
	for _, f := range files {
		if f != "" && !d.seen[f] {
			d.seen[f] = true
			to = append(to, f)
		}
	}
	return to
}

// note adds the files of record r.
func (d *deliverables) note(r Record) {
	switch r.Kind {
	case KindMessage:
		d.list = d.add(d.list, r.FilesModified)
	case KindIteration:
		d.iter = d.add(d.iter, r.FilesModified)
	}
}

func (d *deliverables) files() []string { return append(d.list, d.iter...) }

// WriteMarkdown streams the snapshot's conversation as the markdown view
// (Listing, WriteMessage), every message numbered by its position, in two
// passes over its records and in constant memory (the deliverables aside):
// the first counts what the header says, the second writes the messages.
// Internal and sidechain messages are counted and left out unless all.
// Errors: a failed read or write.
func (sn *Snapshot) WriteMarkdown(w io.Writer, all bool) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	l := Listing{ID: sn.Info.ID, Meta: sn.Info.Meta, Messages: sn.Info.Messages}
	d := newDeliverables(sn.Info.Meta)
	for r, err := range sn.Records() {
		if err != nil {
			return err
		}
		d.note(r)
		if r.Kind == KindMessage && !all && Hidden(r) {
			l.Hidden++
		}
	}
	l.Deliverables = d.files()
	if err := l.WriteHeader(bw); err != nil {
		return err
	}
	n := 0
	for r, err := range sn.Records() {
		if err != nil {
			return err
		}
		if r.Kind != KindMessage {
			continue
		}
		n++
		if !all && Hidden(r) {
			continue
		}
		if err := WriteMessage(bw, n, r); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// WriteJSON streams the snapshot's conversation as the JSON view of
// `recite conversation show --format json`: an object with id, meta,
// messages (those keep accepts), iterations, events (meta records with an
// event) and deliverables, indented by two spaces, HTML not escaped, one
// pass over the records per list, in constant memory (the deliverables
// aside). Errors: a failed read, encode or write.
func (sn *Snapshot) WriteJSON(w io.Writer, keep func(Record) bool) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("  ", "  ")
	enc.SetEscapeHTML(false)
	field := func(name string, v any, last bool) error {
		buf.Reset()
		if err := enc.Encode(v); err != nil {
			return err
		}
		sep := ",\n"
		if last {
			sep = "\n"
		}
		_, err := fmt.Fprintf(bw, "  %q: %s%s", name, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), sep)
		return err
	}
	if _, err := bw.WriteString("{\n"); err != nil {
		return err
	}
	if err := field("id", sn.Info.ID, false); err != nil {
		return err
	}
	if err := field("meta", sn.Info.Meta, false); err != nil {
		return err
	}
	d := newDeliverables(sn.Info.Meta)
	lists := []struct {
		name string
		take func(Record) bool
	}{
		{"messages", func(r Record) bool { d.note(r); return r.Kind == KindMessage && keep(r) }},
		{"iterations", func(r Record) bool { d.note(r); return r.Kind == KindIteration }},
		{"events", func(r Record) bool { return r.Kind == KindMeta && r.Event != "" }},
	}
	enc.SetIndent("    ", "  ")
	for _, l := range lists {
		if err := sn.writeJSONList(bw, &buf, enc, l.name, sn.Records(), l.take); err != nil {
			return err
		}
	}
	enc.SetIndent("  ", "  ")
	files := d.files()
	if files == nil {
		files = []string{}
	}
	if err := field("deliverables", files, true); err != nil {
		return err
	}
	if _, err := bw.WriteString("}\n"); err != nil {
		return err
	}
	return bw.Flush()
}

// writeJSONList writes `  "name": [ … ],` with the records of recs that
// take accepts, each encoded by enc (indented for the list) through buf.
func (sn *Snapshot) writeJSONList(bw *bufio.Writer, buf *bytes.Buffer, enc *json.Encoder, name string, recs iter.Seq2[Record, error], take func(Record) bool) error {
	if _, err := fmt.Fprintf(bw, "  %q: [", name); err != nil {
		return err
	}
	n := 0
	for r, err := range recs {
		if err != nil {
			return err
		}
		if !take(r) {
			continue
		}
		buf.Reset()
		if err := enc.Encode(r); err != nil {
			return err
		}
		sep := ",\n    "
		if n == 0 {
			sep = "\n    "
		}
		n++
		if _, err := bw.WriteString(sep); err != nil {
			return err
		}
		if _, err := bw.Write(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})); err != nil {
			return err
		}
	}
	end := "],\n"
	if n > 0 {
		end = "\n  ],\n"
	}
	_, err := bw.WriteString(end)
	return err
}

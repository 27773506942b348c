package conversation

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/recite-dev/recite/markdown"
)

// encodeRecord formats r as one log line, newline included. The timestamp is
// converted to UTC (docs/formats.md#conversation-logs).
func encodeRecord(r Record) ([]byte, error) {
	r.Time = r.Time.UTC()
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode record %s: %w", r.ID, err)
	}
	return append(b, '\n'), nil
}

// parseLine decodes one log line into a record and checks the fields every
// record must have. It returns a message for a diagnostic on failure.
func parseLine(line []byte) (Record, string) {
	if len(line) > 0 && line[0] == fsutil.TornMark {
		return Record{}, "torn record skipped: an append that failed and could not be undone marked it"
	}
	var r Record
	if err := json.Unmarshal(line, &r); err != nil {
		return Record{}, fmt.Sprintf("torn or malformed record skipped: %v", err)
	}
	switch {
	case r.ID == "":
		return Record{}, "record without id skipped"
	case r.Kind != KindMessage && r.Kind != KindIteration && r.Kind != KindMeta:
		return Record{}, fmt.Sprintf("record %s has unknown kind %q; skipped", r.ID, r.Kind)
	case r.Time.IsZero():
		return Record{}, fmt.Sprintf("record %s has no timestamp; skipped", r.ID)
	}
	r.Time = r.Time.UTC()
	return r, ""
}

// ParseLog decodes the bytes of a conversation log. path names the file in
// diagnostics. Blank lines are ignored; a line that is not a valid record (a
// torn write, a merge conflict marker, garbage) is skipped with a diagnostic
// naming path and line, and hides no other line. The records come back in
// file order, duplicates included; see [Normalize].
func ParseLog(path string, data []byte) ([]Record, []markdown.Diagnostic) {
	var recs []Record
	var diags []markdown.Diagnostic
	lineNo := 0
	for len(data) > 0 {
		lineNo++
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		r, msg := parseLine(line)
		if msg != "" {
			diags = append(diags, markdown.Diagnostic{Path: path, Line: lineNo, Message: msg})
			continue
		}
		recs = append(recs, r)
	}
	return recs, diags
}

// Normalize drops records whose id was already seen (keeping the first) and
// sorts the rest by (timestamp, id), the read order of docs/formats.md#conversation-logs. It
// sorts recs in place and returns the shortened slice.
func Normalize(recs []Record) []Record {
	seen := make(map[string]struct{}, len(recs))
	out := recs[:0]
	for _, r := range recs {
		if _, dup := seen[r.ID]; dup {
			continue
		}
		seen[r.ID] = struct{}{}
		out = append(out, r)
	}
	slices.SortStableFunc(out, compareRecords)
	return out
}

func compareRecords(a, b Record) int {
	if c := a.Time.Compare(b.Time); c != 0 {
		return c
	}
	return cmp.Compare(a.ID, b.ID)
}

// Conversation is a conversation as read back from its log (and, for a fork,
// its parent's).
type Conversation struct {
	// ID is the conversation id.
	ID string
	// Meta is the merged metadata of all meta records that carry one:
	// non-empty scalars of later records win, lists are merged in first-seen
	// order. Fork fields come from the first record that has them.
	Meta Meta
	// Messages are the message records in read order; for a fork, the
	// parent's first Meta.ForkAt messages come first.
	Messages []Record
	// Iterations are the iteration records in read order.
	Iterations []Record
	// Events are the meta records that carry an Event (compaction
	// boundaries, session starts, errors), in read order.
	Events []Record
	// Deliverables are the files created or modified: Meta.Deliverables
	// first, then every FilesModified of messages and iterations, once each.
	Deliverables []string
	// TestsPassing is the last reported TestsPassing of any message or
	// iteration, nil when never reported.
	TestsPassing *bool
	// LastActivity is the timestamp of the newest message or iteration
	// record (a fork's inherited messages included), so an imported
	// transcript shows when its last message was written, not when it was
	// imported; a conversation with neither falls back to its newest record
	// (the creation meta). Zero when empty.
	LastActivity time.Time
	// Earlier counts the messages, iteration records and prompt
	// candidates older than Messages and Iterations when the conversation
	// is the newest part of a log (Window.Conversation); zero otherwise.
	Earlier Earlier
	// Signals are, for the newest part of a log, the older records that
	// may hold a stop signal or an error (Window.Signals), in read order;
	// nil otherwise.
	Signals []Record
}

// build assembles a Conversation from normalized records.
func build(id string, recs []Record, inherited []Record) *Conversation {
	c := &Conversation{ID: id}
	c.Messages = append(c.Messages, inherited...)
	var newest time.Time // of any record, the fallback of LastActivity
	for _, r := range recs {
		if r.Time.After(newest) {
			newest = r.Time
		}
		switch r.Kind {
		case KindMessage:
			c.Messages = append(c.Messages, r)
		case KindIteration:
			c.Iterations = append(c.Iterations, r)
		case KindMeta:
			if r.Event != "" {
				c.Events = append(c.Events, r)
			}
			if r.Meta != nil {
				mergeMeta(&c.Meta, *r.Meta)
			}
		}
	}
	for _, set := range [][]Record{c.Messages, c.Iterations} {
		for _, r := range set {
			if r.Time.After(c.LastActivity) {
				c.LastActivity = r.Time
			}
		}
	}
	if c.LastActivity.IsZero() {
		c.LastActivity = newest
	}
	c.finish()
	return c
}

// finish sets Deliverables and TestsPassing from Meta, Messages and
// Iterations.
func (c *Conversation) finish() {
	c.Deliverables, c.TestsPassing = nil, nil
	seen := map[string]bool{}
	add := func(files []string) {
		for _, f := range files {
			if f != "" && !seen[f] {
				seen[f] = true
				c.Deliverables = append(c.Deliverables, f)
			}
		}
	}
	add(c.Meta.Deliverables)
	for _, set := range [][]Record{c.Messages, c.Iterations} {
		for _, r := range set {
			add(r.FilesModified)
			if r.TestsPassing != nil {
				v := *r.TestsPassing
				c.TestsPassing = &v
			}
		}
	}
}

func mergeMeta(dst *Meta, src Meta) {
	set := func(d *string, s string) {
		if s != "" {
			*d = s
		}
	}
	set(&dst.AgentType, src.AgentType)
	set(&dst.Title, src.Title)
	set(&dst.Epic, src.Epic)
	set(&dst.Phase, src.Phase)
	dst.Deliverables = union(dst.Deliverables, src.Deliverables)
	dst.Tags = union(dst.Tags, src.Tags)
	if dst.Parent == "" && src.Parent != "" {
		dst.Parent = src.Parent
		if src.ForkAt != nil {
			v := *src.ForkAt
			dst.ForkAt = &v
		}
	}
}

func union(a, b []string) []string {
	for _, s := range b {
		if !slices.Contains(a, s) {
			a = append(a, s)
		}
	}
	return a
}

package conversation

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// A record too large to carry (docs/formats.md#records-too-large-to-carry):
// one line of the log longer than a window's whole byte bound (a tool's
// 100 MB output on one line) would end the window at once, and the prompt
// would lose it and everything before it without a word. The window
// carries a note in its place instead, with the record's id, kind, time,
// role and size, read from the head of its line alone.

// LeftOutNote is the content that stands for a record left out of a
// window: "[record ID of N bytes left out: too large to carry]" (N with
// thousands separators).
func LeftOutNote(id string, size int64) string {
	return fmt.Sprintf("[record %s of %s bytes left out: too large to carry; the log holds it whole]", id, thousands(size))
}

// LeftOut is set on the Source of a record that stands for one left out
// of a window (see LeftOutNote).
const LeftOut = "recite:left-out"

// leftOutSize is what the note for a record of n bytes counts against a
// window's byte bound: the note and the record's leading fields.
func leftOutSize(n int64) int64 {
	return int64(len(LeftOutNote("", n))) + leftOutFields
}

// leftOutFields bounds the bytes of a note record's other fields (id,
// conversation, kind, time, role).
const leftOutFields = 160

// leftOutHead is how much of a line leftOutRecord reads: the fields that
// come before the content (id, conversation, kind, ts, role, agent,
// provider, model, event) fit in it.
const leftOutHead = 4 << 10

// readCarried is read with each entry longer than maxLen (when maxLen is
// positive) replaced by its leftOutRecord.
func (v *logView) readCarried(es []ordEntry, out []Record, maxLen int64) ([]Record, error) {
	start := 0
	for i, e := range es {
		if maxLen <= 0 || e.Len <= maxLen {
			continue
		}
		var err error
		if out, err = v.read(es[start:i], out); err != nil {
			return out, err
		}
		r, err := v.leftOutRecord(e)
		if err != nil {
			return out, err
		}
		out = append(out, r)
		start = i + 1
	}
	return v.read(es[start:], out)
}

// leftOutRecord is the record that stands for the one of e: its id, kind,
// time, role, agent, provider, model and event from the head of its line,
// and LeftOutNote as its content.
func (v *logView) leftOutRecord(e ordEntry) (Record, error) {
	head := make([]byte, min(e.Len, leftOutHead))
	if _, err := v.log.ReadAt(head, e.Off); err != nil && err != io.EOF {
		return Record{}, fmt.Errorf("read log at %d: %w", e.Off, err)
	}
	r := recordHead(head)
	if r.ID == "" || idCheck(r.ID) != e.Check {
		return Record{}, fmt.Errorf("%w: no record at %d", errBadIndex, e.Off)
	}
	r.Kind = e.Kind
	r.Conversation = v.id
	r.Content = LeftOutNote(r.ID, e.Len)
	r.Source = LeftOut
	return r, nil
}

// recordHead decodes the leading scalar fields of a record's line, as far
// as head holds them: it stops at the first field that is not a string.
func recordHead(head []byte) Record {
	var r Record
	dec := json.NewDecoder(bytes.NewReader(head))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return r
	}
	for {
		k, err := dec.Token()
		key, ok := k.(string)
		if err != nil || !ok {
			return r
		}
		t, err := dec.Token()
		val, ok := t.(string)
		if err != nil || !ok {
			return r
		}
		switch key {
		case "id":
			r.ID = val
		case "ts":
			if ts, err := time.Parse(time.RFC3339Nano, val); err == nil {
				r.Time = ts.UTC()
			}
		case "role":
			r.Role = val
		case "agent":
			r.Agent = val
		case "provider":
			r.Provider = val
		case "model":
			r.Model = val
		case "event":
			r.Event = val
		case "content":
			return r
		}
	}
}

// thousands formats n with commas: 104,857,600.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	var b []byte
	for i := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b = append(b, ',')
		}
		b = append(b, s[i])
	}
	return string(b)
}

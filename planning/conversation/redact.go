package conversation

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/recite-dev/recite/internal/fsutil"
)

// Redactor replaces the secrets of one text by placeholders and returns
// the new text and how many values it replaced (recite's is the engine's
// redaction with the project's key). A Redactor must be idempotent: a
// placeholder is not a secret.
type Redactor func(text string) (string, int)

// RedactRecord replaces, in place, the secrets of every text of r, each
// once it is decoded: the content (a message, a tool's output, an error's
// text, an event's), the arguments of the tool calls, the agent,
// provider, model and event names, the files modified, and the
// metadata's agent type, title, epic, phase, tags and deliverables. A
// text that is a JSON document (tool arguments, a tool's JSON output) is
// redacted as text and then string by string, each string decoded, so a
// secret behind escaped quotes (`{"cmd":"export SECRET_KEY=\"…\""}`) is
// found as it would be in a shell. Arguments that were valid JSON stay
// valid JSON: when a replacement would break them, they become the JSON
// string of the redacted text. The fields that identify rather than say
// something (IdentityFields) are left alone, since the log and the
// providers match them byte for byte. It returns how many values red
// replaced. The rule: docs/formats.md#secrets-in-committed-files.
func RedactRecord(r *Record, red Redactor) int {
	n := 0
	text := func(s *string) {
		if *s == "" {
			return
		}
		out, k := redactText(*s, red, 0)
		*s, n = out, n+k
	}
	text(&r.Content)
	text(&r.Agent)
	text(&r.Provider)
	text(&r.Model)
	text(&r.Event)
	if len(r.ToolCalls) > 0 {
		calls := append([]ToolCall(nil), r.ToolCalls...) // never the caller's array
		for k := range calls {
			a := calls[k].Arguments
			text(&calls[k].Arguments)
			if calls[k].Arguments != a && json.Valid([]byte(a)) && !json.Valid([]byte(calls[k].Arguments)) {
				b, _ := json.Marshal(calls[k].Arguments)
				calls[k].Arguments = string(b)
			}
		}
		r.ToolCalls = calls
	}
	r.FilesModified = redactList(r.FilesModified, text)
	if r.Meta != nil {
		m := *r.Meta
		text(&m.AgentType)
		text(&m.Title)
		text(&m.Epic)
		text(&m.Phase)
		m.Tags = redactList(m.Tags, text)
		m.Deliverables = redactList(m.Deliverables, text)
		r.Meta = &m
	}
	return n
}

// IdentityFields are the string fields of a Record (Go field paths) that
// RedactRecord leaves alone: ids, kinds and roles, the names a tool call
// and its result are matched by, a provider's signature replayed byte for
// byte, a hash, and the source of an imported record. Every other string
// of a record is redacted (TestRedactRecordEveryField).
var IdentityFields = []string{
	"ID", "Conversation", "Kind", "Role", "ToolCalls.ID", "ToolCalls.Name", "ToolCalls.Signature",
	"ToolCallID", "ToolName", "ErrorHash", "Source", "Meta.Parent",
}

// maxJSONDepth bounds how many JSON documents inside JSON strings
// redactText decodes.
const maxJSONDepth = 4

// redactText redacts s as text, then, when s is a JSON document, each of
// its strings decoded (keys too), at most maxJSONDepth documents deep.
func redactText(s string, red Redactor, depth int) (string, int) {
	out, n := red(s)
	// Without a backslash every string of a document is written as it
	// decodes, and the pass over the whole text saw it as it is.
	if depth >= maxJSONDepth || !looksLikeJSON(out) || !strings.Contains(out, `\`) {
		return out, n
	}
	if js, k, ok := redactJSONStrings(out, red, depth+1); ok && k > 0 {
		out, n = js, n+k
	}
	return out, n
}

// looksLikeJSON reports whether s starts, after white space, as a JSON
// object, array or string does.
func looksLikeJSON(s string) bool {
	t := strings.TrimLeft(s, " \t\r\n")
	return t != "" && (t[0] == '{' || t[0] == '[' || t[0] == '"')
}

// redactJSONStrings redacts every string of the JSON document doc as
// decoded text (redactText) and writes each changed string back in its
// place, JSON-encoded; the other bytes stay as they were. ok is false when
// doc is not one valid JSON document.
func redactJSONStrings(doc string, red Redactor, depth int) (string, int, bool) {
	dec := json.NewDecoder(strings.NewReader(doc))
	dec.UseNumber()
	var b strings.Builder
	n, done := 0, 0 // done: bytes of doc copied to b
	for {
		prev := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return doc, 0, false
		}
		str, isString := tok.(string)
		if !isString || str == "" {
			continue
		}
		out, k := redactText(str, red, depth)
		if k == 0 {
			continue
		}
		end := int(dec.InputOffset())
		start := int(prev) // the token follows white space and the delimiters Token skips
		for start < end && strings.IndexByte(" \t\r\n,:", doc[start]) >= 0 {
			start++
		}
		var enc bytes.Buffer
		e := json.NewEncoder(&enc)
		e.SetEscapeHTML(false)
		if e.Encode(out) != nil {
			return doc, 0, false
		}
		b.WriteString(doc[done:start])
		b.Write(bytes.TrimSuffix(enc.Bytes(), []byte("\n")))
		done, n = end, n+k
	}
	if n == 0 {
		return doc, 0, true
	}
	b.WriteString(doc[done:])
	if !json.Valid([]byte(b.String())) {
		return doc, 0, false
	}
	return b.String(), n, true
}

// redactList returns a copy of list with text applied to each item.
func redactList(list []string, text func(*string)) []string {
	if len(list) == 0 {
		return list
	}
	out := append([]string(nil), list...)
	for i := range out {
		text(&out[i])
	}
	return out
}

// redact applies the Store's Redactor to r (a record about to be written)
// and returns the record as it was when Redact changed it (for RawDir),
// else nil.
func (s *Store) redact(r *Record) *Record {
	if s.Redact == nil {
		return nil
	}
	raw := *r
	if RedactRecord(r, s.Redact) == 0 {
		return nil
	}
	return &raw
}

// rawPath is where the raw records of conversation id are kept.
func (s *Store) rawPath(id string) string {
	return filepath.Join(s.RawDir, id+".jsonl")
}

// keepRaw appends the unredacted records of conversation id to
// RawDir/ID.jsonl (folder mode 0700, file mode 0600, fsynced unless
// NoSync). The caller holds the conversation's lock. Without RawDir, or
// with no record, it does nothing.
func (s *Store) keepRaw(id string, raws []Record) error {
	if s.RawDir == "" || len(raws) == 0 {
		return nil
	}
	var buf bytes.Buffer
	for _, r := range raws {
		b, err := encodeRecord(r)
		if err != nil {
			return err
		}
		buf.Write(b)
	}
	if err := os.MkdirAll(s.RawDir, 0o700); err != nil {
		return fmt.Errorf("keep raw records of %q: %w", id, err)
	}
	f, err := os.OpenFile(s.rawPath(id), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("keep raw records of %q: %w", id, err)
	}
	if err := f.Chmod(0o600); err == nil {
		_, err = f.Write(buf.Bytes())
		if err == nil && !s.NoSync {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			return nil
		}
	} else {
		_ = f.Close()
	}
	return fmt.Errorf("keep raw records of %q: %w", id, err)
}

// RawRecords returns the unredacted records kept for conversation id in
// RawDir (see Store.RawDir), by record id: ReadRawRecords(s.RawDir, id).
func (s *Store) RawRecords(id string) (map[string]Record, error) {
	return ReadRawRecords(s.RawDir, id)
}

// ReadRawRecords returns the records kept for conversation id in the raw
// store dir (dir/ID.jsonl, written by a Store with RawDir), by record id;
// an empty map when dir is "" or none were kept. Lines that are not
// records are skipped. Errors: an invalid id, a file that cannot be read.
func ReadRawRecords(dir, id string) (map[string]Record, error) {
	out := map[string]Record{}
	if err := ValidateID(id); err != nil {
		return nil, err
	}
	if dir == "" {
		return out, nil
	}
	p := filepath.Join(dir, id+".jsonl")
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return out, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read raw records of %q: %w", id, err)
	}
	recs, _ := ParseLog(p, b)
	for _, r := range recs {
		out[r.ID] = r
	}
	return out, nil
}

// RedactLog rewrites the log of conversation id (in Dir or the archive)
// with the Store's Redactor applied to every record, under the
// conversation's lock, atomically (a temporary file renamed over the log,
// internal/fsutil.WriteFile): the lines keep their order and the records
// their ids and times; a record without secrets keeps its bytes. A record
// whose bytes this package would not write back as they are (fields it
// does not know) and a line that is not a record are redacted as text,
// and kept only when the result still parses as they did. With RawDir the
// records as they were are kept there first. It returns how many values
// were replaced; the log is not written when none was (a second run
// changes nothing), and lines it could not redact are counted in kept.
// Errors: an invalid id, an unknown conversation, no Redactor, I/O.
func (s *Store) RedactLog(ctx context.Context, id string) (replaced, kept int, err error) {
	if s.Redact == nil {
		return 0, 0, errors.New("redact log: the store has no Redactor")
	}
	if err := ValidateID(id); err != nil {
		return 0, 0, err
	}
	err = s.withLock(ctx, id, func() error {
		p, err := s.existingPath(id)
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return fmt.Errorf("redact %q: %w", id, err)
		}
		out, raws, n, k := s.redactLines(data)
		replaced, kept = n, k
		if n == 0 {
			return nil
		}
		if err := s.keepRaw(id, raws); err != nil {
			return err
		}
		if err := fsutil.WriteFile(p, out, 0o644); err != nil {
			return fmt.Errorf("redact %q: %w", id, err)
		}
		s.dropIndex(id) // the offsets moved
		return nil
	})
	return replaced, kept, err
}

// redactLines redacts the lines of a log (RedactLog) and returns the new
// bytes, the records as they were before a change, the values replaced
// and the lines that hold a secret but could not be redacted.
func (s *Store) redactLines(data []byte) (out []byte, raws []Record, replaced, kept int) {
	var b bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	sc.Split(scanLinesKeepEnd)
	for sc.Scan() {
		line := sc.Bytes()
		body, end := bytes.CutSuffix(line, []byte{'\n'})
		text := recordText(body)
		if text == nil {
			b.Write(line)
			continue
		}
		r, bad := parseLine(text)
		if bad == "" {
			if enc, err := encodeRecord(r); err == nil && bytes.Equal(enc[:len(enc)-1], text) {
				raw := r
				if n := RedactRecord(&r, s.Redact); n > 0 {
					if enc, err := encodeRecord(r); err == nil {
						b.Write(enc[:len(enc)-1])
						b.Write(body[len(text):]) // a trailing \r stays
						if end {
							b.WriteByte('\n')
						}
						raws, replaced = append(raws, raw), replaced+n
						continue
					}
				}
				b.Write(line)
				continue
			}
		}
		red, n := s.Redact(string(text))
		_, rbad := parseLine([]byte(red))
		if n == 0 || (rbad == "") != (bad == "") {
			b.Write(line)
			if n > 0 {
				kept++
			}
			continue
		}
		if bad == "" {
			raws = append(raws, r)
		}
		b.WriteString(red)
		b.Write(body[len(text):])
		if end {
			b.WriteByte('\n')
		}
		replaced += n
	}
	return b.Bytes(), raws, replaced, kept
}

// scanLinesKeepEnd is bufio.ScanLines keeping each line's "\n".
func scanLinesKeepEnd(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, '\n'); i >= 0 {
		return i + 1, data[:i+1], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

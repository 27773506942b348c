package conversation

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/recite-dev/recite/markdown"
)

// Report accounts for every entry of an imported transcript: each one was
// imported (became one or more records) or skipped for a counted reason, so
// Entries == Imported + the sum of Skipped.
type Report struct {
	// Entries is the number of entries read (Claude Code: non-blank JSONL
	// lines; aider: blocks, see ImportAider).
	Entries int `json:"entries"`
	// Imported is the number of entries that became records.
	Imported int `json:"imported"`
	// Records is the number of records produced.
	Records int `json:"records"`
	// Skipped counts skipped entries by reason.
	Skipped map[string]int `json:"skipped,omitempty"`
	// Diagnostics name the line of each malformed entry.
	Diagnostics []markdown.Diagnostic `json:"diagnostics,omitempty"`
	// Unknown counts the fields of imported entries the importer does not
	// know ("response_item:function_call.namespace"), which it did not
	// carry into the records: a newer writer's, to be looked at rather
	// than dropped without a word (the Codex importer reports them).
	Unknown map[string]int `json:"unknown,omitempty"`
}

func (r *Report) skip(reason string) {
	if r.Skipped == nil {
		r.Skipped = map[string]int{}
	}
	r.Skipped[reason]++
}

// SkippedTotal is the sum of Skipped.
func (r Report) SkippedTotal() int {
	n := 0
	for _, v := range r.Skipped {
		n += v
	}
	return n
}

// FormatError is the error of an importer whose input is not in its
// format at all (a file given to the wrong importer): nothing is imported.
// The command line prefixes the file name and exits 2.
type FormatError struct {
	// What names the expected format, with its article: "a Claude Code
	// transcript (JSONL)", "an aider chat history (.aider.chat.history.md)".
	What string
	// Reason says what was found instead, with a hint at the right
	// importer when the input looks like the other format.
	Reason string
}

// Error reads "does not look like WHAT: REASON".
func (e *FormatError) Error() string { return "does not look like " + e.What + ": " + e.Reason }

// Formats named by FormatError.
const (
	ccWhat    = "a Claude Code transcript (JSONL)"
	aiderWhat = "an aider chat history (.aider.chat.history.md)"
)

// looksJSONObject reports whether a line is a whole JSON object, the shape
// of every JSONL transcript line.
func looksJSONObject(line []byte) bool {
	t := bytes.TrimSpace(line)
	return len(t) > 0 && t[0] == '{' && json.Valid(t)
}

// ccEntry is the part of a Claude Code transcript entry the importer reads
// (docs/providers.md#claude-code-transcripts; there is no official schema).
type ccEntry struct {
	Type             string          `json:"type"`
	Subtype          string          `json:"subtype"`
	UUID             string          `json:"uuid"`
	Timestamp        string          `json:"timestamp"`
	IsSidechain      bool            `json:"isSidechain"`
	IsMeta           bool            `json:"isMeta"`
	IsCompactSummary bool            `json:"isCompactSummary"`
	Content          json.RawMessage `json:"content"`
	Summary          string          `json:"summary"`
	LeafUUID         string          `json:"leafUuid"`
	Level            string          `json:"level"`
	Error            json.RawMessage `json:"error"`
	ToolUseResult    json.RawMessage `json:"toolUseResult"`
	CompactMetadata  *struct {
		Trigger   string `json:"trigger"`
		PreTokens int    `json:"preTokens"`
	} `json:"compactMetadata"`
	Message *struct {
		Role    string          `json:"role"`
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// ccBlock is one content block of a Claude Code message.
type ccBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// ccAgent is the Agent of imported Claude Code records.
const ccAgent = "claude-code"

// ImportClaudeCode turns a Claude Code session transcript (JSONL, one entry a
// line, docs/providers.md#claude-code-transcripts) into records, in file
// order:
//
//   - user and assistant entries become one message record per content
//     block: text → a message of the entry's role; thinking → an internal
//     assistant message; tool_use → an assistant message with one ToolCall
//     whose Arguments is the input JSON verbatim; tool_result → a tool
//     message with ToolCallID, the ToolName of its call, and IsError (also
//     set when the entry's toolUseResult says the call failed although
//     the block does not, as TaskOutput's nested task.status does; see
//     ToolOutput). A user entry with isCompactSummary is flagged
//     CompactSummary; isMeta entries are Internal; isSidechain entries are
//     flagged Sidechain; a user text holding a background task's
//     <task-notification> whose status is failed is IsError.
//   - system entries with subtype compact_boundary and api_error, and
//     summary entries, become meta records with an Event.
//   - everything else (progress, file-history-snapshot, queue-operation,
//     other system subtypes) is skipped and counted by "type" or
//     "system:subtype".
//
// Record ids are "cc-" + the entry uuid, with "-N" for block N when an entry
// has several blocks, so importing twice with [Store.AppendNew] adds
// nothing. Conversation is left empty (Append sets it). A malformed line is
// skipped with a diagnostic naming the line (the path is "claude-code").
// A line holding several JSON objects glued together (a writer that lost
// a newline) is read object by object, each an entry, with a diagnostic
// naming the line; what follows the last object that parses is one
// malformed entry.
//
// When no line is a transcript entry (a JSON object with a "type"), which
// includes an empty input, the input is not a Claude Code transcript: the
// error is a *FormatError and no record is returned (with a hint when the
// lines look like an aider chat history). Any other error is a failing
// reader's.
func ImportClaudeCode(r io.Reader) ([]Record, Report, error) {
	im := &ccImporter{calls: map[string]string{}}
	br := bufio.NewReader(r)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			im.line(line)
		}
		if err == io.EOF {
			if im.typed == 0 {
				return nil, im.rep, im.notTranscript()
			}
			return im.out, im.rep, nil
		}
		if err != nil {
			return im.out, im.rep, fmt.Errorf("import claude-code line %d: %w", im.lineNo+1, err)
		}
	}
}

// ccImporter is the state of one ImportClaudeCode.
type ccImporter struct {
	rep                     Report
	out                     []Record
	lineNo, typed, aiderish int
	firstReason             string
	firstLine               int
	// calls maps tool_use ids to their tool's name.
	calls map[string]string
}

// line reads one line of the transcript: no entry when blank, one entry
// per JSON object on it.
func (im *ccImporter) line(line []byte) {
	im.lineNo++
	t := bytes.TrimSpace(line)
	if len(t) == 0 {
		return
	}
	if looksAider(line) {
		im.aiderish++
	}
	objs, rest := [][]byte{t}, []byte(nil)
	if !json.Valid(t) {
		objs, rest = splitObjects(t)
	}
	if len(objs) > 1 {
		im.diag(fmt.Sprintf("%d JSON objects glued on one line; each was read as an entry", len(objs)))
	}
	for _, o := range objs {
		im.entry(o)
	}
	if len(rest) > 0 {
		im.entry(rest)
	}
}

// splitObjects reads the JSON values of a line one after another with a
// json.Decoder: the values read, and what follows the last one that
// parses (nil when the line ends there). A line whose start does not parse
// is all rest.
func splitObjects(line []byte) (objs [][]byte, rest []byte) {
	dec := json.NewDecoder(bytes.NewReader(line))
	var end int64
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			if err == io.EOF {
				return objs, nil
			}
			if r := bytes.TrimSpace(line[end:]); len(r) > 0 {
				rest = r
			}
			return objs, rest
		}
		objs = append(objs, raw)
		end = dec.InputOffset()
	}
}

// entry converts one entry and accounts for it.
func (im *ccImporter) entry(obj []byte) {
	im.rep.Entries++
	recs, reason := im.convert(obj)
	if reason != "malformed JSON" && reason != "malformed: no type" {
		im.typed++
	} else if im.firstLine == 0 {
		im.firstReason, im.firstLine = reason, im.lineNo
	}
	if reason != "" {
		im.rep.skip(reason)
		if strings.HasPrefix(reason, "malformed") {
			im.diag(reason)
		}
		return
	}
	im.rep.Imported++
	im.rep.Records += len(recs)
	im.out = append(im.out, recs...)
}

func (im *ccImporter) diag(msg string) {
	im.rep.Diagnostics = append(im.rep.Diagnostics, markdown.Diagnostic{Path: "claude-code", Line: im.lineNo, Message: msg})
}

// notTranscript is the *FormatError of an input without a transcript
// entry.
func (im *ccImporter) notTranscript() error {
	reason := "it is empty"
	if im.rep.Entries > 0 {
		reason = fmt.Sprintf("none of its %d non-blank lines is a transcript entry (a JSON object with a \"type\"; line %d: %s)", im.rep.Entries, im.firstLine, im.firstReason)
	}
	if im.aiderish > 0 {
		reason += "; it looks like an aider chat history: use `recite import aider`"
	}
	return &FormatError{What: ccWhat, Reason: reason}
}

// convert converts one entry, or returns why it was skipped.
func (im *ccImporter) convert(line []byte) ([]Record, string) {
	var e ccEntry
	if err := json.Unmarshal(line, &e); err != nil {
		return nil, "malformed JSON"
	}
	switch e.Type {
	case "user", "assistant", "system", "summary":
	case "":
		return nil, "malformed: no type"
	default:
		return nil, e.Type
	}
	if e.Type == "system" && e.Subtype != "compact_boundary" && e.Subtype != "api_error" {
		return nil, "system:" + e.Subtype
	}
	if e.Type == "summary" {
		return ccSummary(e)
	}
	if e.UUID == "" {
		return nil, "malformed: no uuid"
	}
	ts, err := time.Parse(time.RFC3339Nano, e.Timestamp)
	if err != nil {
		return nil, "malformed: bad timestamp"
	}
	base := Record{ID: "cc-" + e.UUID, Time: ts.UTC(), Source: e.UUID, Sidechain: e.IsSidechain, Agent: ccAgent}
	if e.Type == "system" {
		return []Record{ccSystem(e, base)}, ""
	}
	return im.message(e, base)
}

// ccSummary converts a summary entry (it titles the session and has no
// timestamp).
func ccSummary(e ccEntry) ([]Record, string) {
	if e.Summary == "" {
		return nil, "summary:empty"
	}
	id := e.LeafUUID
	if id == "" {
		id = e.UUID
	}
	return []Record{{ID: "cc-summary-" + id, Kind: KindMeta, Time: time.Unix(0, 0).UTC(),
		Event: EventSummary, Content: e.Summary, Source: id, Meta: &Meta{Title: e.Summary}}}, ""
}

// ccSystem converts a compact_boundary or api_error system entry.
func ccSystem(e ccEntry, base Record) Record {
	r := base
	r.Kind = KindMeta
	r.Agent = ""
	switch e.Subtype {
	case "compact_boundary":
		r.Event = EventCompactBoundary
		r.Content = jsonString(e.Content)
		if m := e.CompactMetadata; m != nil {
			r.Content = strings.TrimSpace(fmt.Sprintf("%s (trigger %s, %d tokens before)", r.Content, m.Trigger, m.PreTokens))
		}
	case "api_error":
		r.Event = EventAPIError
		r.IsError = true
		r.Content = string(e.Error)
		if c := jsonString(e.Content); c != "" {
			r.Content = c
		}
	}
	return r
}

// message converts a user or assistant entry, one record per content
// block.
func (im *ccImporter) message(e ccEntry, base Record) ([]Record, string) {
	if e.Message == nil {
		return nil, "malformed: no message"
	}
	role := e.Message.Role
	if role == "" {
		role = e.Type
	}
	if role != RoleUser && role != RoleAssistant {
		return nil, "malformed: role " + role
	}
	base.Role = role
	base.Internal = e.IsMeta
	base.CompactSummary = e.IsCompactSummary
	if role == RoleAssistant {
		base.Provider = "anthropic"
		base.Model = e.Message.Model
	}
	var blocks []ccBlock
	if s, ok := asString(e.Message.Content); ok {
		blocks = []ccBlock{{Type: "text", Text: s}}
	} else if err := json.Unmarshal(e.Message.Content, &blocks); err != nil {
		return nil, "malformed: message content"
	}
	if len(blocks) == 0 {
		return nil, "empty content"
	}
	results := 0
	for _, b := range blocks {
		if b.Type == "tool_result" {
			results++
		}
	}
	out := make([]Record, 0, len(blocks))
	for i, b := range blocks {
		r := base
		if len(blocks) > 1 {
			r.ID = fmt.Sprintf("%s-%d", base.ID, i)
		}
		im.block(&r, b)
		if b.Type == "tool_result" && !r.IsError && results == 1 {
			// The block says the call ran; the entry's toolUseResult can
			// still say what it ran failed (TaskOutput's task.status).
			_, r.IsError = ToolOutput(e.ToolUseResult)
		}
		out = append(out, r)
	}
	return out, ""
}

// block fills r from one content block.
func (im *ccImporter) block(r *Record, b ccBlock) {
	switch b.Type {
	case "text":
		r.Content = b.Text
		if r.Role == RoleUser {
			if n, ok := ParseTaskNotification(b.Text); ok && n.Failed() {
				r.IsError = true
			}
		}
	case "thinking", "redacted_thinking":
		r.Role = RoleAssistant
		r.Internal = true
		r.Content = b.Thinking
	case "tool_use":
		r.Role = RoleAssistant
		r.ToolCalls = []ToolCall{{ID: b.ID, Name: b.Name, Arguments: string(b.Input)}}
		if b.ID != "" {
			im.calls[b.ID] = b.Name
		}
	case "tool_result":
		r.Role = RoleTool
		r.Provider, r.Model = "", ""
		r.ToolCallID = b.ToolUseID
		r.ToolName = im.calls[b.ToolUseID]
		r.IsError = b.IsError
		r.Content = toolResultText(b.Content)
	case "image":
		r.Content = "[image]"
	default:
		r.Content = "[" + b.Type + "]"
	}
}

func asString(raw json.RawMessage) (string, bool) {
	var s string
	if len(raw) > 0 && raw[0] == '"' && json.Unmarshal(raw, &s) == nil {
		return s, true
	}
	return "", false
}

func jsonString(raw json.RawMessage) string {
	s, _ := asString(raw)
	return s
}

// toolResultText flattens a tool_result content: a string, or blocks whose
// text parts are joined with newlines and images shown as "[image]".
func toolResultText(raw json.RawMessage) string {
	if s, ok := asString(raw); ok {
		return s
	}
	var blocks []ccBlock
	if json.Unmarshal(raw, &blocks) != nil {
		return string(raw)
	}
	parts := make([]string, 0, len(blocks))
	for _, b := range blocks {
		if b.Type == "text" {
			parts = append(parts, b.Text)
		} else {
			parts = append(parts, "["+b.Type+"]")
		}
	}
	return strings.Join(parts, "\n")
}

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

// looksAider reports whether a line is one of aider's markers (a session
// start or a user line).
func looksAider(line []byte) bool {
	s := string(bytes.TrimRight(line, " \r\n"))
	return strings.HasPrefix(s, aiderStart) || s == "####" || strings.HasPrefix(s, "#### ")
}

// ccEntry is the part of a Claude Code transcript entry the importer reads
// (PROVIDERS.md §3; there is no official schema).
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

// ImportClaudeCode turns a Claude Code session transcript (JSONL, one entry
// a line, PROVIDERS.md §3) into records, in file order:
//
//   - user and assistant entries become one message record per content
//     block: text → a message of the entry's role; thinking → an internal
//     assistant message; tool_use → an assistant message with one ToolCall
//     whose Arguments is the input JSON verbatim; tool_result → a tool
//     message with ToolCallID and IsError. A user entry with
//     isCompactSummary is flagged CompactSummary; isMeta entries are
//     Internal; isSidechain entries are flagged Sidechain.
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
//
// When no line is a transcript entry (a JSON object with a "type"), which
// includes an empty input, the input is not a Claude Code transcript: the
// error is a *FormatError and no record is returned (with a hint when the
// lines look like an aider chat history). Any other error is a failing
// reader's.
func ImportClaudeCode(r io.Reader) ([]Record, Report, error) {
	var rep Report
	var out []Record
	br := bufio.NewReader(r)
	lineNo, typed, aiderLines := 0, 0, 0
	firstReason, firstLine := "", 0
	notTranscript := func() error {
		reason := "it is empty"
		if rep.Entries > 0 {
			reason = fmt.Sprintf("none of its %d non-blank lines is a transcript entry (a JSON object with a \"type\"; line %d: %s)", rep.Entries, firstLine, firstReason)
		}
		if aiderLines > 0 {
			reason += "; it looks like an aider chat history: use `recite import aider`"
		}
		return &FormatError{What: ccWhat, Reason: reason}
	}
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 {
			lineNo++
			if t := bytes.TrimSpace(line); len(t) > 0 {
				rep.Entries++
				recs, reason := ccConvert(t)
				if reason != "malformed JSON" && reason != "malformed: no type" {
					typed++
				} else if firstLine == 0 {
					firstReason, firstLine = reason, lineNo
				}
				if looksAider(line) {
					aiderLines++
				}
				if reason != "" {
					rep.skip(reason)
					if strings.HasPrefix(reason, "malformed") {
						rep.Diagnostics = append(rep.Diagnostics, markdown.Diagnostic{Path: "claude-code", Line: lineNo, Message: reason})
					}
				} else {
					rep.Imported++
					rep.Records += len(recs)
					out = append(out, recs...)
				}
			}
		}
		if err == io.EOF {
			if typed == 0 {
				return nil, rep, notTranscript()
			}
			return out, rep, nil
		}
		if err != nil {
			return out, rep, fmt.Errorf("import claude-code line %d: %w", lineNo+1, err)
		}
	}
}

// ccConvert converts one entry, or returns why it was skipped.
func ccConvert(line []byte) ([]Record, string) {
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
		if e.Summary == "" {
			return nil, "summary:empty"
		}
		id := e.LeafUUID
		if id == "" {
			id = e.UUID
		}
		// A summary entry has no timestamp; it titles the session.
		return []Record{{ID: "cc-summary-" + id, Kind: KindMeta, Time: time.Unix(0, 0).UTC(),
			Event: EventSummary, Content: e.Summary, Source: id, Meta: &Meta{Title: e.Summary}}}, ""
	}
	if e.UUID == "" {
		return nil, "malformed: no uuid"
	}
	ts, err := time.Parse(time.RFC3339Nano, e.Timestamp)
	if err != nil {
		return nil, "malformed: bad timestamp"
	}
	ts = ts.UTC()
	base := Record{ID: "cc-" + e.UUID, Time: ts, Source: e.UUID, Sidechain: e.IsSidechain, Agent: ccAgent}
	if e.Type == "system" {
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
		return []Record{r}, ""
	}
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
	var out []Record
	for i, b := range blocks {
		r := base
		if len(blocks) > 1 {
			r.ID = fmt.Sprintf("%s-%d", base.ID, i)
		}
		switch b.Type {
		case "text":
			r.Content = b.Text
		case "thinking", "redacted_thinking":
			r.Role = RoleAssistant
			r.Internal = true
			r.Content = b.Thinking
		case "tool_use":
			r.Role = RoleAssistant
			r.ToolCalls = []ToolCall{{ID: b.ID, Name: b.Name, Arguments: string(b.Input)}}
		case "tool_result":
			r.Role = RoleTool
			r.Provider, r.Model = "", ""
			r.ToolCallID = b.ToolUseID
			r.IsError = b.IsError
			r.Content = toolResultText(b.Content)
		case "image":
			r.Content = "[image]"
		default:
			r.Content = "[" + b.Type + "]"
		}
		out = append(out, r)
	}
	return out, ""
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

// aiderStart is the line aider writes when a session starts (PROVIDERS.md
// §1, aider/io.py).
const aiderStart = "# aider chat started at "

// ImportAider turns an aider chat history (.aider.chat.history.md,
// PROVIDERS.md §1) into records. The file is read as blocks, each an entry:
//
//   - a "# aider chat started at YYYY-MM-DD HH:MM:SS" line → a meta record
//     with EventSessionStart; the local time is taken as UTC (aider writes
//     no zone);
//   - consecutive "#### " lines → one user message;
//   - consecutive "> " lines → one internal system message (aider's own
//     output, with the Markdown line-break spaces removed; ToolName "aider");
//   - other text up to the next marker → one assistant message.
//
// Blank lines separate blocks and are not entries. Like aider's own
// restore, the markers are not recognised inside assistant code fences.
// Aider records no per-message times, so every record of a session carries
// the session's start time, and ids "aider-LLLLLLLL" (the block's first
// line, zero-padded) keep file order under (timestamp, id) and make a second
// import add nothing. Records before the first session marker get the Unix
// epoch.
//
// An input that is not an aider chat history is a *FormatError and yields
// no record: one whose first non-blank line is a JSON object (JSONL, such
// as a Claude Code transcript; detected on that line, before reading on),
// and one with no "####" user line (which includes an empty input).
func ImportAider(r io.Reader) ([]Record, Report, error) {
	var rep Report
	var out []Record
	session := time.Unix(0, 0).UTC()
	type block struct {
		kind  string // user, output, assistant
		start int
		lines []string
	}
	var cur *block
	flush := func() {
		if cur == nil {
			return
		}
		b := cur
		cur = nil
		rep.Entries++
		text := strings.Join(b.lines, "\n")
		if b.kind == "assistant" {
			text = strings.Trim(text, "\n")
		}
		rec := Record{ID: fmt.Sprintf("aider-%08d", b.start), Kind: KindMessage, Time: session,
			Source: fmt.Sprintf("aider:%d", b.start), Content: text}
		switch b.kind {
		case "user":
			rec.Role = RoleUser
		case "output":
			rec.Role = RoleSystem
			rec.Internal = true
			rec.ToolName = "aider"
		default:
			rec.Role = RoleAssistant
			rec.Agent = "aider"
		}
		rep.Imported++
		rep.Records++
		out = append(out, rec)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	lineNo, users := 0, 0
	sniffed := false
	for sc.Scan() {
		lineNo++
		line := strings.TrimSuffix(sc.Text(), "\r")
		if !sniffed && strings.TrimSpace(line) != "" {
			sniffed = true
			if looksJSONObject(sc.Bytes()) {
				return nil, Report{}, &FormatError{What: aiderWhat, Reason: fmt.Sprintf("line %d is a JSON object; it looks like JSONL (a Claude Code transcript? use `recite import claude-code`)", lineNo)}
			}
		}
		switch {
		case strings.HasPrefix(line, aiderStart):
			flush()
			rep.Entries++
			stamp := strings.TrimSpace(strings.TrimPrefix(line, aiderStart))
			t, err := time.Parse(time.DateTime, stamp)
			if err != nil {
				rep.skip("malformed session marker")
				rep.Diagnostics = append(rep.Diagnostics, markdown.Diagnostic{Path: "aider", Line: lineNo,
					Message: fmt.Sprintf("session marker time %q: %v", stamp, err)})
				continue
			}
			session = t.UTC()
			rep.Imported++
			rep.Records++
			out = append(out, Record{ID: fmt.Sprintf("aider-%08d", lineNo), Kind: KindMeta, Time: session,
				Event: EventSessionStart, Content: stamp, Source: fmt.Sprintf("aider:%d", lineNo)})
		case line == "####" || strings.HasPrefix(line, "#### "):
			users++
			if cur == nil || cur.kind != "user" {
				flush()
				cur = &block{kind: "user", start: lineNo}
			}
			cur.lines = append(cur.lines, strings.TrimPrefix(strings.TrimPrefix(trimBreak(line), "####"), " "))
		case line == ">" || strings.HasPrefix(line, "> "):
			if cur == nil || cur.kind != "output" {
				flush()
				cur = &block{kind: "output", start: lineNo}
			}
			cur.lines = append(cur.lines, strings.TrimPrefix(strings.TrimPrefix(trimBreak(line), ">"), " "))
		case strings.TrimSpace(line) == "":
			if cur != nil && cur.kind == "assistant" {
				cur.lines = append(cur.lines, line)
			} else {
				flush()
			}
		default:
			if cur == nil || cur.kind != "assistant" {
				flush()
				cur = &block{kind: "assistant", start: lineNo}
			}
			cur.lines = append(cur.lines, line)
		}
	}
	flush()
	if err := sc.Err(); err != nil {
		return out, rep, fmt.Errorf("import aider line %d: %w", lineNo+1, err)
	}
	if users == 0 {
		reason := "it is empty"
		if lineNo > 0 {
			reason = fmt.Sprintf("none of its %d lines is a \"#### \" user line", lineNo)
		}
		return nil, rep, &FormatError{What: aiderWhat, Reason: reason}
	}
	return out, rep, nil
}

// trimBreak removes the two-space Markdown line break aider appends.
func trimBreak(s string) string {
	return strings.TrimSuffix(s, "  ")
}

package conversation

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/recite-dev/recite/markdown"
)

// looksAider reports whether a line is one of aider's markers (a session
// start or a user line).
func looksAider(line []byte) bool {
	s := string(bytes.TrimRight(line, " \r\n"))
	return strings.HasPrefix(s, aiderStart) || s == "####" || strings.HasPrefix(s, "#### ")
}

// aiderStart is the line aider writes when a session starts
// (docs/providers.md#aider-history; aider's source, aider/io.py).
const aiderStart = "# aider chat started at "

// ImportAider turns an aider chat history (.aider.chat.history.md,
// docs/providers.md#aider-history) into records. The file is read as blocks,
// each an entry:
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
	im := &aiderImporter{session: time.Unix(0, 0).UTC()}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	sniffed := false
	for sc.Scan() {
		im.lineNo++
		line := strings.TrimSuffix(sc.Text(), "\r")
		if !sniffed && strings.TrimSpace(line) != "" {
			sniffed = true
			if looksJSONObject(sc.Bytes()) {
				return nil, Report{}, &FormatError{What: aiderWhat, Reason: fmt.Sprintf("line %d is a JSON object; it looks like JSONL (a Claude Code transcript? use `recite import claude-code`)", im.lineNo)}
			}
		}
		im.line(line)
	}
	im.flush()
	if err := sc.Err(); err != nil {
		return im.out, im.rep, fmt.Errorf("import aider line %d: %w", im.lineNo+1, err)
	}
	if im.users == 0 {
		reason := "it is empty"
		if im.lineNo > 0 {
			reason = fmt.Sprintf("none of its %d lines is a \"#### \" user line", im.lineNo)
		}
		return nil, im.rep, &FormatError{What: aiderWhat, Reason: reason}
	}
	return im.out, im.rep, nil
}

// aiderBlock is one block of an aider history: consecutive lines of one
// kind (user, output, assistant) from line start.
type aiderBlock struct {
	kind  string
	start int
	lines []string
}

// aiderImporter is the state of one ImportAider.
type aiderImporter struct {
	rep           Report
	out           []Record
	session       time.Time
	cur           *aiderBlock
	lineNo, users int
}

// line reads one line (without its line ending).
func (im *aiderImporter) line(line string) {
	switch {
	case strings.HasPrefix(line, aiderStart):
		im.flush()
		im.sessionStart(line)
	case line == "####" || strings.HasPrefix(line, "#### "):
		im.users++
		im.add("user", strings.TrimPrefix(strings.TrimPrefix(trimBreak(line), "####"), " "))
	case line == ">" || strings.HasPrefix(line, "> "):
		im.add("output", strings.TrimPrefix(strings.TrimPrefix(trimBreak(line), ">"), " "))
	case strings.TrimSpace(line) == "":
		if im.cur != nil && im.cur.kind == "assistant" {
			im.cur.lines = append(im.cur.lines, line)
		} else {
			im.flush()
		}
	default:
		im.add("assistant", line)
	}
}

// add appends a line to the current block of kind, starting one when the
// current block is of another kind.
func (im *aiderImporter) add(kind, text string) {
	if im.cur == nil || im.cur.kind != kind {
		im.flush()
		im.cur = &aiderBlock{kind: kind, start: im.lineNo}
	}
	im.cur.lines = append(im.cur.lines, text)
}

// sessionStart reads a "# aider chat started at …" line.
func (im *aiderImporter) sessionStart(line string) {
	im.rep.Entries++
	stamp := strings.TrimSpace(strings.TrimPrefix(line, aiderStart))
	t, err := time.Parse(time.DateTime, stamp)
	if err != nil {
		im.rep.skip("malformed session marker")
		im.rep.Diagnostics = append(im.rep.Diagnostics, markdown.Diagnostic{Path: "aider", Line: im.lineNo,
			Message: fmt.Sprintf("session marker time %q: %v", stamp, err)})
		return
	}
	im.session = t.UTC()
	im.rep.Imported++
	im.rep.Records++
	im.out = append(im.out, Record{ID: fmt.Sprintf("aider-%08d", im.lineNo), Kind: KindMeta, Time: im.session,
		Event: EventSessionStart, Content: stamp, Source: fmt.Sprintf("aider:%d", im.lineNo)})
}

// flush turns the current block into a record.
func (im *aiderImporter) flush() {
	b := im.cur
	if b == nil {
		return
	}
	im.cur = nil
	im.rep.Entries++
	text := strings.Join(b.lines, "\n")
	if b.kind == "assistant" {
		text = strings.Trim(text, "\n")
	}
	rec := Record{ID: fmt.Sprintf("aider-%08d", b.start), Kind: KindMessage, Time: im.session,
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
	im.rep.Imported++
	im.rep.Records++
	im.out = append(im.out, rec)
}

// trimBreak removes the two-space Markdown line break aider appends.
func trimBreak(s string) string {
	return strings.TrimSuffix(s, "  ")
}

// Package markdown is recite's lenient reader for the markdown files of a
// planning tree. It wraps goldmark (GFM) and go.yaml.in/yaml/v3 and turns one
// file into a Document: front matter, sections, checkboxes, fields, pipe
// tables and pseudo-XML task blocks, each with the line it came from in the
// original file.
//
// The pipeline is docs/formats.md#reading-pipeline: strip a UTF-8 BOM,
// remember and normalise CRLF, split (stacked) front matter blocks, then walk
// the goldmark AST, skipping fenced and indented code. Parse never fails and
// never panics: what it cannot read becomes a Diagnostic naming the file and
// line, and the body is always kept.
package markdown

// Document is one parsed markdown file. Line numbers anywhere in a Document
// are 1-based lines of the original file (before the BOM was stripped and
// CRLF normalised, which change no line numbers).
type Document struct {
	// Path is the file's slash-separated path as given to Parse, used in
	// diagnostics.
	Path string
	// BOM reports whether the file started with a UTF-8 byte order mark.
	BOM bool
	// CRLF reports whether the file used CRLF line endings (any line).
	CRLF bool
	// FrontMatter holds every stacked `---` block at the top of the file, in
	// order. Most files have zero or one.
	FrontMatter []FrontMatter
	// Body is the text after the front matter, with LF line endings and no
	// BOM.
	Body string
	// BodyLine is the line of the original file on which Body starts.
	BodyLine int
	// Sections are the ATX and setext headings of the body in document
	// order. Headings inside code blocks, blockquotes and list items are not
	// sections.
	Sections []Section
	// Checkboxes are task-list items `[ ] [x] [X] [~] [-]`, in bullet or
	// numbered lists (also inside blockquotes), in document order
	// (docs/formats.md#checkbox-traps); fenced and indented code, table cells
	// and raw HTML blocks are skipped.
	Checkboxes []Checkbox
	// Fields are `Key: value` lines: `**Key:** value`, `**Key**: value` and
	// plain `Key: value` at the start of a paragraph line or list item
	// (docs/formats.md#fields). Plain keys are letters, digits, spaces and a
	// little punctuation, at most 40 runes and 6 words, and the colon must be
	// followed by white space or the line end; callers filter by key. A line
	// with several bold fields gives one Field each. The checkbox line of a
	// task-list item, code, headings, tables and raw HTML blocks (including
	// the lines of a `<task>` block up to its first blank line) give none.
	Fields []Field
	// Tables are GFM pipe tables, including headerless rows appended after a
	// table ended (docs/formats.md#table-traps), which are attached to the
	// table above.
	Tables []Table
	// Tasks are pseudo-XML `<task …>…</task>` blocks
	// (docs/formats.md#task-blocks), split on tags rather than parsed as XML.
	Tasks []TaskBlock
	// Diagnostics are the problems found while reading; never fatal.
	Diagnostics []Diagnostic

	// text is the whole file after BOM removal and LF normalisation;
	// lineStarts[i] is the byte offset in text where line i+1 starts.
	text       string
	lineStarts []int
	// hasRefs reports link reference definitions in the body; spliceable
	// that the parse completed on valid UTF-8; blocks are the lines of the
	// top-level blocks that may bound a re-read region (all for Reparse).
	hasRefs, spliceable bool
	blocks              []int
	// generation counts the splices since the last whole parse (0 for
	// Parse). Items a splice copies from prev keep pointing into prev's
	// text, so every generation's text stays reachable; Reparse parses the
	// whole file again after maxSpliceGenerations to bound that.
	generation int
}

// Diagnostic is a problem found in a file: where it is and what it is.
type Diagnostic struct {
	Path    string `json:"path"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// String formats the diagnostic as "path:line: message".
func (d Diagnostic) String() string {
	if d.Line > 0 {
		return d.Path + ":" + itoa(d.Line) + ": " + d.Message
	}
	return d.Path + ": " + d.Message
}

// FrontMatter is one `---` delimited YAML block.
type FrontMatter struct {
	// Line is the line of the opening `---`; EndLine that of the closing one.
	Line, EndLine int
	// Raw is the YAML text between the fences (LF line endings).
	Raw string
	// Values maps each top-level key to its value as text: scalars keep their
	// literal text (docs/formats.md#front-matter-values: `phase: 010` is
	// "010", `version: 1.10` is "1.10", `date: 2024-01-02` is "2024-01-02", a
	// null is ""), and collections are kept as their YAML source: a flow
	// collection as written (`[a, b]`), a block one as its lines with the
	// common indentation removed and trailing comment lines dropped. When the
	// YAML is invalid, Values holds what the key-line fallback could read:
	// each `key: value` line at column 0 (quotes around the value removed),
	// and for a key with no inline value the dedented block of lines below it.
	Values map[string]string
	// Keys lists the top-level keys in file order.
	Keys []string
	// Valid is false when the YAML failed to parse; a Diagnostic says why.
	Valid bool
	// Node is the parsed root mapping node (a *yaml.Node of kind
	// MappingNode) when Valid, for callers that need nested values; nil
	// otherwise. Its nodes' Line fields are original-file lines.
	Node any
}

// Section is one heading and the lines it owns.
type Section struct {
	// Level is the heading level, 1–6.
	Level int
	// Title is the heading's plain text (inline markup removed, trimmed).
	Title string
	// Line is the heading's line; EndLine is the last line before the next
	// heading of the same or a higher level (or the end of the file).
	Line, EndLine int
	// Parent is the index in Document.Sections of the enclosing section, or
	// -1 at the top level.
	Parent int

	// bodyLine is the first line after a setext heading's underline; 0 for
	// ATX headings, whose body starts at Line+1.
	bodyLine int
}

// Checkbox is one task-list item.
type Checkbox struct {
	// State is the character between the brackets: ' ', 'x', 'X', '~' or '-'.
	State rune
	// Text is the item's first paragraph after the checkbox, the lines it
	// wraps onto joined by spaces, up to a line that starts a field, inline
	// markup removed, trimmed (docs/formats.md#checkboxes).
	Text string
	// Line is the line of the checkbox.
	Line int
	// Depth is the nesting depth of the list item, 1 for a top-level item.
	Depth int
	// Ordered reports a numbered-list item (`1. [ ] …`).
	Ordered bool
	// Section is the index of the innermost enclosing section, or -1.
	Section int
}

// Checked reports whether the checkbox is done ('x' or 'X').
func (c Checkbox) Checked() bool { return c.State == 'x' || c.State == 'X' }

// Field is one `Key: value` pair.
type Field struct {
	// Key is the field name without bold markers or colon, trimmed.
	Key string
	// Value is the text after the colon as raw markdown (`**BLOCKED**`, links
	// and code spans kept), trimmed: trailing double spaces and a trailing
	// backslash of markdown hard breaks removed
	// (docs/formats.md#encoding-traps). For a bold field followed by another
	// on the same line, the value ends where the next `**Key:**` starts. A
	// value wrapped over the next lines of its paragraph is read whole, the
	// lines joined by spaces, up to the next field
	// (docs/formats.md#fields).
	Value string
	// Line is the line the field is on; EndLine the last line of its
	// value.
	Line, EndLine int
	// Bold reports a `**Key:**` or `**Key**:` field.
	Bold bool
	// Section is the index of the innermost enclosing section, or -1.
	Section int
}

// Table is one pipe table.
type Table struct {
	// Line is the line of the header row.
	Line int
	// Header holds the header cells' plain text.
	Header []string
	// Rows are the body rows, including rows appended after the table ended.
	Rows []Row
	// Section is the index of the innermost enclosing section, or -1.
	Section int
}

// Row is one table body row.
type Row struct {
	Line  int
	Cells []string
}

// TaskBlock is one pseudo-XML `<task>` block.
type TaskBlock struct {
	// Line and EndLine are the lines of `<task` and `</task>`.
	Line, EndLine int
	// Attrs are the opening tag's attributes (type, id, tdd, gate, …).
	Attrs map[string]string
	// Children maps child tag names (name, files, action, verify, done, …)
	// to their trimmed inner text; empty for free-markdown task bodies.
	Children map[string]string
	// Body is the whole inner text of the block, trimmed.
	Body string
	// BodyLine is the original-file line on which Body starts (0 when Body
	// is empty). goldmark sees a `<task>` line as the start of a raw HTML
	// block that runs to the next blank line, so checkboxes and fields right
	// under the tag are not in Document.Checkboxes/Fields; callers that need
	// them can Parse(Body) and add BodyLine-1 to its lines.
	BodyLine int
	// Section is the index of the innermost enclosing section, or -1.
	Section int
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	neg := n < 0
	if neg {
		n = -n
	}
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}

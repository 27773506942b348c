package markdown

import (
	"iter"
	"strings"
)

// LineKind says where a line stands relative to fenced code blocks.
type LineKind uint8

// The kinds of line a FenceTracker tells apart.
const (
	// Prose is a line outside every fenced code block.
	Prose LineKind = iota
	// FenceOpen is the opening fence line of a fenced code block.
	FenceOpen
	// FenceBody is a line inside a fenced code block.
	FenceBody
	// FenceClose is the closing fence line of a fenced code block.
	FenceClose
)

// FenceTracker classifies the lines of a markdown text, one at a time and in
// order, by the CommonMark rules for fenced code blocks
// (https://spec.commonmark.org/0.31.2/#fenced-code-blocks):
//
//   - a fence opens at a line indented by at most 3 spaces (a tab indents to
//     column 4, so it never precedes a fence) followed by a run of at least
//     3 backticks or 3 tildes; after a backtick run the rest of the line (the
//     info string) must hold no backtick;
//   - it closes at a line indented by at most 3 spaces holding a run of the
//     same character at least as long as the opening run, followed by
//     nothing but spaces and tabs;
//   - a fence that never closes runs to the end of the text.
//
// Lines are read as written at the top level of the document, without the
// containers goldmark knows: a fence inside a block quote (`> ````) or
// indented 4 or more spaces inside a list item is not seen, and a fence
// line inside a raw HTML block is taken for a fence. A trailing carriage
// return is white space, so CRLF text needs no normalising. The zero value
// is ready to use, outside any fence (docs/formats.md#fenced-code).
type FenceTracker struct {
	ch  byte // the open fence's character, 0 outside a fence
	run int  // the open fence's run length
}

// Next classifies line, the next line of the text without its line feed,
// and advances the tracker.
func (f *FenceTracker) Next(line string) LineKind {
	ch, run, rest, ok := fenceLine(line)
	if f.ch != 0 {
		if ok && ch == f.ch && run >= f.run && strings.Trim(rest, " \t\r") == "" {
			f.ch, f.run = 0, 0
			return FenceClose
		}
		return FenceBody
	}
	if ok && (ch == '~' || !strings.Contains(rest, "`")) {
		f.ch, f.run = ch, run
		return FenceOpen
	}
	return Prose
}

// InFence reports whether the lines read so far leave a fenced code block
// open.
func (f *FenceTracker) InFence() bool { return f.ch != 0 }

// fenceLine reads the fence run at the start of line: its character, its
// length, and the text after it. ok is false when line, after at most 3
// spaces, does not start with 3 or more backticks or tildes.
func fenceLine(line string) (ch byte, run int, rest string, ok bool) {
	i := 0
	for i < len(line) && i < 4 && line[i] == ' ' {
		i++
	}
	if i > 3 || i == len(line) || (line[i] != '`' && line[i] != '~') {
		return 0, 0, "", false
	}
	ch = line[i]
	j := i
	for j < len(line) && line[j] == ch {
		j++
	}
	if j-i < 3 {
		return 0, 0, "", false
	}
	return ch, j - i, line[j:], true
}

// ScanLines yields every line of text, as strings.Split(text, "\n") cuts
// them (so a text ending in a line feed ends with an empty line), with its
// 0-based index and its LineKind by the rules of FenceTracker.
func ScanLines(text string) iter.Seq2[int, Line] {
	return func(yield func(int, Line) bool) {
		var f FenceTracker
		for i := 0; ; i++ {
			line, rest, more := strings.Cut(text, "\n")
			if !yield(i, Line{Text: line, Kind: f.Next(line)}) || !more {
				return
			}
			text = rest
		}
	}
}

// Line is one line of a text and its place relative to fenced code.
type Line struct {
	// Text is the line without its line feed (a CR before it is kept).
	Text string
	// Kind is Prose, FenceOpen, FenceBody or FenceClose.
	Kind LineKind
}

// ProseLines yields the 0-based index and text of every line of text that
// lies outside fenced code blocks: fence lines and the lines between them
// are skipped (see FenceTracker for the rules).
func ProseLines(text string) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for i, l := range ScanLines(text) {
			if l.Kind == Prose && !yield(i, l.Text) {
				return
			}
		}
	}
}

// ProseLines yields the original-file line number and text of each line
// from..to (1-based, inclusive, clamped to 1..LineCount) that lies outside
// fenced code blocks, tracking fences from line from on (see
// FenceTracker). The text has LF line endings and no BOM.
func (d *Document) ProseLines(from, to int) iter.Seq2[int, string] {
	return func(yield func(int, string) bool) {
		for n, l := range d.ScanLines(from, to) {
			if l.Kind == Prose && !yield(n, l.Text) {
				return
			}
		}
	}
}

// ScanLines yields the original-file line number and Line of each line
// from..to (1-based, inclusive, clamped to 1..LineCount), tracking fences
// from line from on.
func (d *Document) ScanLines(from, to int) iter.Seq2[int, Line] {
	return func(yield func(int, Line) bool) {
		var f FenceTracker
		for n := max(from, 1); n <= min(to, d.LineCount()); n++ {
			l := d.Lines(n, n)
			if !yield(n, Line{Text: l, Kind: f.Next(l)}) {
				return
			}
		}
	}
}

// IndentWidth is the width of line's leading blanks, a space counting one
// and a tab four wherever it stands (a simplification of CommonMark's tab
// stops, spec 0.31.2 §2.2, that is exact for lines indented with tabs
// only or spaces only, the way planning files are written).
func IndentWidth(line string) int {
	n := 0
	for _, r := range line {
		switch r {
		case ' ':
			n++
		case '\t':
			n += 4
		default:
			return n
		}
	}
	return n
}

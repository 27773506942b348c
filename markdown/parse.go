package markdown

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	extast "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"
)

// Reader parses markdown files into Documents. It holds one goldmark parser
// built once, so reading a whole planning tree pays the parser construction
// (about 30 µs, BenchmarkNewReader) once. The parser has GFM's tables,
// strikethrough and task lists; GFM's Linkify is left out because bare URLs
// carry no structure recite reads (their text is the same either way) and it
// cost about 10% of parse time on norish's STATE.md. A Reader is safe for
// concurrent use: goldmark keeps per-parse state in the parse call.
type Reader struct {
	md goldmark.Markdown
}

// NewReader returns a Reader with a goldmark parser for GFM tables,
// strikethrough and task lists.
func NewReader() *Reader {
	return &Reader{md: goldmark.New(goldmark.WithExtensions(
		extension.Table, extension.Strikethrough, extension.TaskList))}
}

// Parse reads one markdown file with a fresh Reader. Prefer a shared
// Reader's Parse when reading many files. path is used only in diagnostics.
// Parse never returns nil and never panics.
func Parse(path string, src []byte) *Document {
	return NewReader().Parse(path, src)
}

// Parse reads one markdown file: BOM and line endings, stacked front matter,
// then sections, checkboxes, fields, tables and task blocks with their
// original-file lines (docs/formats.md#reading-pipeline and
// docs/formats.md#traps-of-real-files). path is used only in diagnostics. It
// never returns nil and never panics; problems become Diagnostics and the body
// is always kept.
func (r *Reader) Parse(path string, src []byte) (doc *Document) {
	doc = &Document{Path: path, BodyLine: 1}
	defer func() {
		if v := recover(); v != nil {
			doc.diag(0, fmt.Sprintf("internal error while parsing: %v", v))
		}
	}()

	valid := utf8.Valid(src)
	if !valid {
		doc.diag(firstInvalidLine(src), "not valid UTF-8; invalid bytes replaced by U+FFFD")
		src = bytes.ToValidUTF8(src, []byte("\uFFFD"))
	}
	if bytes.HasPrefix(src, []byte("\uFEFF")) {
		doc.BOM = true
		src = src[3:]
	}
	doc.CRLF = bytes.Contains(src, []byte("\r\n"))
	doc.text = normalizeEOL(src)
	doc.lineStarts = lineStarts(doc.text)

	bodyStart, bodyLine := doc.splitFrontMatter()
	doc.Body = doc.text[bodyStart:]
	doc.BodyLine = bodyLine

	w := walker{r: r, doc: doc, base: bodyStart, src: []byte(doc.Body)}
	w.walk()
	doc.finishSections(w.headings)
	doc.assignSections()
	doc.parseTasks(bodyStart)
	doc.assignTaskSections()
	doc.spliceable = valid // see Reparse
	return doc
}

func (d *Document) diag(line int, msg string) {
	d.Diagnostics = append(d.Diagnostics, Diagnostic{Path: d.Path, Line: line, Message: msg})
}

// lineOf returns the 1-based line of byte offset off in d.text.
func (d *Document) lineOf(off int) int {
	return sort.SearchInts(d.lineStarts, off+1)
}

// lineEnd returns the offset of the end of the line starting at off (the
// position of its LF, or len(d.text)).
func (d *Document) lineEnd(off int) int {
	if i := strings.IndexByte(d.text[off:], '\n'); i >= 0 {
		return off + i
	}
	return len(d.text)
}

func firstInvalidLine(src []byte) int {
	line := 1
	for i := 0; i < len(src); {
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n <= 1 {
			return line
		}
		if r == '\n' {
			line++
		}
		i += n
	}
	return line
}

// normalizeEOL turns CRLF and lone CR into LF. Line counts are unchanged:
// each CRLF or lone CR ends exactly one line in the original file.
func normalizeEOL(src []byte) string {
	if bytes.IndexByte(src, '\r') < 0 {
		return string(src)
	}
	var b strings.Builder
	b.Grow(len(src))
	for i := 0; i < len(src); i++ {
		c := src[i]
		if c == '\r' {
			if i+1 < len(src) && src[i+1] == '\n' {
				continue
			}
			c = '\n'
		}
		b.WriteByte(c)
	}
	return b.String()
}

func lineStarts(s string) []int {
	starts := make([]int, 1, strings.Count(s, "\n")+1)
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			starts = append(starts, i+1)
		}
	}
	return starts
}

// walker walks the goldmark AST of the body.
type walker struct {
	r    *Reader
	doc  *Document
	base int    // offset of the body in doc.text
	src  []byte // the body
	// headings are the top-level headings found, in order.
	headings []Section
	// tablesAtHeading[i] is len(headings) when Tables[i] was found; rows
	// appended after a table join it only if no heading came in between.
	tablesAtHeading []int
	// blocks are the lines of top-level blocks that may bound a re-read
	// region (see walkRefs).
	blocks []int
}

// line returns the original-file line of body offset off.
func (w *walker) line(off int) int {
	if off < 0 {
		off = 0
	}
	return w.doc.lineOf(w.base + off)
}

func (w *walker) walk() {
	w.doc.hasRefs = w.walkRefs()
	w.doc.blocks = w.blocks
}

// walkTree records the headings, checkboxes, fields and tables of the
// parsed body.
func (w *walker) walkTree(root ast.Node) {
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n.Kind() {
		case ast.KindFencedCodeBlock, ast.KindCodeBlock, ast.KindHTMLBlock:
			return ast.WalkSkipChildren, nil
		case ast.KindHeading:
			w.heading(n.(*ast.Heading))
			return ast.WalkSkipChildren, nil
		case ast.KindListItem:
			w.checkbox(n.(*ast.ListItem))
		case ast.KindParagraph, ast.KindTextBlock:
			w.paragraph(n)
			return ast.WalkSkipChildren, nil
		case extast.KindTable:
			w.table(n)
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
}

func (w *walker) heading(h *ast.Heading) {
	if h.Parent() == nil || h.Parent().Kind() != ast.KindDocument {
		return // headings inside blockquotes and list items are not sections
	}
	s := Section{Level: h.Level, Title: plainText(h, w.src, false)}
	lines := h.Lines()
	switch {
	case lines.Len() > 0 && !w.atxLine(lines.At(0).Start):
		// setext: text lines, then the underline
		s.Line = w.line(lines.At(0).Start)
		s.bodyLine = w.line(lines.At(lines.Len()-1).Start) + 2
	case h.Pos() >= 0:
		s.Line = w.line(h.Pos())
	case lines.Len() > 0:
		s.Line = w.line(lines.At(0).Start)
	default:
		return
	}
	w.headings = append(w.headings, s)
}

// atxLine reports whether the source line holding body offset off starts,
// after indentation, with '#' (an ATX heading rather than setext text).
func (w *walker) atxLine(off int) bool {
	ls := bytes.LastIndexByte(w.src[:off], '\n') + 1
	rest := bytes.TrimLeft(w.src[ls:], " \t")
	return len(rest) > 0 && rest[0] == '#'
}

func (w *walker) checkbox(li *ast.ListItem) {
	fc := li.FirstChild()
	if fc == nil || (fc.Kind() != ast.KindParagraph && fc.Kind() != ast.KindTextBlock) {
		return
	}
	cb := Checkbox{Section: -1}
	if tc, ok := fc.FirstChild().(*extast.TaskCheckBox); ok {
		cb.State = ' '
		pos := tc.Pos()
		if pos < 0 && fc.Lines().Len() > 0 {
			pos = fc.Lines().At(0).Start
		}
		if tc.IsChecked && pos >= 0 && pos+1 < len(w.src) && w.src[pos] == '[' {
			cb.State = rune(w.src[pos+1])
		} else if tc.IsChecked {
			cb.State = 'x'
		}
		cb.Line = w.line(pos)
		cb.Text = w.itemText(fc)
	} else {
		if fc.Lines().Len() == 0 {
			return
		}
		seg := fc.Lines().At(0)
		v := seg.Value(w.src)
		if len(v) < 3 || v[0] != '[' || (v[1] != '~' && v[1] != '-') || v[2] != ']' {
			return
		}
		cb.State = rune(v[1])
		cb.Line = w.line(seg.Start)
		t := w.itemText(fc)
		if strings.HasPrefix(t, string(v[:3])) {
			t = strings.TrimSpace(t[3:])
		} else {
			t = strings.TrimSpace(string(v[3:]))
		}
		cb.Text = t
	}
	for p := ast.Node(li); p != nil; p = p.Parent() {
		if p.Kind() == ast.KindListItem {
			cb.Depth++
		}
	}
	if l, ok := li.Parent().(*ast.List); ok {
		cb.Ordered = l.IsOrdered()
	}
	w.doc.Checkboxes = append(w.doc.Checkboxes, cb)
}

// isCheckboxParagraph reports whether n is the first block of a list item
// that is a checkbox (its first line holds the checkbox, not a field).
func isCheckboxParagraph(n ast.Node, src []byte) bool {
	li := n.Parent()
	if li == nil || li.Kind() != ast.KindListItem || li.FirstChild() != n {
		return false
	}
	if _, ok := n.FirstChild().(*extast.TaskCheckBox); ok {
		return true
	}
	if n.Lines().Len() == 0 {
		return false
	}
	seg := n.Lines().At(0)
	v := seg.Value(src)
	return len(v) >= 3 && v[0] == '[' && (v[1] == '~' || v[1] == '-') && v[2] == ']'
}

func (w *walker) paragraph(n ast.Node) {
	lines := n.Lines()
	skipFirst := isCheckboxParagraph(n, w.src)
	var pipeRows []text.Segment
	// last is the index in doc.Fields of the field a continuation line
	// extends: a value wrapped over lines is read whole, up to the next
	// field or the end of the paragraph (docs/formats.md#fields).
	last := -1
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		raw := strings.TrimSpace(string(seg.Value(w.src)))
		if isPipeRow(raw) {
			pipeRows = append(pipeRows, seg)
			last = -1
			continue
		}
		if i == 0 && skipFirst {
			continue
		}
		line := w.line(seg.Start)
		fs := parseFields(raw)
		if len(fs) == 0 {
			if last >= 0 && continuesValue(w.doc.Fields[last].Value, raw) {
				f := &w.doc.Fields[last]
				f.Value = trimValue(f.Value + " " + trimValue(raw))
				f.EndLine = line
			} else {
				last = -1
			}
			continue
		}
		for _, f := range fs {
			f.Line = line
			f.EndLine = line
			f.Section = -1
			w.doc.Fields = append(w.doc.Fields, f)
		}
		last = len(w.doc.Fields) - 1
	}
	if len(pipeRows) > 0 {
		w.appendRows(pipeRows)
	}
}

// isPipeRow reports whether a trimmed paragraph line looks like a pipe
// table row: it starts and ends with '|' and holds a cell between them.
func isPipeRow(s string) bool {
	return len(s) >= 3 && s[0] == '|' && s[len(s)-1] == '|'
}

// countCells counts the cells of a pipe row the way goldmark's GFM table
// parser splits them: on every '|' not preceded by a backslash, ignoring
// one leading and one trailing pipe.
func countCells(s string) int {
	s = strings.TrimPrefix(strings.TrimSpace(s), "|")
	s = strings.TrimSuffix(s, "|") // goldmark drops it even when escaped
	if s == "" {
		return 0
	}
	n := 1
	for i := 0; i < len(s); i++ {
		if s[i] == '|' && (i == 0 || s[i-1] != '\\') {
			n++
		}
	}
	return n
}

// appendRows attaches headerless pipe rows found in a paragraph to the last
// table when no heading came between them (docs/formats.md#table-traps);
// otherwise they form a new table without a header. Cells are read by
// goldmark's own table parser from a synthetic table so escapes and inline
// markup are treated as in real tables.
func (w *walker) appendRows(segs []text.Segment) {
	var target *Table
	if k := len(w.doc.Tables) - 1; k >= 0 && w.tablesAtHeading[k] == len(w.headings) {
		target = &w.doc.Tables[k]
	}
	ncol := 0
	if target != nil {
		ncol = len(target.Header)
	}
	var buf bytes.Buffer
	for _, seg := range segs {
		ncol = max(ncol, countCells(string(seg.Value(w.src))))
	}
	buf.WriteString(strings.Repeat("| h ", ncol) + "|\n")
	buf.WriteString(strings.Repeat("|---", ncol) + "|\n")
	for _, seg := range segs {
		buf.Write(bytes.TrimSpace(seg.Value(w.src)))
		buf.WriteByte('\n')
	}
	syn := buf.Bytes()
	root := w.r.md.Parser().Parse(text.NewReader(syn))
	var rows []Row
	if t := root.FirstChild(); t != nil && t.Kind() == extast.KindTable {
		i := 0
		for c := t.FirstChild(); c != nil; c = c.NextSibling() {
			if c.Kind() != extast.KindTableRow {
				continue
			}
			if i >= len(segs) {
				break
			}
			cells := rowCells(c, syn)
			// drop padding cells goldmark adds up to the synthetic header
			real := countCells(string(segs[i].Value(w.src)))
			if real < len(cells) {
				cells = cells[:real]
			}
			rows = append(rows, Row{Line: w.line(segs[i].Start), Cells: cells})
			i++
		}
	}
	if len(rows) == 0 {
		return
	}
	if target == nil {
		w.doc.Tables = append(w.doc.Tables, Table{Line: rows[0].Line, Section: -1})
		w.tablesAtHeading = append(w.tablesAtHeading, len(w.headings))
		target = &w.doc.Tables[len(w.doc.Tables)-1]
	}
	target.Rows = append(target.Rows, rows...)
}

// rowHasPipe reports whether the source line of a table row holds a '|'.
func rowHasPipe(row ast.Node, src []byte) bool {
	p := row.Pos()
	if p < 0 || p >= len(src) {
		return true
	}
	end := bytes.IndexByte(src[p:], '\n')
	if end < 0 {
		end = len(src) - p
	}
	return bytes.IndexByte(src[p:p+end], '|') >= 0
}

func rowCells(row ast.Node, src []byte) []string {
	var cells []string
	for c := row.FirstChild(); c != nil; c = c.NextSibling() {
		cells = append(cells, plainText(c, src, false))
	}
	return cells
}

func (w *walker) table(n ast.Node) {
	t := Table{Line: w.line(n.Pos()), Section: -1}
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c.Kind() {
		case extast.KindTableHeader:
			t.Header = rowCells(c, w.src)
			if c.Pos() >= 0 {
				t.Line = w.line(c.Pos())
			}
		case extast.KindTableRow:
			if !rowHasPipe(c, w.src) {
				// GFM continues a table with any non-blank line; a line
				// without a pipe (an italic note) is prose, not a row.
				continue
			}
			t.Rows = append(t.Rows, Row{Line: w.line(c.Pos()), Cells: rowCells(c, w.src)})
		}
	}
	w.doc.Tables = append(w.doc.Tables, t)
	w.tablesAtHeading = append(w.tablesAtHeading, len(w.headings))
}

// plainText returns the text of n's inline content with markup removed,
// backslash escapes and entities resolved (code spans kept verbatim), and
// soft/hard line breaks as spaces. With firstLine it stops at the first line
// break. The result is trimmed.
func plainText(n ast.Node, src []byte, firstLine bool) string {
	var b bytes.Buffer
	appendPlain(&b, n, src, firstLine, -1)
	return strings.TrimSpace(b.String())
}

// appendPlain writes n's children's plain text to b; it reports true when
// firstLine is set and a line break was reached, or a text starting at or
// after the byte offset stop (-1: none) was reached.
func appendPlain(b *bytes.Buffer, n ast.Node, src []byte, firstLine bool, stop int) bool {
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			if stop >= 0 && c.Segment.Start >= stop {
				return true
			}
			v := c.Segment.Value(src)
			v = util.UnescapePunctuations(v)
			v = util.ResolveNumericReferences(v)
			v = util.ResolveEntityNames(v)
			b.Write(v)
			if c.SoftLineBreak() || c.HardLineBreak() {
				if firstLine {
					return true
				}
				b.WriteByte(' ')
			}
		case *ast.String:
			b.Write(c.Value)
		case *ast.CodeSpan:
			for t := c.FirstChild(); t != nil; t = t.NextSibling() {
				switch t := t.(type) {
				case *ast.Text:
					b.Write(t.Segment.Value(src))
				case *ast.String:
					b.Write(t.Value)
				}
			}
		case *ast.AutoLink:
			b.Write(c.Label(src))
		case *ast.RawHTML, *extast.TaskCheckBox:
			// markup only
		default:
			if appendPlain(b, c, src, firstLine, stop) {
				return true
			}
		}
	}
	return false
}

// finishSections sets EndLine and Parent of the headings (the last line
// before the next heading of the same or a higher level, or the file's
// last line) and stores them in d.Sections.
func (d *Document) finishSections(hs []Section) {
	last := d.LineCount()
	var stack []int
	for i := range hs {
		hs[i].Parent = -1
		for len(stack) > 0 && hs[stack[len(stack)-1]].Level >= hs[i].Level {
			j := stack[len(stack)-1]
			hs[j].EndLine = max(hs[i].Line-1, hs[j].Line)
			stack = stack[:len(stack)-1]
		}
		if len(stack) > 0 {
			hs[i].Parent = stack[len(stack)-1]
		}
		stack = append(stack, i)
	}
	for _, j := range stack {
		hs[j].EndLine = max(last, hs[j].Line, hs[j].bodyLine-1)
	}
	d.Sections = hs
}

// assignSections sets the Section index of checkboxes, fields and tables.
func (d *Document) assignSections() {
	for i := range d.Checkboxes {
		d.Checkboxes[i].Section = d.SectionAt(d.Checkboxes[i].Line)
	}
	for i := range d.Fields {
		d.Fields[i].Section = d.SectionAt(d.Fields[i].Line)
	}
	for i := range d.Tables {
		d.Tables[i].Section = d.SectionAt(d.Tables[i].Line)
	}
}

func (d *Document) assignTaskSections() {
	for i := range d.Tasks {
		d.Tasks[i].Section = d.SectionAt(d.Tasks[i].Line)
	}
}

package markdown

import (
	"bytes"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
)

// Reparse returns the Document that r.Parse(prev.Path, src) would return,
// re-reading with goldmark only the top-level section that changed since
// prev was parsed (issue "recite build", measures: a warm rebuild after one
// line of a 340 KB STATE.md changes). prev must be a Document returned by
// Parse or Reparse and is not modified; the result shares no mutable state
// with it.
//
// The splice is used only when it is provably the same as a whole parse:
// the bytes that differ lie in the body between two ATX headings that prev
// found at the top level, the line after the re-read region still parses as
// a top-level heading (so no fence, HTML block or list runs across the
// boundary), neither text defines link references (document-wide state in
// CommonMark), and the file has no BOM, no CR and valid UTF-8. Otherwise,
// and when prev is nil, the whole file is parsed. Reparse never panics.
func (r *Reader) Reparse(prev *Document, src []byte) (doc *Document) {
	if prev == nil {
		return r.Parse("", src)
	}
	defer func() {
		if v := recover(); v != nil {
			doc = r.Parse(prev.Path, src)
		}
	}()
	if d := r.splice(prev, src); d != nil {
		return d
	}
	return r.Parse(prev.Path, src)
}

// maxSpliceGenerations bounds the chain of splices between whole parses.
// Strings copied from prev (section titles, fields, table cells) still
// point into the text they were parsed from, so a chain of n splices can
// keep up to n+1 versions of the file alive; unbounded, a day of `recite
// watch` edits could keep every version. With 16, a file costs at most 17
// copies of itself (6 MB for norish's 340 KB STATE.md), and one save in 17
// pays for a whole parse (about 6 ms there, against 0.35 ms for a splice).
const maxSpliceGenerations = 16

// splice is Reparse's incremental path; it returns nil when the whole file
// must be parsed.
func (r *Reader) splice(prev *Document, src []byte) *Document {
	if prev.text == "" || prev.BOM || prev.CRLF || prev.hasRefs || !prev.spliceable || prev.generation >= maxSpliceGenerations {
		return nil
	}
	if bytes.IndexByte(src, '\r') >= 0 || bytes.HasPrefix(src, []byte("\uFEFF")) {
		return nil
	}
	p, oe, ne, ok := prev.changed(src)
	if !ok {
		return nil
	}
	aLine, bOld, ok := prev.spliceBounds(p, oe)
	if !ok {
		return nil
	}

	d := &Document{Path: prev.Path, BodyLine: 1}
	d.text = string(src)
	d.lineStarts = spliceLineStarts(prev.lineStarts, d.text, p, oe, ne)
	bodyStart, bodyLine := d.splitFrontMatter()
	if bodyStart != len(prev.text)-len(prev.Body) || bodyLine != prev.BodyLine {
		return nil
	}
	d.Body = d.text[bodyStart:]
	d.BodyLine = bodyLine

	sp := splicePlan{aLine: aLine, bOld: bOld, lineDelta: len(d.lineStarts) - len(prev.lineStarts),
		endOld: prev.LineCount() + 1, bLine: 1 << 62}
	from := prev.lineStarts[aLine-1] // same offset in both texts (< p)
	to := len(d.text)
	if bOld > 0 {
		sp.endOld = bOld
		sp.bLine = bOld + sp.lineDelta
		to = d.lineEnd(d.lineStarts[sp.bLine-1])
	}
	// Re-read A..B (B's first line included, to see that it still starts a
	// top-level block) with a scratch walker on the new text.
	scratch := &Document{Path: d.Path, text: d.text, lineStarts: d.lineStarts}
	w := walker{r: r, doc: scratch, base: from, src: []byte(d.text[from:to])}
	if w.walkRefs() {
		return nil
	}
	if len(w.blocks) == 0 || w.blocks[0] != aLine {
		return nil
	}
	if bOld > 0 && !slices.Contains(w.blocks, sp.bLine) {
		return nil
	}
	d.join(prev, scratch, &w, sp)
	d.parseTasks(bodyStart)
	d.assignTaskSections()
	d.spliceable = true
	d.generation = prev.generation + 1
	return d
}

// changed returns the byte ranges that differ between d's text and src:
// d.text[p:oe] became src[p:ne]. ok is false when the texts are identical,
// when the changed lines of src are not valid UTF-8, or when the change
// reaches into the front matter.
func (d *Document) changed(src []byte) (p, oe, ne int, ok bool) {
	old := d.text
	p = commonPrefix(old, src)
	if p == len(old) && p == len(src) {
		return 0, 0, 0, false // identical: a plain parse is as cheap to reason about
	}
	s := commonSuffix(old[p:], src[p:])
	oe, ne = len(old)-s, len(src)-s
	// d's text is valid UTF-8 and line feeds are ASCII, so the new text is
	// valid when the changed lines are.
	ls := bytes.LastIndexByte(src[:p], '\n') + 1
	le := len(src)
	if i := bytes.IndexByte(src[ne:], '\n'); i >= 0 {
		le = ne + i
	}
	if !utf8.Valid(src[ls:le]) || p < len(old)-len(d.Body) {
		return 0, 0, 0, false
	}
	return p, oe, ne, true
}

// spliceBounds returns the lines of d that bound the change d.text[p:oe]:
// aLine, the last boundary block whose line ends before p, and bOld, the
// first one whose line starts at or after oe (0 when none does; see
// boundary). ok is false when no block before the change is a boundary.
func (d *Document) spliceBounds(p, oe int) (aLine, bOld int, ok bool) {
	first := d.lineOf(p)
	last := first
	if oe > p {
		last = d.lineOf(oe - 1)
	}
	k := sort.SearchInts(d.blocks, first) // blocks[:k] start before first
	for i := k - 1; i >= 0 && aLine == 0; i-- {
		if d.boundary(d.blocks[i]) {
			aLine = d.blocks[i]
		}
	}
	for i := sort.SearchInts(d.blocks, last+1); i < len(d.blocks) && bOld == 0; i++ {
		if d.boundary(d.blocks[i]) {
			bOld = d.blocks[i]
		}
	}
	if aLine == 0 || (bOld > 0 && d.lineStarts[bOld-1] < oe) {
		return 0, 0, false
	}
	return aLine, bOld, true
}

// splicePlan is where a splice cuts: the re-read region runs from line
// aLine up to line bLine of the new text (bOld of the old one; bOld 0 and
// bLine huge when it runs to the end), the old lines from endOld on are
// kept, shifted by lineDelta.
type splicePlan struct {
	aLine, bOld, bLine, endOld, lineDelta int
}

// join fills d's sections, checkboxes, fields, tables and blocks: prev's
// items before line A, the re-read ones (scratch, w) before B, prev's items
// from B on with their lines shifted.
func (d *Document) join(prev, scratch *Document, w *walker, sp splicePlan) {
	before := func(l int) bool { return l < sp.bLine }
	headings := make([]Section, 0, len(prev.Sections)+len(w.headings))
	for _, sec := range prev.Sections {
		if sec.Line < sp.aLine {
			headings = append(headings, sec)
		}
	}
	for _, sec := range w.headings {
		if before(sec.Line) {
			headings = append(headings, sec)
		}
	}
	for _, sec := range prev.Sections {
		if sp.bOld > 0 && sec.Line >= sp.bOld {
			sec.Line += sp.lineDelta
			sec.EndLine += sp.lineDelta
			if sec.bodyLine != 0 {
				sec.bodyLine += sp.lineDelta
			}
			headings = append(headings, sec)
		}
	}
	d.finishSections(headings)

	a, end, delta := sp.aLine, sp.endOld, sp.lineDelta
	d.Checkboxes = spliceItems(prev.Checkboxes, keep(scratch.Checkboxes, func(c Checkbox) bool { return before(c.Line) }), a, end, delta,
		func(c Checkbox) int { return c.Line }, func(c *Checkbox, n int) { c.Line += n })
	d.Fields = spliceItems(prev.Fields, keep(scratch.Fields, func(f Field) bool { return before(f.Line) }), a, end, delta,
		func(f Field) int { return f.Line }, func(f *Field, n int) { f.Line += n; f.EndLine += n })
	d.Tables = spliceItems(prev.Tables, keep(scratch.Tables, func(t Table) bool { return before(t.Line) }), a, end, delta,
		func(t Table) int { return t.Line }, shiftTable)
	d.blocks = spliceItems(prev.blocks, keep(w.blocks, before), a, end, delta,
		func(l int) int { return l }, func(l *int, n int) { *l += n })
	d.assignSections()
}

// shiftTable moves a table and its rows n lines down, on a copy of the rows.
func shiftTable(t *Table, n int) {
	t.Line += n
	if t.Rows == nil {
		return
	}
	rows := make([]Row, len(t.Rows))
	for i, row := range t.Rows {
		row.Line += n
		rows[i] = row
	}
	t.Rows = rows
}

// keep returns the items of xs that ok accepts.
func keep[T any](xs []T, ok func(T) bool) []T {
	var out []T
	for _, x := range xs {
		if ok(x) {
			out = append(out, x)
		}
	}
	return out
}

// boundary reports whether the top-level block starting at line l (one of
// d.blocks) separates what comes before it from what follows: an ATX
// heading always does; a paragraph after a blank line does when no table
// lies in its heading span, since headerless pipe rows join the last table
// above them up to the next heading.
func (d *Document) boundary(l int) bool {
	i := sort.Search(len(d.Sections), func(i int) bool { return d.Sections[i].Line > l }) - 1
	if i >= 0 && d.Sections[i].Line == l {
		return d.Sections[i].bodyLine == 0
	}
	lo, hi := 0, d.LineCount()+1
	for _, sec := range d.Sections {
		if sec.Line <= l {
			lo = sec.Line
		} else {
			hi = sec.Line
			break
		}
	}
	for _, t := range d.Tables {
		if t.Line > lo && t.Line < hi {
			return false
		}
		for _, r := range t.Rows {
			if r.Line > lo && r.Line < hi {
				return false
			}
		}
	}
	return true
}

// commonPrefix is the length of the longest common prefix of a and b.
func commonPrefix(a string, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	const block = 256
	for i+block <= n && a[i:i+block] == string(b[i:i+block]) {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix is the length of the longest common suffix of a and b.
func commonSuffix(a string, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	const block = 256
	for i+block <= n && a[len(a)-i-block:len(a)-i] == string(b[len(b)-i-block:len(b)-i]) {
		i += block
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}

// spliceLineStarts returns the line starts of text, which equals the text
// of starts except that old[p:oe] became text[p:ne]: starts up to p are
// kept, the changed bytes are scanned, and the starts after oe move by
// ne-oe.
func spliceLineStarts(starts []int, text string, p, oe, ne int) []int {
	k := sort.SearchInts(starts, p+1)  // starts[:k] <= p
	j := sort.SearchInts(starts, oe+1) // starts[j:] > oe
	out := make([]int, 0, len(starts)+strings.Count(text[p:ne], "\n")-(j-k))
	out = append(out, starts[:k]...)
	for i := p; i < ne; {
		n := strings.IndexByte(text[i:ne], '\n')
		if n < 0 {
			break
		}
		i += n + 1
		out = append(out, i)
	}
	for _, q := range starts[j:] {
		out = append(out, q+ne-oe)
	}
	return out
}

// spliceItems joins the items of prev before line a, the re-read items, and
// prev's items at or after line end shifted by delta lines, in line order.
func spliceItems[T any](prev, mid []T, a, end, delta int, line func(T) int, shift func(*T, int)) []T {
	lo := sort.Search(len(prev), func(i int) bool { return line(prev[i]) >= a })
	hi := sort.Search(len(prev), func(i int) bool { return line(prev[i]) >= end })
	n := lo + len(mid) + len(prev) - hi
	if n == 0 {
		return nil // as a whole parse leaves it
	}
	out := make([]T, 0, n)
	out = append(out, prev[:lo]...)
	out = append(out, mid...)
	for _, it := range prev[hi:] {
		if delta != 0 {
			shift(&it, delta)
		}
		out = append(out, it)
	}
	return out
}

// walkRefs walks like walk, records the top-level blocks that may bound
// a re-read region (w.blocks: ATX headings, and paragraphs after a blank
// line, by original-file line), and reports whether the text read defines
// link references, whose labels resolve across the whole document.
func (w *walker) walkRefs() bool {
	pc := parser.NewContext()
	root := w.r.md.Parser().Parse(text.NewReader(w.src), parser.WithContext(pc))
	w.walkTree(root)
	for n := root.FirstChild(); n != nil; n = n.NextSibling() {
		switch n.Kind() {
		case ast.KindHeading:
			if l := n.Lines(); l.Len() > 0 && w.atxLine(l.At(0).Start) {
				w.blocks = append(w.blocks, w.line(l.At(0).Start))
			} else if l.Len() == 0 && n.Pos() >= 0 {
				w.blocks = append(w.blocks, w.line(n.Pos()))
			}
		case ast.KindParagraph:
			if l := n.Lines(); l.Len() > 0 {
				if line := w.line(l.At(0).Start); line > 1 && w.doc.blankLine(line-1) {
					w.blocks = append(w.blocks, line)
				}
			}
		}
	}
	return len(pc.References()) > 0
}

// blankLine reports whether original-file line l holds only white space.
func (d *Document) blankLine(l int) bool {
	return strings.TrimSpace(d.Lines(l, l)) == ""
}

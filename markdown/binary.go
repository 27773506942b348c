package markdown

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"

	"go.yaml.in/yaml/v3"
)

// A Document's binary form (AppendBinary, DecodeDocument) is what the
// planning package's on-disk cache keeps of a parsed file, so a new
// process reuses a parse instead of running goldmark and yaml.v3 again
// (docs/formats.md#parsed-file-cache). It holds every field, the
// unexported ones Reparse needs included, and the front matter's yaml.Node
// trees (aliases as the pre-order index of their anchor). Integers are
// varints, strings and lists are length-prefixed (a nil list or map is
// told from an empty one). It is versioned by binaryVersion: any change to
// Document or to this layout bumps it, and a cache of another version is
// not read.

// BinaryVersion is the version of the binary form (AppendBinary); a cache
// of documents records it and is not read under another.
const BinaryVersion = 2

const binaryVersion = BinaryVersion

// errBinary is wrapped by every decoding error.
var errBinary = errors.New("markdown: bad binary document")

// encoder appends the binary form to b.
type encoder struct{ b []byte }

func (e *encoder) uint(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *encoder) int(v int)     { e.b = binary.AppendVarint(e.b, int64(v)) }
func (e *encoder) bool(v bool) {
	if v {
		e.b = append(e.b, 1)
	} else {
		e.b = append(e.b, 0)
	}
}
func (e *encoder) str(s string) { e.uint(uint64(len(s))); e.b = append(e.b, s...) }

// count writes a list length, 0 for nil and n+1 otherwise.
func (e *encoder) count(n int, isNil bool) {
	if isNil {
		e.uint(0)
		return
	}
	e.uint(uint64(n) + 1)
}

func (e *encoder) strs(ss []string) {
	e.count(len(ss), ss == nil)
	for _, s := range ss {
		e.str(s)
	}
}

func (e *encoder) ints(v []int) {
	e.count(len(v), v == nil)
	for _, n := range v {
		e.int(n)
	}
}

// strMap writes m sorted by key.
func (e *encoder) strMap(m map[string]string) {
	e.count(len(m), m == nil)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		e.str(k)
		e.str(m[k])
	}
}

// AppendBinary appends the binary form of d to b. It fails only on a
// front matter node that is not a *yaml.Node or holds an alias to a node
// outside its tree.
func (d *Document) AppendBinary(b []byte) ([]byte, error) {
	e := &encoder{b: b}
	e.uint(binaryVersion)
	e.str(d.Path)
	e.bool(d.BOM)
	e.bool(d.CRLF)
	e.count(len(d.FrontMatter), d.FrontMatter == nil)
	for i := range d.FrontMatter {
		if err := e.frontMatter(&d.FrontMatter[i]); err != nil {
			return nil, err
		}
	}
	e.str(d.text)
	// Body is most often the end of text: then only its length is kept.
	if len(d.Body) <= len(d.text) && d.text[len(d.text)-len(d.Body):] == d.Body {
		e.bool(true)
		e.uint(uint64(len(d.Body)))
	} else {
		e.bool(false)
		e.str(d.Body)
	}
	e.int(d.BodyLine)
	e.count(len(d.Sections), d.Sections == nil)
	for _, s := range d.Sections {
		e.int(s.Level)
		e.str(s.Title)
		e.int(s.Line)
		e.int(s.EndLine)
		e.int(s.Parent)
		e.int(s.bodyLine)
	}
	e.count(len(d.Checkboxes), d.Checkboxes == nil)
	for _, c := range d.Checkboxes {
		e.int(int(c.State))
		e.str(c.Text)
		e.int(c.Line)
		e.int(c.Depth)
		e.bool(c.Ordered)
		e.int(c.Section)
	}
	e.count(len(d.Fields), d.Fields == nil)
	for _, f := range d.Fields {
		e.str(f.Key)
		e.str(f.Value)
		e.int(f.Line)
		e.int(f.EndLine)
		e.bool(f.Bold)
		e.int(f.Section)
	}
	e.count(len(d.Tables), d.Tables == nil)
	for _, t := range d.Tables {
		e.int(t.Line)
		e.strs(t.Header)
		e.count(len(t.Rows), t.Rows == nil)
		for _, r := range t.Rows {
			e.int(r.Line)
			e.strs(r.Cells)
		}
		e.int(t.Section)
	}
	e.count(len(d.Tasks), d.Tasks == nil)
	for _, t := range d.Tasks {
		e.int(t.Line)
		e.int(t.EndLine)
		e.strMap(t.Attrs)
		e.strMap(t.Children)
		e.str(t.Body)
		e.int(t.BodyLine)
		e.int(t.Section)
	}
	e.count(len(d.Diagnostics), d.Diagnostics == nil)
	for _, g := range d.Diagnostics {
		e.str(g.Path)
		e.int(g.Line)
		e.str(g.Message)
	}
	e.ints(d.lineStarts)
	e.bool(d.hasRefs)
	e.bool(d.spliceable)
	e.ints(d.blocks)
	e.int(d.generation)
	return e.b, nil
}

func (e *encoder) frontMatter(fm *FrontMatter) error {
	e.int(fm.Line)
	e.int(fm.EndLine)
	e.str(fm.Raw)
	e.strMap(fm.Values)
	e.strs(fm.Keys)
	e.bool(fm.Valid)
	switch n := fm.Node.(type) {
	case nil:
		e.uint(0)
	case *yaml.Node:
		if n == nil {
			e.uint(0)
			return nil
		}
		e.uint(1)
		return e.node(n, map[*yaml.Node]int{})
	default:
		return fmt.Errorf("markdown: front matter node of type %T", fm.Node)
	}
	return nil
}

// node writes n and its content in pre-order; index numbers the nodes
// written so far, for aliases.
func (e *encoder) node(n *yaml.Node, index map[*yaml.Node]int) error {
	index[n] = len(index)
	e.uint(uint64(n.Kind))
	e.uint(uint64(n.Style))
	e.str(n.Tag)
	e.str(n.Value)
	e.str(n.Anchor)
	if n.Alias == nil {
		e.uint(0)
	} else {
		i, ok := index[n.Alias]
		if !ok {
			return errors.New("markdown: front matter alias to a later node")
		}
		e.uint(uint64(i) + 1)
	}
	e.str(n.HeadComment)
	e.str(n.LineComment)
	e.str(n.FootComment)
	e.int(n.Line)
	e.int(n.Column)
	e.count(len(n.Content), n.Content == nil)
	for _, c := range n.Content {
		if c == nil {
			return errors.New("markdown: nil front matter node")
		}
		if err := e.node(c, index); err != nil {
			return err
		}
	}
	return nil
}

// decoder reads the binary form from a string, so the strings it returns
// are slices of it, not copies; the first error sticks.
type decoder struct {
	b   string
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", errBinary, what)
	}
	d.b = ""
}

func (d *decoder) uint() uint64 {
	var v uint64
	for i := 0; i < len(d.b) && i < binary.MaxVarintLen64; i++ {
		c := d.b[i]
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				break
			}
			d.b = d.b[i+1:]
			return v
		}
	}
	d.fail("varint")
	return 0
}

func (d *decoder) int() int {
	u := d.uint()
	v := int64(u >> 1)
	if u&1 != 0 {
		v = ^v
	}
	if v < math.MinInt32 || v > math.MaxInt32 {
		d.fail("int")
		return 0
	}
	return int(v)
}

func (d *decoder) bool() bool {
	if len(d.b) == 0 || d.b[0] > 1 {
		d.fail("bool")
		return false
	}
	v := d.b[0] == 1
	d.b = d.b[1:]
	return v
}

func (d *decoder) str() string {
	n := d.uint()
	if n > uint64(len(d.b)) {
		d.fail("string length")
		return ""
	}
	s := d.b[:n]
	d.b = d.b[n:]
	return s
}

// count reads a list length written by encoder.count: ok is false for nil.
// A length longer than the bytes left is an error (every item takes at
// least one byte).
func (d *decoder) count() (n int, ok bool) {
	v := d.uint()
	if v == 0 {
		return 0, false
	}
	if v-1 > uint64(len(d.b)) {
		d.fail("list length")
		return 0, false
	}
	return int(v - 1), true
}

func (d *decoder) strs() []string {
	n, ok := d.count()
	if !ok {
		return nil
	}
	out := make([]string, n)
	for i := range out {
		out[i] = d.str()
	}
	return out
}

func (d *decoder) ints() []int {
	n, ok := d.count()
	if !ok {
		return nil
	}
	out := make([]int, n)
	for i := range out {
		out[i] = d.int()
	}
	return out
}

func (d *decoder) strMap() map[string]string {
	n, ok := d.count()
	if !ok {
		return nil
	}
	m := make(map[string]string, n)
	for range n {
		k := d.str()
		m[k] = d.str()
	}
	return m
}

// DecodeDocument reads a Document from its binary form (AppendBinary).
// Every error wraps a decoding error: bytes of another version, truncated
// or not written by AppendBinary.
func DecodeDocument(b []byte) (*Document, error) { return DecodeDocumentString(string(b)) }

// DecodeDocumentString is DecodeDocument of a string: the document's
// strings are slices of s (no copies), so s stays in memory while the
// document does.
func DecodeDocumentString(s string) (*Document, error) {
	d := &decoder{b: s}
	if v := d.uint(); v != binaryVersion {
		return nil, fmt.Errorf("%w: version %d", errBinary, v)
	}
	doc := &Document{Path: d.str(), BOM: d.bool(), CRLF: d.bool()}
	if n, ok := d.count(); ok {
		doc.FrontMatter = make([]FrontMatter, n)
		for i := range doc.FrontMatter {
			d.frontMatter(&doc.FrontMatter[i])
		}
	}
	doc.text = d.str()
	if d.bool() {
		n := d.uint()
		if n > uint64(len(doc.text)) {
			d.fail("body length")
		} else {
			doc.Body = doc.text[len(doc.text)-int(n):]
		}
	} else {
		doc.Body = d.str()
	}
	doc.BodyLine = d.int()
	d.sections(doc)
	d.items(doc)
	doc.lineStarts = d.ints()
	doc.hasRefs, doc.spliceable = d.bool(), d.bool()
	doc.blocks = d.ints()
	doc.generation = d.int()
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return nil, d.err
	}
	return doc, nil
}

func (d *decoder) sections(doc *Document) {
	if n, ok := d.count(); ok {
		doc.Sections = make([]Section, n)
		for i := range doc.Sections {
			doc.Sections[i] = Section{Level: d.int(), Title: d.str(), Line: d.int(), EndLine: d.int(), Parent: d.int(), bodyLine: d.int()}
		}
	}
}

// items reads the checkboxes, fields, tables, tasks and diagnostics.
func (d *decoder) items(doc *Document) {
	if n, ok := d.count(); ok {
		doc.Checkboxes = make([]Checkbox, n)
		for i := range doc.Checkboxes {
			doc.Checkboxes[i] = Checkbox{State: rune(d.int()), Text: d.str(), Line: d.int(), Depth: d.int(), Ordered: d.bool(), Section: d.int()}
		}
	}
	if n, ok := d.count(); ok {
		doc.Fields = make([]Field, n)
		for i := range doc.Fields {
			doc.Fields[i] = Field{Key: d.str(), Value: d.str(), Line: d.int(), EndLine: d.int(), Bold: d.bool(), Section: d.int()}
		}
	}
	if n, ok := d.count(); ok {
		doc.Tables = make([]Table, n)
		for i := range doc.Tables {
			t := Table{Line: d.int(), Header: d.strs()}
			if m, ok := d.count(); ok {
				t.Rows = make([]Row, m)
				for j := range t.Rows {
					t.Rows[j] = Row{Line: d.int(), Cells: d.strs()}
				}
			}
			t.Section = d.int()
			doc.Tables[i] = t
		}
	}
	if n, ok := d.count(); ok {
		doc.Tasks = make([]TaskBlock, n)
		for i := range doc.Tasks {
			doc.Tasks[i] = TaskBlock{Line: d.int(), EndLine: d.int(), Attrs: d.strMap(), Children: d.strMap(), Body: d.str(), BodyLine: d.int(), Section: d.int()}
		}
	}
	if n, ok := d.count(); ok {
		doc.Diagnostics = make([]Diagnostic, n)
		for i := range doc.Diagnostics {
			doc.Diagnostics[i] = Diagnostic{Path: d.str(), Line: d.int(), Message: d.str()}
		}
	}
}

func (d *decoder) frontMatter(fm *FrontMatter) {
	fm.Line, fm.EndLine, fm.Raw = d.int(), d.int(), d.str()
	fm.Values, fm.Keys, fm.Valid = d.strMap(), d.strs(), d.bool()
	switch d.uint() {
	case 0:
	case 1:
		var nodes []*yaml.Node
		fm.Node = d.node(&nodes, 0)
	default:
		d.fail("front matter node")
	}
}

// maxNodeDepth bounds the nesting of a decoded yaml.Node tree.
const maxNodeDepth = 10000

// node reads a node and its content; nodes collects them in pre-order for
// aliases.
func (d *decoder) node(nodes *[]*yaml.Node, depth int) *yaml.Node {
	if d.err != nil || depth > maxNodeDepth {
		d.fail("node depth")
		return nil
	}
	n := &yaml.Node{}
	*nodes = append(*nodes, n)
	kind, style := d.uint(), d.uint()
	if kind > math.MaxUint32 || style > math.MaxUint32 {
		d.fail("node kind")
		return nil
	}
	n.Kind, n.Style = yaml.Kind(kind), yaml.Style(style)
	n.Tag, n.Value, n.Anchor = d.str(), d.str(), d.str()
	if a := d.uint(); a > 0 {
		if a-1 >= uint64(len(*nodes)) {
			d.fail("alias")
			return nil
		}
		n.Alias = (*nodes)[a-1]
	}
	n.HeadComment, n.LineComment, n.FootComment = d.str(), d.str(), d.str()
	n.Line, n.Column = d.int(), d.int()
	if c, ok := d.count(); ok {
		n.Content = make([]*yaml.Node, 0, c)
		for range c {
			child := d.node(nodes, depth+1)
			if child == nil {
				return nil
			}
			n.Content = append(n.Content, child)
		}
	}
	return n
}

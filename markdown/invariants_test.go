package markdown

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/recite-dev/recite/internal/sharedtest"
)

// checkInvariants returns the violations of the properties every Document
// keeps, whatever the input: line numbers within 1..lines+1, sections with
// EndLine >= Line and in-range parents, in-range section indices, no `\r`
// in extracted text, and no recovered panic.
func checkInvariants(d *Document) []string {
	var bad []string
	maxLine := d.LineCount() + 1
	inRange := func(what string, l int) {
		if l < 1 || l > maxLine {
			bad = append(bad, fmt.Sprintf("%s line %d outside 1..%d", what, l, maxLine))
		}
	}
	secOK := func(what string, i int) {
		if i < -1 || i >= len(d.Sections) {
			bad = append(bad, fmt.Sprintf("%s section %d out of range", what, i))
		}
	}
	noCR := func(what, s string) {
		if strings.ContainsRune(s, '\r') {
			bad = append(bad, what+" contains \\r: "+s)
		}
	}
	inRange("body", d.BodyLine)
	for _, fm := range d.FrontMatter {
		inRange("front matter", fm.Line)
		inRange("front matter end", fm.EndLine)
		for k, v := range fm.Values {
			noCR("front matter "+k, v)
		}
	}
	for i, s := range d.Sections {
		inRange("section", s.Line)
		inRange("section end", s.EndLine)
		if s.EndLine < s.Line {
			bad = append(bad, fmt.Sprintf("section %d %q EndLine %d < Line %d", i, s.Title, s.EndLine, s.Line))
		}
		if s.Parent < -1 || s.Parent >= i {
			bad = append(bad, fmt.Sprintf("section %d parent %d", i, s.Parent))
		}
		if i > 0 && s.Line < d.Sections[i-1].Line {
			bad = append(bad, fmt.Sprintf("section %d out of order", i))
		}
		noCR("section title", s.Title)
	}
	for _, c := range d.Checkboxes {
		inRange("checkbox", c.Line)
		secOK("checkbox", c.Section)
		noCR("checkbox", c.Text)
		if !strings.ContainsRune(" xX~-", c.State) {
			bad = append(bad, fmt.Sprintf("checkbox state %q", c.State))
		}
		if c.Depth < 1 {
			bad = append(bad, fmt.Sprintf("checkbox depth %d", c.Depth))
		}
	}
	for _, f := range d.Fields {
		inRange("field", f.Line)
		secOK("field", f.Section)
		noCR("field key", f.Key)
		noCR("field value", f.Value)
	}
	for _, t := range d.Tables {
		inRange("table", t.Line)
		secOK("table", t.Section)
		for _, r := range t.Rows {
			inRange("row", r.Line)
			for _, c := range r.Cells {
				noCR("cell", c)
			}
		}
	}
	for _, tb := range d.Tasks {
		inRange("task", tb.Line)
		inRange("task end", tb.EndLine)
		secOK("task", tb.Section)
		if tb.EndLine < tb.Line {
			bad = append(bad, fmt.Sprintf("task EndLine %d < Line %d", tb.EndLine, tb.Line))
		}
	}
	for _, dg := range d.Diagnostics {
		if strings.HasPrefix(dg.Message, "internal error") {
			bad = append(bad, dg.String())
		}
		if dg.Line != 0 {
			inRange("diagnostic", dg.Line)
		}
	}
	return bad
}

// TestRealdataInvariants parses every markdown file of every real planning
// tree and checks the invariants.
func TestRealdataInvariants(t *testing.T) {
	rd := sharedtest.Realdata(t)
	r := NewReader()
	n := 0
	err := filepath.WalkDir(rd, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || !strings.HasSuffix(p, ".md") {
			return err
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		n++
		d := r.Parse(p, src)
		for _, b := range checkInvariants(d) {
			t.Errorf("%s: %s", p, b)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 100 {
		t.Errorf("parsed only %d files under %s", n, rd)
	}
}

package prompt

import (
	"strings"
	"testing"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// headingLevels lists the levels of md's headings as goldmark sees them.
func headingLevels(md string) []int {
	var out []int
	doc := mdParser.Parse(text.NewReader([]byte(md)))
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering && h.Lines().Len() > 0 {
			out = append(out, h.Level)
		}
		return ast.WalkContinue, nil
	})
	return out
}

// FuzzDemote: demote never panics, keeps every heading a heading, and
// leaves none above base; text that is not a heading is not touched
// (the lines that carry no heading stay the same).
func FuzzDemote(f *testing.F) {
	for _, s := range []string{"# A\n\nb\n", "Title\n===\n", "```\n# x\n```\n# y\n", "> # q\n", "- # item heading\n", "#\n", "## a ##\n### b\n"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, md string, base int) {
		base = 1 + (base%6+6)%6
		out := demote(md, base)
		before, after := headingLevels(CleanControls(md)), headingLevels(out)
		if len(after) != len(before) {
			t.Fatalf("%d headings became %d: %q → %q", len(before), len(after), md, out)
		}
		shallow := 7
		for _, l := range before {
			shallow = min(shallow, l)
		}
		for i, l := range after {
			if shallow < base && l < base {
				t.Fatalf("heading %d at level %d, above base %d: %q → %q", i, l, base, md, out)
			}
		}
		if len(before) == 0 && out != CleanControls(md) {
			t.Fatalf("text without headings changed: %q → %q", md, out)
		}
	})
}

// FuzzCheck: Check never panics on any body, and a body it accepts is
// valid JSON.
func FuzzCheck(f *testing.F) {
	p := Assemble(fixtureInput())
	for _, prov := range Providers() {
		b, _ := Render(p, prov, RenderOptions{})
		f.Add(prov, string(b))
	}
	f.Fuzz(func(t *testing.T, prov, body string) {
		probs := Check(prov, []byte(body), CheckOptions{Count: func(s string) int { return len(strings.Fields(s)) }})
		_ = probs
	})
}

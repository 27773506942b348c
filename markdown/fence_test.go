package markdown

import (
	"slices"
	"strings"
	"testing"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// kinds renders the LineKind of every line of src as one letter each:
// p prose, o open, b body, c close.
func kinds(src string) string {
	var b strings.Builder
	for _, l := range ScanLines(src) {
		b.WriteByte("pobc"[l.Kind])
	}
	return b.String()
}

func TestFenceTracker(t *testing.T) {
	for _, tc := range []struct {
		name, src, want string
	}{
		{"no fence", "a\nb", "pp"},
		{"backticks", "a\n```\n- [ ] x\n```\nb", "pobcp"},
		{"tildes", "~~~\nx\n~~~", "obc"},
		{"info string", "```go\nx\n```", "obc"},
		{"tilde info may hold backticks", "~~~ a`b\nx\n~~~", "obc"},
		{"backtick info holds a backtick: not a fence", "``` a`b\nx\n```", "ppo"},
		{"closing run shorter: still open", "````\n```\nx\n````", "obbc"},
		{"closing run longer closes", "```\nx\n`````", "obc"},
		{"other character does not close", "```\n~~~\n```", "obc"},
		{"closing fence with text does not close", "```\n``` x\n```", "obc"},
		{"closing fence with trailing blanks closes", "```\nx\n```  \t", "obc"},
		{"three spaces of indent", "   ```\nx\n   ```", "obc"},
		{"four spaces: indented code, not a fence", "    ```\nx\n    ```", "ppp"},
		{"close indented four spaces is body", "```\n    ```\n```", "obc"},
		{"tab before the fence", "\t```\nx", "pp"},
		{"two backticks are inline code", "``\nx\n``", "ppp"},
		{"unclosed runs to the end", "```\nx\ny", "obb"},
		{"CRLF", "```\r\nx\r\n```\r\ny", "obcp"},
		{"block quote fence not seen", "> ```\n> x", "pp"},
		{"trailing line feed gives an empty last line", "a\n", "pp"},
		{"empty text is one empty line", "", "p"},
		{"two blocks", "```\na\n```\nb\n~~~~\nc\n~~~~", "obcpobc"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := kinds(tc.src); got != tc.want {
				t.Errorf("kinds(%q) = %s, want %s", tc.src, got, tc.want)
			}
		})
	}
}

func TestProseLines(t *testing.T) {
	src := "# T\n```markdown\n- [ ] example\n```\n- [ ] real\n~~~\nx\n"
	var got []string
	var idx []int
	for i, l := range ProseLines(src) {
		idx, got = append(idx, i), append(got, l)
	}
	if want := []string{"# T", "- [ ] real"}; !slices.Equal(got, want) || !slices.Equal(idx, []int{0, 4}) {
		t.Errorf("ProseLines = %q at %v, want %q at [0 4]", got, idx, want)
	}
	// Stopping early is allowed.
	for range ProseLines(src) {
		break
	}
}

func TestDocumentProseLines(t *testing.T) {
	src := "\uFEFF---\na: 1\n---\n# H\r\n```\r\n- [ ] no\r\n```\r\n- [ ] yes\r\n\r\n"
	d := Parse("x.md", []byte(src))
	type ln struct {
		n    int
		text string
	}
	var got []ln
	for n, l := range d.ProseLines(0, 99) {
		got = append(got, ln{n, l})
	}
	want := []ln{{1, "---"}, {2, "a: 1"}, {3, "---"}, {4, "# H"}, {8, "- [ ] yes"}, {9, ""}}
	if !slices.Equal(got, want) {
		t.Errorf("ProseLines(0, 99) = %v, want %v", got, want)
	}
	got = nil
	for n, l := range d.ProseLines(6, 8) { // starts inside the fence: line 6 is prose
		got = append(got, ln{n, l})
	}
	if want := []ln{{6, "- [ ] no"}}; !slices.Equal(got, want) {
		t.Errorf("ProseLines(6, 8) = %v, want %v", got, want)
	}
	if d.LineCount() != 9 {
		t.Fatalf("LineCount = %d", d.LineCount())
	}
}

// fenceAlphabet are the lines FuzzFenceTracker builds texts from: fences of
// both characters and several lengths, indents and info strings, and lines
// that are not fences. None opens a container (list, block quote, HTML
// block), so the CommonMark fence rules alone decide and goldmark is the
// oracle.
var fenceAlphabet = []string{
	"```", "````", "~~~", "~~~~~", "```go", "``` a`b", "~~~ a`b", "``", "  ```",
	"   ~~~", "    ```", "\t```", "```  ", "``` x", "a", "", "b `c`", "# h", "  ````",
}

// FuzzFenceTracker checks FenceTracker against goldmark: on texts made of
// fenceAlphabet lines, the lines inside fenced code blocks (FenceBody) are
// exactly the lines of goldmark's FencedCodeBlock nodes, and the blocks
// open on the same lines. It also checks, on the raw input, that the kinds
// follow each other as a fence can (a body or close only inside a fence),
// that ProseLines yields exactly the Prose lines, and that Document.ScanLines
// agrees with ScanLines on the parsed file.
func FuzzFenceTracker(f *testing.F) {
	for _, s := range []string{"\x00\x0e\x01", "\x04\x0e\x0e\x06\x0f", "\x02\x0e\x08\x0e\x02", "\x01\x00\x0e\x01", "\x07\x0e\x0c\x10"} {
		f.Add([]byte(s))
	}
	f.Add([]byte("```\n- [ ] x\n```\n"))
	md := goldmark.New()
	f.Fuzz(func(t *testing.T, in []byte) {
		checkKinds(t, string(in))

		lines := make([]string, len(in))
		for i, c := range in {
			lines[i] = fenceAlphabet[int(c)%len(fenceAlphabet)]
		}
		src := strings.Join(lines, "\n")
		checkKinds(t, src)
		// goldmark has no line after a final line feed.
		nLines := strings.Count(src, "\n")
		if !strings.HasSuffix(src, "\n") {
			nLines++
		}
		var opens, body []int
		for i, l := range ScanLines(src) {
			switch l.Kind {
			case FenceOpen:
				opens = append(opens, i)
			case FenceBody:
				if i < nLines {
					body = append(body, i)
				}
			}
		}
		gOpens, gBody := goldmarkFences(md, src)
		if !slices.Equal(opens, gOpens) || !slices.Equal(body, gBody) {
			t.Fatalf("%q:\nFenceTracker opens %v body %v\ngoldmark     opens %v body %v", src, opens, body, gOpens, gBody)
		}
	})
}

// checkKinds checks the kind sequence of src, ProseLines, and
// Document.ScanLines against ScanLines.
func checkKinds(t *testing.T, src string) {
	t.Helper()
	in := false
	var prose []int
	for i, l := range ScanLines(src) {
		if outside := l.Kind == Prose || l.Kind == FenceOpen; outside == in {
			t.Fatalf("%q line %d: kind %d while in a fence is %v", src, i, l.Kind, in)
		}
		switch l.Kind {
		case Prose:
			prose = append(prose, i)
		case FenceOpen:
			in = true
		case FenceClose:
			in = false
		}
		if strings.Contains(l.Text, "\n") {
			t.Fatalf("%q line %d holds a line feed", src, i)
		}
	}
	var got []int
	for i := range ProseLines(src) {
		got = append(got, i)
	}
	if !slices.Equal(got, prose) {
		t.Fatalf("%q: ProseLines %v, Prose lines %v", src, got, prose)
	}
	d := Parse("f.md", []byte(src))
	want := map[int]Line{}
	for i, l := range ScanLines(d.Lines(1, d.LineCount())) {
		want[i+1] = l
	}
	for n, l := range d.ScanLines(1, d.LineCount()) {
		if want[n] != l {
			t.Fatalf("%q: Document.ScanLines line %d = %+v, ScanLines gives %+v", src, n, l, want[n])
		}
	}
}

// goldmarkFences returns the 0-based lines on which goldmark's fenced code
// blocks open, and the lines of their contents.
func goldmarkFences(md goldmark.Markdown, src string) (opens, body []int) {
	b := []byte(src)
	lineOf := func(off int) int { return strings.Count(src[:off], "\n") }
	root := md.Parser().Parse(text.NewReader(b))
	_ = ast.Walk(root, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering || n.Kind() != ast.KindFencedCodeBlock {
			return ast.WalkContinue, nil
		}
		opens = append(opens, lineOf(n.Pos()))
		ls := n.Lines()
		for i := 0; i < ls.Len(); i++ {
			body = append(body, lineOf(ls.At(i).Start))
		}
		return ast.WalkSkipChildren, nil
	})
	return opens, body
}

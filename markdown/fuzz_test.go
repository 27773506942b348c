package markdown

import (
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics and that every Document keeps
// its invariants (checkInvariants: lines within 1..lines+1, EndLine >= Line,
// in-range section indices, no \r in extracted text), and that Lines
// agrees with LineCount.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"",
		"\uFEFF---\nphase: 010\nversion: 1.10\n---\n# T\n",
		"---\r\ntitle: Fix: the bug\r\n---\r\nbody\r\n",
		"---\na: 1\n---\n---\nb: [x\n---\n",
		"---\n- a\n---\n",
		"---\na: &x [1]\nb: *x\nc: |\n  lit\n---\n",
		"---\nunclosed\n",
		"# H\n## 🚧 1. Sub:\ntext\nSetext\n===\n",
		"- [ ] a\r\n- [x] b\r\n  - [~] c\n1. [-] d\n> - [X]e\n",
		"```\n- [ ] no\n<task>\n```\n    - [ ] no\n",
		"**Phase:** 3 **Status:** x\nPlan: 2 of 4  \n- **Key**: v\\\n",
		"| a | b \\| c |\n|---|---|\n| `x\\|y` | 2 | 3 |\n*note*\n| 4 | 5 |\n\n| 6 | 7 |\n",
		"<task type=\"auto\" id='1' tdd>\n<name>n</name>\n<action>a < b && c</action>\n</task>\n<task/>\n<task>\n",
		"\xff\xfe\r\r\n\x00",
		"<task a=\"1\"><name><done></done></name>",
		"- [ ]\n-\n1.\n>",
		"---\nphase: 1\nnote: a\x00b\n---\nbody \x00\n",
		"---\nstatus: a\nm:\n  k: 1\n  k: 2\nstatus: b\n---\n",
		"---\nx: 1\n---\n\n---\ny: 2\ny: 3\n---\n",
		"\uFEFF---\r\n# c\r\nstatus: open\r\n# Title\r\n",
		"---\n\tb: 1\n---\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	r := NewReader()
	f.Fuzz(func(t *testing.T, src []byte) {
		d := r.Parse("fuzz.md", src)
		if d == nil {
			t.Fatal("nil Document")
		}
		if bad := checkInvariants(d); bad != nil {
			t.Fatalf("%q: %v", src, bad)
		}
		if n := d.LineCount(); n > 0 && strings.Count(d.Lines(1, n), "\n") != n-1 {
			t.Fatalf("Lines(1, %d) has %d newlines", n, strings.Count(d.Lines(1, n), "\n"))
		}
		for i := range d.Sections {
			_ = d.SectionText(i)
		}
	})
}

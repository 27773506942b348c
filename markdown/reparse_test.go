package markdown

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/recite-dev/recite/internal/sharedtest"
)

// reparseBase is a state file shaped like GSD's, with the constructs that
// can run across a heading: fences, HTML blocks, lists, tables, tasks.
const reparseBase = `---
status: executing
---
# Project State

## Current Position

Phase: 2 of 4 (Two)
Status: Executing
Last activity: 2025-01-01 - started

## Accumulated Context

### Decisions

- [Phase 1]: use goldmark
- [Phase 2]: keep lines

### Blockers/Concerns

None yet.

| Key | Value |
|-----|-------|
| a | 1 |

## Notes

- [ ] open
- [x] done

` + "```" + `
# not a heading
` + "```" + `

<task type="auto">
<name>t</name>
</task>

## Log

First paragraph of the log.

Second paragraph, Key: value.
More of the second paragraph.

Third paragraph.

## Table Notes

Before the table.

| x | y |
|---|---|
| 1 | 2 |

Between.

| 3 | 4 |

After the rows.

## Session Continuity

Stopped at: here
Resume file: none
`

// edits are the changes the splice must get right: one line changed,
// lines added and removed, and changes that run across a heading (an
// unclosed fence, an HTML block, a lazy list, a setext underline, a link
// reference, a heading removed or added).
var reparseEdits = []struct{ name, old, new string }{
	{"one line", "Last activity: 2025-01-01 - started", "Last activity: 2025-01-02 - went on"},
	{"add a decision", "- [Phase 2]: keep lines\n", "- [Phase 2]: keep lines\n- [Phase 2]: one more\n"},
	{"remove a line", "Status: Executing\n", ""},
	{"tick a box", "- [ ] open", "- [x] open"},
	{"add a row", "| a | 1 |\n", "| a | 1 |\n| b | 2 |\n"},
	{"unclosed fence", "None yet.\n", "None yet.\n```\n"},
	{"html block", "None yet.\n", "None yet.\n<div>\n"},
	{"html comment", "None yet.\n", "<!--\nNone yet.\n"},
	{"setext underline", "Stopped at: here\n", "Stopped at: here\n---\n"},
	{"link reference", "None yet.\n", "None yet.\n\n[phase 1]: /x\n"},
	{"heading removed", "## Notes\n", "Notes\n"},
	{"heading added", "- [x] done\n", "- [x] done\n\n## Extra\n\nStatus: x\n"},
	{"task opened", "None yet.\n", "None yet.\n<task type=\"x\">\n"},
	{"paragraph", "Third paragraph.", "Third paragraph, changed."},
	{"paragraph to checkbox", "Second paragraph, Key: value.", "- [ ] Second paragraph, Key: value."},
	{"paragraph joined", "First paragraph of the log.\n\n", "First paragraph of the log.\n"},
	{"paragraph split", "Second paragraph, Key: value.\n", "Second paragraph, Key: value.\n\n"},
	{"fence in a paragraph", "First paragraph of the log.\n", "First paragraph of the log.\n\n```\n"},
	{"list before a paragraph", "Third paragraph.\n", "- item\n  Third paragraph.\n"},
	{"setext in a paragraph", "More of the second paragraph.\n", "More of the second paragraph.\n===\n"},
	{"row near appended rows", "Between.", "| 9 | 9 |"},
	{"text after appended rows", "After the rows.", "After the rows, changed."},
	{"front matter", "status: executing", "status: verifying"},
	{"front matter broken", "status: executing", "status: [x"},
	{"first heading", "# Project State", "# Project State!"},
	{"last line", "Resume file: none\n", "Resume file: none\nmore\n"},
	{"crlf", "Status: Executing\n", "Status: Executing\r\n"},
	{"invalid utf-8", "Status: Executing", "Status: Ex\xffecuting"},
	{"bom", "---\nstatus", "\uFEFF---\nstatus"},
}

// TestReparseEqualsParse: for every edit, Reparse of the previous Document
// equals a whole Parse of the new bytes, field for field.
func TestReparseEqualsParse(t *testing.T) {
	r := NewReader()
	for _, e := range reparseEdits {
		t.Run(e.name, func(t *testing.T) {
			if !strings.Contains(reparseBase, e.old) {
				t.Fatalf("edit %q not found in the base", e.old)
			}
			prev := r.Parse("STATE.md", []byte(reparseBase))
			src := []byte(strings.Replace(reparseBase, e.old, e.new, 1))
			checkReparse(t, r, prev, src)
		})
	}
}

// TestReparseSplices: a one-line edit inside a section is spliced, not
// parsed whole, and so is a chain of edits on the spliced result.
func TestReparseSplices(t *testing.T) {
	r := NewReader()
	prev := r.Parse("STATE.md", []byte(reparseBase))
	for i, e := range append(reparseEdits[:5:5], reparseEdits[13:15]...) {
		src := []byte(strings.Replace(string(prev.text), e.old, e.new, 1))
		if r.splice(prev, src) == nil {
			t.Fatalf("edit %d (%s) was not spliced", i, e.name)
		}
		prev = checkReparse(t, r, prev, src)
	}
	for _, e := range reparseEdits[5:13] {
		src := []byte(strings.Replace(reparseBase, e.old, e.new, 1))
		if d := r.splice(r.Parse("STATE.md", []byte(reparseBase)), src); d != nil {
			d.generation = 0
			if !reflect.DeepEqual(d, r.Parse("STATE.md", src)) {
				t.Errorf("%s: spliced and differs", e.name)
			}
		}
	}
}

// TestReparseGenerationBound checks that a chain of splices ends in a whole
// parse after maxSpliceGenerations, so old versions of a file edited all day
// under `recite watch` do not stay reachable.
func TestReparseGenerationBound(t *testing.T) {
	r := NewReader()
	e := reparseEdits[0]
	prev := r.Parse("STATE.md", []byte(reparseBase))
	var gens []int
	for i := 0; i < 2*maxSpliceGenerations+2; i++ {
		old, new := e.old, e.new
		if i%2 == 1 {
			old, new = new, old
		}
		src := []byte(strings.Replace(prev.text, old, new, 1))
		if string(src) == prev.text {
			t.Fatalf("edit %d (%s) changed nothing", i, e.name)
		}
		prev = checkReparse(t, r, prev, src)
		gens = append(gens, prev.generation)
	}
	var want []int
	for range 2 {
		for g := 1; g <= maxSpliceGenerations; g++ {
			want = append(want, g)
		}
		want = append(want, 0)
	}
	if !reflect.DeepEqual(gens, want) {
		t.Fatalf("generations %v, want %v", gens, want)
	}
}

// TestReparseRandomEdits applies random line edits to norish's STATE.md
// (the largest real state file) and the base above, each checked against a
// whole parse.
func TestReparseRandomEdits(t *testing.T) {
	srcs := [][]byte{[]byte(reparseBase)}
	for _, name := range []string{"STATE.md", "ROADMAP.md"} {
		if b, err := os.ReadFile(filepath.Join(sharedtest.Realdata(t), "23492__norish", ".planning", name)); err == nil {
			srcs = append(srcs, b)
		}
	}
	pieces := []string{"", "text", "# H", "## Decisions", "```", "<div>", "- [ ] x", "| a | b |", "---", "Status: x",
		"> quote", "  - nested", "<!--", "-->", "<task>", "</task>", "[x]: /y", "Title\n===", "    code",
		"\nplain paragraph\n", "|---|---|", "1. [x] done", "~~~", "***", "Key: value\n\nnext"}
	rng := rand.New(rand.NewPCG(1, 2))
	r := NewReader()
	spliced := 0
	for _, src := range srcs {
		prev := r.Parse("STATE.md", src)
		n := 150
		if testing.Short() {
			n = 15
		}
		for i := 0; i < n; i++ {
			lines := strings.SplitAfter(string(prev.text), "\n")
			k := rng.IntN(len(lines))
			switch rng.IntN(3) {
			case 0:
				lines[k] = pieces[rng.IntN(len(pieces))] + "\n"
			case 1:
				lines = append(lines[:k], append([]string{pieces[rng.IntN(len(pieces))] + "\n"}, lines[k:]...)...)
			case 2:
				lines = append(lines[:k], lines[k+1:]...)
			}
			next := []byte(strings.Join(lines, ""))
			if r.splice(prev, next) != nil {
				spliced++
			}
			prev = checkReparse(t, r, prev, next)
		}
	}
	if spliced == 0 {
		t.Fatal("no random edit was spliced")
	}
	t.Logf("%d random edits spliced", spliced)
}

func checkReparse(t *testing.T, r *Reader, prev *Document, src []byte) *Document {
	t.Helper()
	before := *prev
	got := r.Reparse(prev, src)
	want := r.Parse(prev.Path, src)
	if got.generation > maxSpliceGenerations {
		t.Fatalf("splice chain of %d generations, over the bound of %d", got.generation, maxSpliceGenerations)
	}
	want.generation = got.generation // the only field allowed to differ
	if !reflect.DeepEqual(got, want) {
		gv, wv := reflect.ValueOf(got).Elem(), reflect.ValueOf(want).Elem()
		for i := 0; i < gv.NumField(); i++ {
			if g, w := gv.Field(i), wv.Field(i); g.CanInterface() && !reflect.DeepEqual(g.Interface(), w.Interface()) {
				t.Fatalf("Reparse differs from Parse in %s:\ngot  %+v\nwant %+v", gv.Type().Field(i).Name, g.Interface(), w.Interface())
			}
		}
		t.Fatalf("Reparse differs from Parse in an unexported field: text equal %v, lines %d/%d, refs %v/%v, spliceable %v/%v",
			got.text == want.text, len(got.lineStarts), len(want.lineStarts), got.hasRefs, want.hasRefs, got.spliceable, want.spliceable)
	}
	if !reflect.DeepEqual(*prev, before) {
		t.Fatal("Reparse modified prev")
	}
	return got
}

// FuzzReparse: for any two texts, Reparse of the first's Document with the
// second's bytes equals a whole parse of the second, and never panics.
func FuzzReparse(f *testing.F) {
	for _, e := range reparseEdits {
		f.Add([]byte(reparseBase), []byte(strings.Replace(reparseBase, e.old, e.new, 1)))
	}
	r := NewReader()
	f.Fuzz(func(t *testing.T, a, b []byte) {
		prev := r.Parse("fuzz.md", a)
		got, want := r.Reparse(prev, b), r.Parse("fuzz.md", b)
		want.generation = got.generation // the only field allowed to differ
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("Reparse differs from Parse for %q -> %q", a, b)
		}
	})
}

// BenchmarkReparse re-reads norish's STATE.md after its Last activity line
// changed (compare BenchmarkReaderParse, the whole file).
func BenchmarkReparse(b *testing.B) {
	src := norishState(b)
	r := NewReader()
	prev := r.Parse("STATE.md", src)
	next := []byte(strings.Replace(string(src), "Last activity:", "Last activity: (1)", 1))
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		r.Reparse(prev, next)
	}
}

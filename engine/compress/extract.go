package compress

import (
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/text"
)

// Counter counts the tokens of a text (engine/budget.Counter.Count).
type Counter func(string) int

// md is the shared markdown parser (CommonMark, no extensions); goldmark
// parsers are safe for concurrent use.
var md = goldmark.New()

// candidate is one line an extract may keep: its text, its rule priority
// (lower is kept first) and its position in the source.
type candidate struct {
	text  string
	prio  int
	order int
}

// Extract keeps about keep (0 < keep ≤ 1) of text's tokens by extractive rules
// that keep the key points (docs/formats.md#compression), no model involved:
//
//   - markdown (code false): headings first, then the first sentence of
//     each paragraph, then the first line of each list item, then the
//     signatures inside code blocks;
//   - code (code true): the first line, then declaration signatures
//     (func, type, class, def, interface, export, fn, struct…).
//
// Lines are chosen by priority, then source order, until the next would
// pass keep×tokens; at least one line is kept. They are written in source
// order, followed by a note "… (compressed: N of M tokens kept)". Text
// whose extract would not be shorter is returned unchanged. The result
// depends only on its arguments.
func Extract(src string, keep float64, code bool, count Counter) string {
	if keep >= 1 || strings.TrimSpace(src) == "" {
		return src
	}
	total := count(src)
	var cands []candidate
	if code {
		cands = codeCandidates(src)
	} else {
		cands = markdownCandidates(src)
	}
	if len(cands) == 0 {
		cands = []candidate{{text: firstLine(src), order: 0}}
	}
	byPrio := append([]candidate(nil), cands...)
	sort.SliceStable(byPrio, func(i, j int) bool {
		if byPrio[i].prio != byPrio[j].prio {
			return byPrio[i].prio < byPrio[j].prio
		}
		return byPrio[i].order < byPrio[j].order
	})
	target := int(float64(total) * keep)
	var chosen []candidate
	used := 0
	for _, c := range byPrio {
		t := count(c.text) + 1
		if len(chosen) > 0 && used+t > target {
			break
		}
		chosen = append(chosen, c)
		used += t
	}
	sort.SliceStable(chosen, func(i, j int) bool { return chosen[i].order < chosen[j].order })
	lines := make([]string, 0, len(chosen)+1)
	for _, c := range chosen {
		lines = append(lines, c.text)
	}
	out := strings.Join(lines, "\n")
	kept := count(out)
	out += fmt.Sprintf("\n… (compressed: %d of %d tokens kept)", kept, total)
	if count(out) >= total {
		return src
	}
	return out
}

// OneLine is the one-line form of a forgotten or old segment: label, then
// the first meaningful line of text cut to 160 runes.
func OneLine(label, src string) string {
	l := firstLine(src)
	if l == "" {
		return label
	}
	return label + ": " + l
}

// firstLine returns the first line of s that has a letter or digit,
// trimmed, with markdown markers removed and cut to 160 runes.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		t := strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#>*-`|"))
		if strings.IndexFunc(t, func(r rune) bool { return r > 127 || ('a' <= r|32 && r|32 <= 'z') || ('0' <= r && r <= '9') }) >= 0 {
			return clip(t, 160)
		}
	}
	return ""
}

func clip(s string, w int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= w {
		return s
	}
	r := []rune(s)
	return string(r[:w-1]) + "…"
}

// markdownCandidates walks the goldmark tree of src.
func markdownCandidates(src string) []candidate {
	source := []byte(src)
	doc := md.Parser().Parse(text.NewReader(source))
	var out []candidate
	add := func(t string, prio int) {
		if t = strings.TrimSpace(t); t != "" {
			out = append(out, candidate{text: t, prio: prio, order: len(out)})
		}
	}
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch n := n.(type) {
		case *ast.Heading:
			add(strings.Repeat("#", n.Level)+" "+clip(blockText(n, source, " "), 200), 0)
			return ast.WalkSkipChildren, nil
		case *ast.Paragraph, *ast.TextBlock:
			if _, inItem := n.Parent().(*ast.ListItem); inItem {
				return ast.WalkSkipChildren, nil
			}
			add(firstSentence(blockText(n, source, " ")), 1)
			return ast.WalkSkipChildren, nil
		case *ast.ListItem:
			if c := n.FirstChild(); c != nil && c.Type() == ast.TypeBlock && c.Lines().Len() > 0 {
				seg := c.Lines().At(0)
				add("- "+clip(string(seg.Value(source)), 200), 2)
			}
			return ast.WalkContinue, nil
		case *ast.FencedCodeBlock, *ast.CodeBlock:
			for _, l := range strings.Split(blockText(n, source, "\n"), "\n") {
				if isSignature(l) {
					add("    "+clip(l, 200), 3)
				}
			}
			return ast.WalkSkipChildren, nil
		case *ast.HTMLBlock, *ast.ThematicBreak:
			return ast.WalkSkipChildren, nil
		}
		return ast.WalkContinue, nil
	})
	return out
}

// blockText joins the source lines of a block node.
func blockText(n ast.Node, source []byte, sep string) string {
	lines := n.Lines()
	parts := make([]string, 0, lines.Len())
	for i := 0; i < lines.Len(); i++ {
		seg := lines.At(i)
		parts = append(parts, strings.TrimRight(string(seg.Value(source)), "\r\n"))
	}
	return strings.Join(parts, sep)
}

// firstSentence is s up to its first ". ", "! " or "? " (inclusive of the
// mark), cut to 240 runes.
func firstSentence(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	for i := 0; i+1 < len(s); i++ {
		if (s[i] == '.' || s[i] == '!' || s[i] == '?') && s[i+1] == ' ' {
			return clip(s[:i+1], 240)
		}
	}
	return clip(s, 240)
}

// codeCandidates are the first non-blank line and every signature line.
func codeCandidates(src string) []candidate {
	var out []candidate
	first := true
	for _, l := range strings.Split(src, "\n") {
		t := strings.TrimRight(l, " \t\r")
		if strings.TrimSpace(t) == "" {
			continue
		}
		switch {
		case first:
			out = append(out, candidate{text: clip(t, 200), prio: 0, order: len(out)})
			first = false
		case isSignature(t):
			out = append(out, candidate{text: clip(t, 200), prio: 1, order: len(out)})
		}
	}
	return out
}

// signaturePrefixes start a declaration in common languages; the last group
// counts only at column 0, where it declares rather than assigns.
var signaturePrefixes = []string{
	"func ", "type ", "class ", "def ", "async def ", "interface ", "export ", "fn ", "pub fn ", "pub struct ",
	"pub enum ", "pub trait ", "struct ", "enum ", "trait ", "impl ", "function ", "async function ", "public ",
	"protected ", "abstract ", "module ", "package ",
}

var topLevelPrefixes = []string{"const ", "var ", "let "}

// isSignature reports whether a code line declares something.
func isSignature(l string) bool {
	t := strings.TrimSpace(l)
	for _, p := range signaturePrefixes {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	for _, p := range topLevelPrefixes {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

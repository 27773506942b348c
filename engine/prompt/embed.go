package prompt

import (
	"crypto/sha256"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// Embedded documents (the project brief, the plan, instruction and skill
// files, the preserved block) keep their own headings, moved below
// recite's: a section is a level-2 heading, so a document shown in a
// section starts at level 3, and a file shown under its "### PATH"
// heading starts at level 4. Headings are found with goldmark, so a "#"
// line inside a code fence or an HTML block is never taken for one.

// mdParser parses CommonMark with GFM, as the planning reader does.
var mdParser = goldmark.New(goldmark.WithExtensions(extension.GFM)).Parser()

// demote returns md with its headings moved down so the shallowest one is
// at level base (1–6), C0 control characters removed (CleanControls);
// deeper levels keep their distance and stop at 6. A
// setext heading (text over === or ---) becomes an ATX heading, in place
// (after a list marker or quote prefix). md is
// returned unchanged when no heading is above base.
func demote(md string, base int) string {
	md = CleanControls(md) // goldmark reads a lone CR as a line break
	if !mayHaveHeading(md) {
		return md
	}
	src := []byte(md)
	doc := mdParser.Parse(text.NewReader(src))
	type edit struct {
		from, to int
		repl     string
	}
	var heads []*ast.Heading
	shallowest := 7
	_ = ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		if h, ok := n.(*ast.Heading); ok && entering && h.Lines().Len() > 0 {
			heads = append(heads, h)
			shallowest = min(shallowest, h.Level)
		}
		return ast.WalkContinue, nil
	})
	shift := base - shallowest
	if shift <= 0 {
		return md
	}
	var edits []edit
	for _, h := range heads {
		level := min(6, h.Level+shift)
		first, last := h.Lines().At(0), h.Lines().At(h.Lines().Len()-1)
		// ATX: the run of '#' before the heading's text on its line.
		i := first.Start
		for i > 0 && (src[i-1] == ' ' || src[i-1] == '\t') {
			i--
		}
		j := i
		for j > 0 && src[j-1] == '#' {
			j--
		}
		if j < i {
			edits = append(edits, edit{j, i, strings.Repeat("#", level)})
			continue
		}
		// Setext: the text lines and the underline after them become one
		// ATX line, after the first line's prefix (a list marker, "> ").
		end := last.Stop
		for end < len(src) && src[end] != '\n' {
			end++
		}
		if end == len(src) {
			continue // no underline: not a heading recite can place
		}
		under := end + 1
		for end = under; end < len(src) && src[end] != '\n'; end++ {
		}
		if u := strings.TrimSpace(strings.TrimLeft(string(src[under:end]), " >")); u == "" || strings.Trim(u, "=") != "" && strings.Trim(u, "-") != "" {
			continue
		}
		var words []string
		for k := 0; k < h.Lines().Len(); k++ {
			seg := h.Lines().At(k)
			words = append(words, strings.TrimSpace(string(seg.Value(src))))
		}
		edits = append(edits, edit{first.Start, end, strings.Repeat("#", level) + " " + strings.Join(words, " ")})
	}
	var b strings.Builder
	at := 0
	for _, e := range edits {
		if e.from < at {
			continue
		}
		b.Write(src[at:e.from])
		b.WriteString(e.repl)
		at = e.to
	}
	b.Write(src[at:])
	return b.String()
}

// mayHaveHeading is a cheap test that md may hold a heading: a line that,
// after its container prefixes (indentation, "> ", list markers), starts
// with "#" or could underline a setext heading. Most bodies skip the parse.
func mayHaveHeading(md string) bool {
	for _, l := range strings.Split(md, "\n") {
		t := strings.TrimSpace(l)
		if t != "" && (strings.Trim(t, "=") == "" || strings.Trim(t, "-") == "") {
			return true
		}
		for {
			t = strings.TrimLeft(t, " \t>")
			r := strings.TrimLeft(t, "0123456789")
			switch {
			case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "), strings.HasPrefix(t, "+ "):
				t = t[2:]
				continue
			case len(r) < len(t) && (strings.HasPrefix(r, ". ") || strings.HasPrefix(r, ") ")):
				t = r[2:]
				continue
			}
			break
		}
		if strings.HasPrefix(t, "#") {
			return true
		}
	}
	return false
}

// cutText shortens s to at most w runes. A cut text ends at the last
// sentence end (". ", "! ", "? ", "; ", "。") or list item ("- ", "* ",
// "N. " starting a line) that leaves at least half of the room, else at
// the last word boundary, and says how much it cut: "⟨+N chars⟩". Line
// breaks and runs of white space become one space, so one item stays on
// one line.
func cutText(s string, w int) string {
	s = strings.Join(strings.Fields(strings.ReplaceAll(s, "\r", "")), " ")
	n := utf8.RuneCountInString(s)
	if n <= w {
		return s
	}
	r := []rune(s)
	marker := func(cut int) string { return fmt.Sprintf(" ⟨+%d chars⟩", len(r)-cut) }
	room := w - utf8.RuneCountInString(marker(0))
	if room < 1 {
		return string(r[:max(w, 0)])
	}
	cut := -1
	for i := room; i > room/2; i-- {
		if i < len(r) && r[i] == ' ' && strings.ContainsRune(".!?;", r[i-1]) || r[i-1] == '。' {
			cut = i
			break
		}
		if i+1 < len(r) && r[i] == ' ' && (r[i+1] == '-' || r[i+1] == '*') && i+2 < len(r) && r[i+2] == ' ' {
			cut = i
			break
		}
	}
	if cut < 0 {
		cut = room
		for i := room; i > room/2; i-- {
			if r[i] == ' ' {
				cut = i
				break
			}
		}
	}
	kept := strings.TrimRight(string(r[:cut]), " ")
	return kept + marker(utf8.RuneCountInString(kept))
}

// blockedMark matches an explicit BLOCKED mark: the word in capitals.
var blockedMark = regexp.MustCompile(`\bBLOCKED\b`)

// signalBlockers returns the BLOCKED stop signals of in that the open
// blockers of the planning tree do not already list (by id): the stop
// signals of the conversation, the items of the preserved block's
// "Blocked" section that carry the BLOCKED mark and the BLOCKED marks the
// health lines quote from a loop file, one line each, in order,
// without duplicates. Together with openBlockers they are the one list of
// open blockers the state section and the recitation both show.
func signalBlockers(in Input, planned []string) []string {
	var lines []string
	for _, s := range in.Stops {
		for _, l := range strings.Split(s, "\n") {
			if blockedMark.MatchString(l) {
				lines = append(lines, l)
			}
		}
	}
	if in.Preserved != nil {
		lines = append(lines, preservedBlocked(in.Preserved.Text)...)
	}
	// A health line quotes the BLOCKED mark of a loop file: "State: BLOCKED
	// (external error: BLOCKED: reason)". The quoted mark is the blocker.
	for _, h := range in.Health {
		if i := strings.LastIndex(h, "BLOCKED:"); i >= 0 {
			lines = append(lines, strings.TrimSuffix(strings.TrimSpace(h[i:]), ")"))
		}
	}
	var out []string
	seen := map[string]bool{}
next:
	for _, l := range lines {
		l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "-*> "))
		if l == "" || seen[l] {
			continue
		}
		for _, id := range planned {
			if id != "" && strings.Contains(l, id) {
				continue next
			}
		}
		seen[l] = true
		out = append(out, l)
	}
	return out
}

// preservedBlocked returns the text of the list items under the
// preservation block's "Blocked" heading that carry the BLOCKED mark.
func preservedBlocked(md string) []string {
	src := []byte(md)
	doc := mdParser.Parse(text.NewReader(src))
	var out []string
	in := false
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if h, ok := n.(*ast.Heading); ok {
			in = strings.EqualFold(strings.TrimSpace(string(headingText(h, src))), "Blocked")
			continue
		}
		if l, ok := n.(*ast.List); ok && in {
			for it := l.FirstChild(); it != nil; it = it.NextSibling() {
				t := strings.TrimSpace(string(nodeText(it, src)))
				if blockedMark.MatchString(t) {
					out = append(out, t)
				}
			}
		}
	}
	return out
}

func headingText(h *ast.Heading, src []byte) []byte {
	var b []byte
	for k := 0; k < h.Lines().Len(); k++ {
		seg := h.Lines().At(k)
		b = append(b, seg.Value(src)...)
	}
	return b
}

// nodeText is the source text of a block's lines, joined by spaces.
func nodeText(n ast.Node, src []byte) []byte {
	var parts []string
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if entering && c.Type() == ast.TypeBlock {
			for k := 0; k < c.Lines().Len(); k++ {
				seg := c.Lines().At(k)
				parts = append(parts, strings.TrimSpace(string(seg.Value(src))))
			}
		}
		return ast.WalkContinue, nil
	})
	return []byte(strings.Join(parts, " "))
}

// DemoteCache keeps the demoted form of the documents a prompt embeds,
// by the SHA-256 of the text and the base level, so a rebuild parses only
// the documents that changed (docs/architecture.md#what-a-change-feeds).
// Like the token and redaction caches it keeps two generations of at most
// maxDemoted entries; a text demote leaves as it is is kept as a flag, not
// by value, so no version of a planning file stays reachable through it.
// It is safe for concurrent use; the nil *DemoteCache keeps nothing.
type DemoteCache struct {
	mu        sync.Mutex
	cur, prev map[demoteKey]demoted
}

// maxDemoted bounds one generation of a DemoteCache (a norish prompt
// embeds about 15 documents).
const maxDemoted = 512

type demoteKey struct {
	sum  [sha256.Size]byte
	base int
}

type demoted struct {
	same bool // demote returned md unchanged
	text string
}

// NewDemoteCache returns an empty DemoteCache.
func NewDemoteCache() *DemoteCache {
	return &DemoteCache{cur: map[demoteKey]demoted{}}
}

// demote is demote(md, base), from the cache when md was demoted before.
func (c *DemoteCache) demote(md string, base int) string {
	if c == nil {
		return demote(md, base)
	}
	k := demoteKey{sha256.Sum256([]byte(md)), base}
	c.mu.Lock()
	v, ok := c.cur[k]
	if !ok {
		if v, ok = c.prev[k]; ok {
			c.put(k, v)
		}
	}
	c.mu.Unlock()
	if !ok {
		out := demote(md, base)
		v = demoted{same: out == md}
		if !v.same {
			v.text = out
		}
		c.mu.Lock()
		c.put(k, v)
		c.mu.Unlock()
	}
	if v.same {
		return md
	}
	return v.text
}

// put stores v under k, turning the generations over when the current one
// is full. c.mu is held.
func (c *DemoteCache) put(k demoteKey, v demoted) {
	if len(c.cur) >= maxDemoted {
		c.prev, c.cur = c.cur, make(map[demoteKey]demoted, maxDemoted)
	}
	c.cur[k] = v
}

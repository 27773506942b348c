package markdown

import (
	"regexp"
	"sort"
	"strings"
)

var (
	// attrRE reads one attribute of an opening tag: name="v", name='v' or
	// name=v.
	attrRE = regexp.MustCompile(`([A-Za-z_:][-A-Za-z0-9_:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>/]+)))?`)
	// childOpenRE finds a child tag's opening tag inside a task body.
	childOpenRE = regexp.MustCompile(`<([A-Za-z][A-Za-z0-9_-]*)(\s[^<>]*)?>`)
)

// parseTasks finds the pseudo-XML `<task …>…</task>` blocks of the body
// (docs/formats.md#task-blocks) by splitting on tags, not with an XML parser:
// bodies hold bare `<`, `&` and code fences. Tags inside fenced code and
// inside inline code spans on their line are ignored. A `<task>` without
// `</task>` gets a Diagnostic and runs to the end of the file, or up to the
// next `<task` opening if there is one.
func (d *Document) parseTasks(bodyStart int) {
	body := d.text[bodyStart:]
	if !strings.Contains(body, "<task") {
		return
	}
	fences := fencedRanges(body)
	opens := findTaskOpens(body, fences)
	for k, open := range opens {
		limit := len(body)
		if k+1 < len(opens) {
			limit = opens[k+1]
		}
		tagEnd := strings.IndexByte(body[open:limit], '>')
		if tagEnd < 0 {
			d.diag(d.lineOf(bodyStart+open), "<task opening tag has no '>'; ignored")
			continue
		}
		tagEnd += open
		tb := TaskBlock{
			Line:     d.lineOf(bodyStart + open),
			Attrs:    parseAttrs(body[open+len("<task") : tagEnd]),
			Children: map[string]string{},
			Section:  -1,
		}
		selfClosing := strings.HasSuffix(strings.TrimSpace(body[open:tagEnd]), "/")
		if selfClosing {
			tb.EndLine = tb.Line
			d.Tasks = append(d.Tasks, tb)
			continue
		}
		inner := body[tagEnd+1 : limit]
		closeAt := closeTagIndex(inner, "task")
		var innerText string
		if closeAt < 0 {
			innerText = inner
			tb.EndLine = d.lineOf(bodyStart + max(limit-1, tagEnd))
			where := "end of file"
			if limit < len(body) {
				where = "next <task>"
			}
			d.diag(tb.Line, "<task> is not closed by </task>; block runs to the "+where)
		} else {
			innerText = inner[:closeAt]
			tb.EndLine = d.lineOf(bodyStart + tagEnd + 1 + closeAt)
		}
		tb.Body = strings.TrimSpace(innerText)
		if tb.Body != "" {
			lead := len(innerText) - len(strings.TrimLeft(innerText, " \t\n"))
			tb.BodyLine = d.lineOf(bodyStart + tagEnd + 1 + lead)
		}
		readChildren(innerText, tb.Children)
		d.Tasks = append(d.Tasks, tb)
	}
}

// findTaskOpens returns the offsets of `<task` openings (followed by white
// space, '>' or '/') outside fenced code and inline code spans.
func findTaskOpens(body string, fences [][2]int) []int {
	var out []int
	spans := spanTracker{s: body}
	for i := 0; i < len(body); {
		j := strings.Index(body[i:], "<task")
		if j < 0 {
			break
		}
		p := i + j
		i = p + len("<task")
		if i < len(body) && !strings.ContainsRune(" \t\n>/", rune(body[i])) {
			continue // <tasks>, <task_list>, …
		}
		if i >= len(body) || inRanges(p, fences) || spans.inCodeSpan(p) {
			continue
		}
		out = append(out, p)
	}
	return out
}

// closeTagIndex returns the offset in s of `</name>` (white space allowed
// before '>'), or -1.
func closeTagIndex(s, name string) int {
	pat := "</" + name
	for i := 0; i < len(s); {
		j := strings.Index(s[i:], pat)
		if j < 0 {
			return -1
		}
		p := i + j
		q := p + len(pat)
		for q < len(s) && (s[q] == ' ' || s[q] == '\t' || s[q] == '\n') {
			q++
		}
		if q < len(s) && s[q] == '>' {
			return p
		}
		i = p + len(pat)
	}
	return -1
}

// parseAttrs reads the attributes of an opening tag's text after its name.
// A name without a value maps to "".
func parseAttrs(s string) map[string]string {
	attrs := map[string]string{}
	s = strings.TrimSuffix(strings.TrimSpace(s), "/")
	for _, m := range attrRE.FindAllStringSubmatch(s, -1) {
		if _, dup := attrs[m[1]]; dup {
			continue
		}
		attrs[m[1]] = m[2] + m[3] + m[4]
	}
	return attrs
}

// readChildren stores the trimmed inner text of the first occurrence of each
// top-level `<tag>…</tag>` of a task body. Tags inside fenced code are
// ignored; an opening tag without its closing tag (`Array<T>`) is text.
func readChildren(inner string, children map[string]string) {
	fences := fencedRanges(inner)
	spans := spanTracker{s: inner}
	unclosed := map[string]bool{} // names with no closing tag after some point
	for i := 0; i < len(inner); {
		loc := childOpenRE.FindStringSubmatchIndex(inner[i:])
		if loc == nil {
			return
		}
		start, end := i+loc[0], i+loc[1]
		name := inner[i+loc[2] : i+loc[3]]
		if inRanges(start, fences) || spans.inCodeSpan(start) || unclosed[name] {
			i = end
			continue
		}
		c := closeTagIndex(inner[end:], name)
		if c < 0 {
			unclosed[name] = true // no close later either
			i = end
			continue
		}
		if _, ok := children[name]; !ok {
			children[name] = strings.TrimSpace(inner[end : end+c])
		}
		i = end + c + len("</"+name)
		if k := strings.IndexByte(inner[i:], '>'); k >= 0 {
			i += k + 1
		}
	}
}

// fencedRanges returns the byte ranges [start, end) of fenced code blocks in
// s, fence lines included. Task bodies are indented and may sit in block
// quotes, so leading blanks and `>` are removed from each line before the
// FenceTracker rules apply: a fence opens at three or more backticks or
// tildes and closes at a line of the same character at least as long with
// nothing after it, or at the end of s.
func fencedRanges(s string) [][2]int {
	var out [][2]int
	var f FenceTracker
	open := -1
	for p := 0; p < len(s); {
		e := strings.IndexByte(s[p:], '\n')
		if e < 0 {
			e = len(s)
		} else {
			e += p
		}
		switch f.Next(strings.TrimLeft(s[p:e], " \t>")) {
		case FenceOpen:
			open = p
		case FenceClose:
			out = append(out, [2]int{open, e})
			open = -1
		}
		p = e + 1
	}
	if open >= 0 {
		out = append(out, [2]int{open, len(s)})
	}
	return out
}

// inRanges reports whether p lies in one of the sorted, disjoint ranges.
func inRanges(p int, rs [][2]int) bool {
	i := sort.Search(len(rs), func(i int) bool { return rs[i][1] > p })
	return i < len(rs) && p >= rs[i][0]
}

// spanTracker answers "is offset p inside a backtick code span on its
// line" (an odd number of backticks between the line start and p) for
// non-decreasing p in linear total time.
type spanTracker struct {
	s         string
	pos       int // offset counted up to
	backticks int // backticks from the line start to pos
}

func (t *spanTracker) inCodeSpan(p int) bool {
	if p < t.pos {
		t.pos, t.backticks = 0, 0 // not expected; restart
	}
	seg := t.s[t.pos:p]
	if nl := strings.LastIndexByte(seg, '\n'); nl >= 0 {
		t.backticks = 0
		seg = seg[nl+1:]
	}
	t.backticks += strings.Count(seg, "`")
	t.pos = p
	return t.backticks%2 == 1
}

package planning

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/recite-dev/recite/markdown"
)

// Blocker statuses (Blocker.Status).
const (
	BlockerOpen     = "open"
	BlockerResolved = "resolved"
	BlockerDeferred = "deferred"
)

var (
	// fireBlockerRe is the fire-flow entry heading (docs/formats.md#blockers):
	// `### BLOCKER-005 [P1] title`, `[P0/P1]` allowed, ` (RESOLVED)` suffix.
	fireBlockerRe = regexp.MustCompile(`^(BLOCKER-\d{3,})\s*\[(P[0-3](?:\s*/\s*P[0-3])*)\]\s*(.*?)(\s*\(RESOLVED\))?$`)
	// idBlockerRe is a heading starting with a blocker id: `## B-01 title`,
	// `## BL-01 — title`, `### BLK-003: title`
	// (docs/formats.md#blockers-in-the-wild).
	idBlockerRe = regexp.MustCompile(`^((?:B|BL|BLK|BLOCKER)-\d+)\b\s*(?:\[(P[0-3])[^\]]*\])?\s*[—–:-]*\s*(.*)$`)
	// blockerIDCellRe is a table cell holding a blocker-like id (BLK-001).
	blockerIDCellRe = regexp.MustCompile(`^[A-Z][A-Z0-9]*-\d+[A-Za-z]?$`)
	// priorityRe finds a P0–P3 priority anywhere in a text.
	priorityRe = regexp.MustCompile(`\bP([0-3])\b`)
	// resolvedWordRe marks a bullet or cell as resolved (the STATE.md
	// Blockers/Concerns conventions of docs/formats.md#blockers).
	resolvedWordRe = regexp.MustCompile(`(?i)\b(resolved|closed|fixed|done|wontfix)\b|✅|~~`)
	// notResolvedRe guards "not yet resolved" and friends.
	notResolvedRe = regexp.MustCompile(`(?i)\b(not|un|never)\s+(yet\s+)?(resolved|closed|fixed|done)\b`)
	// placeholderRe is an entry that says there is nothing: `None`,
	// `[None currently]`, `None yet.`, `(none)`, `N/A`, `—`.
	placeholderRe = regexp.MustCompile(`(?i)^[\[(]?\s*(none|nothing|n/a|no blockers?|aucun|нет)\b[^\])]*[\])]?\.?$|^[-—–]$`)
	// severityEmoji maps a heading's leading emoji to a priority (ServicImmo's
	// convention, docs/formats.md#blockers-in-the-wild: 🔴 blocks production, 🟠
	// blocks a feature, 🟡 nice to have).
	severityEmoji = []struct{ emoji, priority string }{
		{"🔴", "P0"}, {"🛑", "P0"}, {"⛔", "P0"}, {"🚨", "P0"},
		{"🟠", "P1"}, {"⚠️", "P1"}, {"⚠", "P1"},
		{"🟡", "P2"}, {"🟢", "P3"}, {"🔵", "P3"},
	}
)

// parseBlockers reads a BLOCKERS.md file with every recogniser of
// docs/formats.md#blockers, in file order:
//
//   - fire-flow entries `### BLOCKER-NNN [Pn] title` (` (RESOLVED)` suffix);
//     the status comes from the enclosing `## Open|Resolved|Deferred
//     Blockers` section;
//   - id headings `## B-NN title` / `## BL-01 — title`, with the status from
//     a `Status:` bullet (closed, resolved, fixed, done → resolved);
//   - table rows whose ID column holds an id (`BLK-001`), with Status and
//     Severity/Priority columns when present;
//   - numbered or bulleted top-level items of sections whose title starts
//     with a severity emoji (🔴 🟠 🟡 …), ids derived as "path:line";
//   - items directly under a section named Open/Active/Resolved/Deferred
//     (Blockers), when that section holds no entry headings.
//
// Completion logs (`✓ T01 completed at …`) and placeholders (`[None
// currently]`, `None`) yield nothing. When nothing is recognised it returns
// nil and the caller reports it. It never panics on any input.
func parseBlockers(path string, doc *markdown.Document) []Blocker {
	if doc == nil {
		return nil
	}
	var out []Blocker
	taken := make(map[int]bool) // sections consumed by a heading recogniser
	for i, s := range doc.Sections {
		title := strings.TrimSpace(s.Title)
		if m := fireBlockerRe.FindStringSubmatch(title); m != nil {
			b := Blocker{
				ID:       m[1],
				Title:    strings.TrimSpace(m[3]),
				Priority: firstPriority(m[2]),
				Status:   sectionBlockerStatus(doc, i),
				Source:   srcRef(path, s.Line),
			}
			if m[4] != "" {
				b.Status = BlockerResolved
			}
			out = append(out, b)
			taken[i] = true
			continue
		}
		if m := idBlockerRe.FindStringSubmatch(title); m != nil && s.Level >= 2 {
			b := Blocker{
				ID:       m[1],
				Title:    strings.TrimSpace(m[3]),
				Priority: m[2],
				Status:   sectionBlockerStatus(doc, i),
				Source:   srcRef(path, s.Line),
			}
			if f, ok := directFieldIn(doc, i, "Status", "Статус", "Statut"); ok {
				b.Status = blockerStatusWord(f.Value, b.Status)
			}
			if b.Priority == "" {
				for _, k := range []string{"Priority", "Severity", "Приоритет", "Sévérité"} {
					if f, ok := directFieldIn(doc, i, k); ok {
						b.Priority = firstPriority(f.Value)
						break
					}
				}
			}
			out = append(out, b)
			taken[i] = true
		}
	}
	for _, t := range doc.Tables {
		out = append(out, blockersFromTable(path, t)...)
	}
	for i, s := range doc.Sections {
		if taken[i] || hasTakenChild(doc, i, taken) {
			continue
		}
		if prio, ok := severityOf(s.Title); ok {
			for _, it := range splitListItems(sectionOwnLines(doc, i)) {
				if b, ok := blockerFromItem(path, it, BlockerOpen); ok {
					if b.Priority == "" {
						b.Priority = prio
					}
					out = append(out, b)
				}
			}
			continue
		}
		if status, ok := statusSection(s.Title); ok {
			for _, it := range splitListItems(sectionOwnLines(doc, i)) {
				if b, ok := blockerFromItem(path, it, status); ok {
					out = append(out, b)
				}
			}
		}
	}
	sortBlockersBySource(out)
	return out
}

// blockersFromBullets reads the top-level bullets of a STATE.md or
// CONSCIENCE.md blocker section (`### Blockers/Concerns`,
// `### Blockers & Issues`, `## Blockers`; docs/formats.md#blockers). `- None`
// and other placeholders yield nothing; a struck-through item (`~~…~~`), one
// marked "(resolved)", RESOLVED, ✅ or a checked checkbox is resolved. An item
// that starts with a blocker id (`BLOCKER-001 [P1] …`) keeps that id and
// priority; the others get the derived id "path:line". A section index out of
// range yields nil.
func blockersFromBullets(path string, doc *markdown.Document, section int) []Blocker {
	if doc == nil || section < 0 || section >= len(doc.Sections) {
		return nil
	}
	lines := sectionOwnLines(doc, section)
	if opensEmpty(lines) {
		// "No blockers." then a list of what was done: the list is not
		// blockers (docs/formats.md#blockers).
		return nil
	}
	var out []Blocker
	for _, it := range splitListItems(lines) {
		if b, ok := blockerFromItem(path, it, BlockerOpen); ok {
			out = append(out, b)
		}
	}
	// Prose-only sections ("None - this is a test fixture") yield nothing.
	return out
}

// opensEmpty reports whether a blocker section's first line of text is a
// paragraph that says there is none ("None", "No blockers.", "None
// currently") and does not introduce a list ("No blockers for phase 3,
// but:"). A "- None" list item is only a placeholder item: the items after
// it are still read (an agent may add blockers below it).
func opensEmpty(lines []srcLine) bool {
	for _, l := range lines {
		t := strings.TrimSpace(l.text)
		if t == "" {
			continue
		}
		if listMarkerRe.MatchString(t) && !isHRule(t) {
			return false
		}
		t = cleanInline(t)
		return !strings.HasSuffix(t, ":") && placeholderRe.MatchString(t)
	}
	return false
}

// blockerFromItem turns one list item into a blocker whose status defaults
// to def; ok is false for placeholders and completion-log lines.
func blockerFromItem(path string, it listItem, def string) (Blocker, bool) {
	text := strings.TrimSpace(it.Text)
	status := def
	switch {
	case strings.HasPrefix(text, "[x]"), strings.HasPrefix(text, "[X]"):
		status = BlockerResolved
		text = strings.TrimSpace(text[3:])
	case strings.HasPrefix(text, "[ ]"), strings.HasPrefix(text, "[~]"), strings.HasPrefix(text, "[-]"):
		text = strings.TrimSpace(text[3:])
	}
	plain := cleanInline(text)
	if plain == "" || placeholderRe.MatchString(plain) || isCompletionLog(plain) {
		return Blocker{}, false
	}
	if isResolvedText(text) {
		status = BlockerResolved
	}
	b := Blocker{
		ID:       srcRef(path, it.Line),
		Title:    plain,
		Priority: firstPriority(plain),
		Status:   status,
		Source:   srcRef(path, it.Line),
	}
	if m := fireBlockerRe.FindStringSubmatch(plain); m != nil {
		b.ID, b.Priority, b.Title = m[1], firstPriority(m[2]), strings.TrimSpace(m[3])
		if m[4] != "" {
			b.Status = BlockerResolved
		}
	} else if m := idBlockerRe.FindStringSubmatch(plain); m != nil && strings.TrimSpace(m[3]) != "" {
		b.ID, b.Title = m[1], strings.TrimSpace(m[3])
		if m[2] != "" {
			b.Priority = m[2]
		}
	}
	return b, true
}

// blockersFromTable reads the rows of a table that has an ID column
// (header "ID", or a first column whose cells are ids like BLK-001). The
// title is the Blocker/Title/Description/Issue column, else the column after
// the ID. Rows whose id cell is not an id are skipped.
func blockersFromTable(path string, t markdown.Table) []Blocker {
	col := func(names ...string) int {
		for i, h := range t.Header {
			h = strings.ToLower(cleanInline(h))
			for _, n := range names {
				if h == n {
					return i
				}
			}
		}
		return -1
	}
	idc := col("id", "#id", "blocker id", "key")
	if idc < 0 {
		return nil
	}
	titlec := col("blocker", "title", "description", "issue", "summary", "what", "blocked")
	if titlec < 0 && idc+1 < len(t.Header) {
		titlec = idc + 1
	}
	statusc := col("status", "state")
	prioc := col("severity", "priority", "sev", "prio")
	var out []Blocker
	for _, r := range t.Rows {
		cell := func(i int) string {
			if i < 0 || i >= len(r.Cells) {
				return ""
			}
			return strings.TrimSpace(r.Cells[i])
		}
		id := cleanInline(cell(idc))
		if !blockerIDCellRe.MatchString(id) {
			continue
		}
		b := Blocker{
			ID:       id,
			Title:    cleanInline(cell(titlec)),
			Priority: firstPriority(cell(prioc)),
			Status:   BlockerOpen,
			Source:   srcRef(path, r.Line),
		}
		if s := cell(statusc); s != "" {
			b.Status = blockerStatusWord(s, BlockerOpen)
		} else if strings.Contains(cell(idc), "~~") {
			b.Status = BlockerResolved
		}
		out = append(out, b)
	}
	return out
}

// sectionBlockerStatus is the status implied by the nearest enclosing section
// named like "Resolved Blockers" or "Deferred" (fire-flow keeps the status
// only in the section, docs/formats.md#blockers); "open" otherwise.
func sectionBlockerStatus(doc *markdown.Document, i int) string {
	for p := doc.Sections[i].Parent; p >= 0 && p < len(doc.Sections); p = doc.Sections[p].Parent {
		if st, ok := statusSection(doc.Sections[p].Title); ok {
			return st
		}
		if p == doc.Sections[p].Parent { // defensive: a malformed tree
			break
		}
	}
	return BlockerOpen
}

// statusSection recognises a section that groups blockers by status:
// "Open Blockers", "Active", "Resolved Blockers", "Closed", "Deferred
// Blockers", "Résolus" …
func statusSection(title string) (string, bool) {
	t := strings.ToLower(cleanInline(title))
	t = strings.TrimSpace(strings.TrimLeftFunc(t, func(r rune) bool { return r > 0x2000 || r == ' ' }))
	first := t
	if i := strings.IndexAny(t, " (:"); i >= 0 {
		first = t[:i]
	}
	switch first {
	case "open", "active", "current", "ouverts", "ouvert", "открытые":
		return BlockerOpen, true
	case "resolved", "closed", "done", "fixed", "résolus", "resolus", "закрытые":
		return BlockerResolved, true
	case "deferred", "wontfix", "parked", "reportés":
		return BlockerDeferred, true
	}
	return "", false
}

// blockerStatusWord maps a free-text status (open, mitigated, closed,
// RESOLVED ✅, ~~open~~ …) to a Blocker status; def when unclear.
func blockerStatusWord(s, def string) string {
	l := strings.ToLower(s)
	switch {
	case strings.Contains(l, "defer"), strings.Contains(l, "parked"):
		return BlockerDeferred
	case isResolvedText(s):
		return BlockerResolved
	case strings.Contains(l, "open"), strings.Contains(l, "mitigat"), strings.Contains(l, "progress"),
		strings.Contains(l, "blocked"), strings.Contains(l, "active"):
		return BlockerOpen
	}
	return def
}

// isResolvedText reports a resolved mark: strike-through, ✅, or the words
// resolved/closed/fixed/done (but not "not yet resolved").
func isResolvedText(s string) bool {
	return resolvedWordRe.MatchString(s) && !notResolvedRe.MatchString(s)
}

// isCompletionLog reports a completion-log line such as Pinkowo's
// `✓ T01 completed at Sat Jun  6 00:24:09 CST 2026`
// (docs/formats.md#blockers-in-the-wild).
func isCompletionLog(s string) bool {
	return strings.HasPrefix(s, "✓") || strings.HasPrefix(s, "✔") ||
		(strings.Contains(strings.ToLower(s), " completed at ") && !strings.Contains(strings.ToLower(s), "block"))
}

// severityOf reports whether a heading starts with a severity emoji and the
// priority it maps to.
func severityOf(title string) (string, bool) {
	t := strings.TrimSpace(title)
	for _, e := range severityEmoji {
		if strings.HasPrefix(t, e.emoji) {
			return e.priority, true
		}
	}
	return "", false
}

// hasTakenChild reports whether a descendant of section i was consumed by a
// heading recogniser (then i is a grouping section, not a list of items).
func hasTakenChild(doc *markdown.Document, i int, taken map[int]bool) bool {
	for j := i + 1; j < len(doc.Sections) && doc.Sections[j].Line <= doc.Sections[i].EndLine; j++ {
		if taken[j] {
			return true
		}
	}
	return false
}

// directFieldIn returns the first field with one of keys whose line lies in
// section i's own lines (before any subsection).
func directFieldIn(doc *markdown.Document, i int, keys ...string) (markdown.Field, bool) {
	from, to := sectionOwnRange(doc, i)
	for _, f := range doc.Fields {
		if f.Line < from || f.Line > to {
			continue
		}
		for _, k := range keys {
			if strings.EqualFold(f.Key, k) {
				return f, true
			}
		}
	}
	return markdown.Field{}, false
}

// firstPriority returns the first P0–P3 in s ("P0/P1" → "P0"), or "".
func firstPriority(s string) string {
	if m := priorityRe.FindStringSubmatch(s); m != nil {
		return "P" + m[1]
	}
	return ""
}

// sortBlockersBySource orders blockers by their source line (all come from
// one file), keeping the order of equal lines.
func sortBlockersBySource(bs []Blocker) {
	line := func(b Blocker) int {
		n, _ := strconv.Atoi(b.Source[strings.LastIndexByte(b.Source, ':')+1:])
		return n
	}
	slices.SortStableFunc(bs, func(a, b Blocker) int { return line(a) - line(b) })
}

// srcRef formats a "path:line" source reference.
func srcRef(path string, line int) string {
	return fmt.Sprintf("%s:%d", path, line)
}

// srcLine is one line of a file and its 1-based line number.
type srcLine struct {
	n    int
	text string
}

// listItem is one top-level list item: its marker line and the lines that
// belong to it (nested items and continuation lines, verbatim).
type listItem struct {
	// Line is the line of the marker.
	Line int
	// Ordered reports a numbered item (`1.` or `1)`).
	Ordered bool
	// Text is the first line after the marker, trimmed.
	Text string
	// More are the item's further lines, verbatim, in order.
	More []srcLine
}

// listMarkerRe is a list item marker line: indent, marker, text.
var listMarkerRe = regexp.MustCompile(`^(\s*)([-*+]|\d{1,4}[.)])(?:\s+(.*))?$`)

// sectionOwnRange returns the lines section i owns itself: after its heading
// up to the line before its first subsection (or its EndLine). from > to
// when it owns none.
func sectionOwnRange(doc *markdown.Document, i int) (from, to int) {
	if doc == nil || i < 0 || i >= len(doc.Sections) {
		return 1, 0
	}
	s := doc.Sections[i]
	from, to = s.Line+1, s.EndLine
	if i+1 < len(doc.Sections) && doc.Sections[i+1].Line <= s.EndLine && doc.Sections[i+1].Line > s.Line {
		to = doc.Sections[i+1].Line - 1
	}
	return from, to
}

// sectionOwnLines returns section i's own lines (see sectionOwnRange) with
// their numbers, leaving out fenced code blocks and whole-line HTML comments.
func sectionOwnLines(doc *markdown.Document, i int) []srcLine {
	from, to := sectionOwnRange(doc, i)
	return textLines(doc, from, to)
}

// textLines returns lines from..to of doc with their numbers, leaving out
// fenced code blocks (``` and ~~~) and whole-line HTML comments.
func textLines(doc *markdown.Document, from, to int) []srcLine {
	if doc == nil || from > to {
		return nil
	}
	var out []srcLine
	inComment := false
	for n, l := range doc.ProseLines(from, to) {
		t := strings.TrimSpace(l)
		if inComment {
			if strings.Contains(t, "-->") {
				inComment = false
			}
			continue
		}
		if strings.HasPrefix(t, "<!--") {
			inComment = !strings.Contains(t, "-->")
			continue
		}
		out = append(out, srcLine{n: n, text: strings.TrimRight(l, " \t\r")})
	}
	return out
}

// splitListItems groups lines into top-level list items. The indent of the
// first item is the top level; deeper items and indented or lazy
// continuation lines belong to the item above. A blank line followed by an
// unindented non-item line ends the list item (the paragraph is dropped).
func splitListItems(lines []srcLine) []listItem {
	var out []listItem
	base := -1
	cur := -1
	blank := false
	for _, l := range lines {
		if strings.TrimSpace(l.text) == "" {
			blank = true
			continue
		}
		indent := markdown.IndentWidth(l.text)
		m := listMarkerRe.FindStringSubmatch(l.text)
		if m != nil && isHRule(l.text) {
			m = nil
		}
		if m != nil && (base < 0 || indent <= base+1) {
			if base < 0 {
				base = indent
			}
			out = append(out, listItem{
				Line:    l.n,
				Ordered: m[2][0] >= '0' && m[2][0] <= '9',
				Text:    strings.TrimSpace(m[3]),
			})
			cur = len(out) - 1
			blank = false
			continue
		}
		if cur >= 0 && (indent > base || (!blank && m == nil && !strings.HasPrefix(strings.TrimSpace(l.text), "#"))) {
			out[cur].More = append(out[cur].More, l)
			blank = false
			continue
		}
		cur = -1 // a paragraph or rule between lists
		blank = false
	}
	return out
}

// isHRule reports a thematic break such as `---`, `***` or `- - -`.
func isHRule(s string) bool {
	t := strings.ReplaceAll(strings.TrimSpace(s), " ", "")
	if len(t) < 3 {
		return false
	}
	return strings.Trim(t, "-") == "" || strings.Trim(t, "*") == "" || strings.Trim(t, "_") == ""
}

// cleanInline removes emphasis and strike-through markers (`**`, `__`, `~~`)
// and surrounding space from a one-line text; code spans and links are kept
// as written, and a leading emoji or symbol run is kept too.
func cleanInline(s string) string {
	for _, m := range [...]string{"**", "__", "~~"} {
		if strings.Contains(s, m) {
			s = strings.ReplaceAll(s, m, "")
		}
	}
	return strings.TrimFunc(s, unicode.IsSpace)
}

package signals

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// line is one source line and its 1-based number.
type line struct {
	n    int
	text string
}

// heading is a column-0 ATX heading outside a column-0 fence.
type heading struct {
	level int
	title string
	idx   int // index into lines
}

// blockParser holds the compiled patterns of ParseBlocks.
type blockParser struct {
	path     string
	atx      *regexp.Regexp
	fence    *regexp.Regexp
	errHead  *regexp.Regexp
	label    *regexp.Regexp
	numbered *regexp.Regexp
	bullet   *regexp.Regexp
	kv       *regexp.Regexp
	diags    []Diagnostic
}

func newBlockParser(path string) *blockParser {
	return &blockParser{
		path:     path,
		atx:      regexp.MustCompile(`^(#{1,6})(?:[ \t]+(.*?))?[ \t]*#*[ \t]*$`),
		fence:    regexp.MustCompile("^(`{3,}|~{3,})"),
		errHead:  regexp.MustCompile(`^Error \d+(?: \((.*)\))?:$`),
		label:    regexp.MustCompile(`^[-*+][ \t]+(?:\*\*)?([A-Z][A-Z ]*[A-Z])(?:\*\*)?:(?:\*\*)?[ \t]*(.*)$`),
		numbered: regexp.MustCompile(`^(\d+)[.)] (.*)$`),
		bullet:   regexp.MustCompile(`^[-*+] (.*)$`),
		kv:       regexp.MustCompile(`^(?:[-*+][ \t]+)?([A-Za-z_][A-Za-z _]*?):[ \t]*(.*)$`),
	}
}

func (p *blockParser) diag(n int, format string, args ...any) {
	p.diags = append(p.diags, Diagnostic{Path: p.path, Line: n, Message: fmt.Sprintf(format, args...)})
}

// ParseBlocks reads every preservation block of src, whatever its layout
// (docs/formats.md#preservation-blocks: the same data is named four ways):
//
//   - FormatCanonical: `## Context Preservation Block …` as RenderBlock
//     writes it (also accepting bullets and bare fences under Errors);
//   - FormatStopSignals: `## Preserved Stop Signals (DO NOT SUMMARIZE)`
//     with `- ERROR: "…"`, `- BLOCKED: …`, `- FAILED ATTEMPTS: …`,
//     `- CIRCUIT BREAKER: …`, `- TRIED AND FAILED: a1, a2` bullets;
//   - FormatSabbath: a Sabbath snapshot's `### Preserved Stop Signals …`
//     with the same labels (`ERRORS:` too);
//   - FormatDebug: a fire-debug `## Eliminated` list of `- hypothesis:` /
//     `evidence:` / `timestamp:` entries, each a failed_approach.
//
// Labels map to kinds as in the package documentation. The file is split
// on column-0 ATX headings outside column-0 fences; nothing else in the
// file is interpreted. Problems (an unterminated fence, an unknown
// subsection, a bad timestamp, an unknown label) become Diagnostics naming
// path and line; ParseBlocks never fails and never panics. Parsed signals
// get Hash and Count (≥ 1) set; their Source is "path:line".
func ParseBlocks(path string, src []byte) ([]Block, []Diagnostic) {
	p := newBlockParser(path)
	text := strings.TrimPrefix(string(src), "\ufeff")
	text = strings.ReplaceAll(text, "\r\n", "\n")
	raw := strings.Split(text, "\n")
	lines := make([]line, len(raw))
	for i, t := range raw {
		lines[i] = line{n: i + 1, text: t}
	}
	heads := p.headings(lines)
	var blocks []Block
	for hi, h := range heads {
		format := ""
		low := strings.ToLower(h.title)
		switch {
		case h.level == 2 && strings.HasPrefix(low, "context preservation block"):
			format = FormatCanonical
		case h.level == 2 && strings.HasPrefix(low, "preserved stop signals"):
			format = FormatStopSignals
		case h.level == 3 && strings.HasPrefix(low, "preserved stop signals"):
			format = FormatSabbath
		case h.level == 2 && low == "eliminated":
			format = FormatDebug
		default:
			continue
		}
		end := len(lines)
		for _, h2 := range heads[hi+1:] {
			if h2.level <= h.level {
				end = h2.idx
				break
			}
		}
		b := Block{Format: format, Path: path, Line: lines[h.idx].n}
		switch format {
		case FormatCanonical:
			p.canonical(&b, lines[h.idx+1:end], heads, hi, end)
		case FormatStopSignals, FormatSabbath:
			p.labelled(&b, lines[h.idx+1:end])
		case FormatDebug:
			p.eliminated(&b, lines[h.idx+1:end])
		}
		norm := newNormalizer()
		for i := range b.Signals {
			if b.Signals[i].Hash == "" {
				b.Signals[i].Hash = norm.signalHash(b.Signals[i])
			}
			if b.Signals[i].Count < 1 {
				b.Signals[i].Count = 1
			}
		}
		blocks = append(blocks, b)
	}
	return blocks, p.diags
}

// headings finds the column-0 ATX headings outside column-0 fences.
func (p *blockParser) headings(lines []line) []heading {
	out, fence, fenceLine := p.scanHeadings(lines, false)
	if fence == "" {
		return out
	}
	// A fence left open to the end of the file (a note appended by hand)
	// would hide every later block: scan again, letting a canonical block
	// heading line end an open fence. Only a file that is broken anyway is
	// read this way, as a verbatim error quoting that exact line would be
	// split.
	rec, _, _ := p.scanHeadings(lines, true)
	p.diag(fenceLine, "code fence %s is never closed; blocks after it were read from their `%s` headings", fence, headBlock)
	return rec
}

// scanHeadings finds the headings outside column-0 fences and the fence
// left open at the end (with its line), if any. With recover, a line that
// is exactly the canonical block heading ends an open fence and is a
// heading.
func (p *blockParser) scanHeadings(lines []line, recover bool) (out []heading, fence string, fenceLine int) {
	for i, l := range lines {
		if fence != "" && recover && strings.TrimRight(l.text, " \t") == headBlock {
			fence = ""
		}
		if f := p.fence.FindString(l.text); f != "" {
			if fence == "" {
				fence, fenceLine = f, l.n
				continue
			}
			if f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(l.text[len(f):]) == "" {
				fence = ""
			}
			continue
		}
		if fence != "" {
			continue
		}
		if m := p.atx.FindStringSubmatch(l.text); m != nil {
			out = append(out, heading{level: len(m[1]), title: strings.TrimSpace(m[2]), idx: i})
		}
	}
	return out, fence, fenceLine
}

// canonical parses the body of a canonical block: the timestamp and
// trigger lines, then its level-3 subsections.
func (p *blockParser) canonical(b *Block, body []line, heads []heading, hi, end int) {
	// Split body into the preamble and level-3 sections using heads.
	type sect struct {
		title string
		n     int
		lines []line
	}
	var sects []sect
	first := len(body)
	base := heads[hi].idx + 1
	for _, h := range heads[hi+1:] {
		if h.idx >= end {
			break
		}
		if h.level != 3 {
			continue
		}
		if h.idx-base < first {
			first = h.idx - base
		}
		sects = append(sects, sect{title: h.title, n: body[h.idx-base].n})
	}
	// Assign lines to sections.
	si := -1
	for i, l := range body {
		if i >= first && si+1 < len(sects) && l.n == sects[si+1].n {
			si++
			continue
		}
		if si < 0 {
			p.preamble(b, l)
			continue
		}
		sects[si].lines = append(sects[si].lines, l)
	}
	for _, s := range sects {
		low := strings.ToLower(s.title)
		switch {
		case strings.HasPrefix(low, "errors"):
			p.errors(b, s.lines)
		case strings.HasPrefix(low, "resolved"):
			for _, it := range p.items(s.lines) {
				b.Signals = append(b.Signals, parseFixedLine(it.text, p.at(it.n)))
			}
		case strings.HasPrefix(low, "blocked"):
			for _, it := range p.items(s.lines) {
				sig := Signal{Kind: KindBlocked, Text: it.text, Source: p.at(it.n)}
				if i := strings.Index(it.text, ": "); i > 0 && isBlockerID(it.text[:i]) {
					sig.ID, sig.Text = it.text[:i], it.text[i+2:]
					sig.Hash = hashNormalized(sig.ID)
				}
				b.Signals = append(b.Signals, sig)
			}
		case strings.HasPrefix(low, "failed approaches"):
			for _, it := range p.items(s.lines) {
				sig := Signal{Kind: KindFailedApproach, Text: it.text, Source: p.at(it.n)}
				if i := strings.LastIndex(it.text, approachSep); i >= 0 {
					sig.Text, sig.Detail = it.text[:i], it.text[i+len(approachSep):]
				}
				b.Signals = append(b.Signals, sig)
			}
		case strings.HasPrefix(low, "stop"):
			for _, it := range p.items(s.lines) {
				b.Signals = append(b.Signals, Signal{Kind: KindStop, Text: it.text, Source: p.at(it.n)})
			}
		case strings.HasPrefix(low, "circuit breaker"):
			var rest []line
			for _, l := range s.lines {
				t := strings.TrimSpace(l.text)
				if b.Breaker == "" && strings.HasPrefix(strings.ToLower(t), "stall:") {
					b.Breaker = t
					continue
				}
				rest = append(rest, l)
			}
			for _, it := range p.items(rest) {
				word := ""
				if f := strings.Fields(it.text); len(f) > 0 {
					word = strings.ToUpper(strings.Trim(f[0], ".,;:"))
				}
				b.Signals = append(b.Signals, Signal{Kind: KindCircuitBreaker, Text: it.text, ID: word, Source: p.at(it.n)})
			}
		case strings.HasPrefix(low, "working state"):
			p.working(b, s.lines)
		default:
			p.diag(s.n, "unknown preservation block section %q", s.title)
		}
	}
}

func (p *blockParser) at(n int) string { return p.path + ":" + strconv.Itoa(n) }

func (p *blockParser) preamble(b *Block, l line) {
	t := strings.TrimSpace(l.text)
	switch {
	case t == "":
	case strings.HasPrefix(t, "timestamp:"):
		v := strings.TrimSpace(strings.TrimPrefix(t, "timestamp:"))
		ts, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			p.diag(l.n, "timestamp %q is not RFC 3339", v)
			return
		}
		b.Timestamp = ts.UTC()
	case strings.HasPrefix(t, "trigger:"):
		v := strings.TrimSpace(strings.TrimPrefix(t, "trigger:"))
		switch v {
		case TriggerManual, TriggerCompaction, TriggerSabbathRest:
		default:
			p.diag(l.n, "unknown trigger %q (want manual, compaction or sabbath_rest)", v)
		}
		b.Trigger = v
	default:
		p.diag(l.n, "unexpected line before the first section of a preservation block")
	}
}

// item is one list item with its continuation lines joined by "\n".
type item struct {
	n    int
	text string
}

// items reads `- ` and `N. ` list items; lines indented by the item's
// content width continue it, and empty lines followed by such a line are
// kept as empty lines of the item.
func (p *blockParser) items(lines []line) []item {
	var out []item
	indent := 0
	pendingBlank := 0
	for _, l := range lines {
		if m := p.bullet.FindStringSubmatch(l.text); m != nil {
			out = append(out, item{n: l.n, text: m[1]})
			indent, pendingBlank = 2, 0
			continue
		}
		if m := p.numbered.FindStringSubmatch(l.text); m != nil {
			out = append(out, item{n: l.n, text: m[2]})
			indent, pendingBlank = len(m[1])+2, 0
			continue
		}
		ind := strings.Repeat(" ", indent)
		if l.text == "" || (strings.TrimSpace(l.text) == "" && (len(out) == 0 || !strings.HasPrefix(l.text, ind))) {
			pendingBlank++
			continue
		}
		if len(out) > 0 && strings.HasPrefix(l.text, ind) {
			last := &out[len(out)-1]
			last.text += strings.Repeat("\n", pendingBlank+1) + l.text[indent:]
			pendingBlank = 0
			continue
		}
		pendingBlank = 0
		p.diag(l.n, "unexpected line in a preservation block list")
	}
	return out
}

// errors reads the Errors section: `Error N (…):` headers, each followed
// by its command, key line and resolution lines and a fence; bare fences;
// or bullets. An error without a key line whose text is one line has
// that line as its key line (RenderBlock leaves the key line out then).
func (p *blockParser) errors(b *Block, lines []line) {
	var cur Signal
	commandFence := false
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		t := l.text
		if m := p.errHead.FindStringSubmatch(t); m != nil {
			cur = p.errorHeader(m[1])
			continue
		}
		if v, ok := metaValue(t, metaCommand); ok {
			cur.Command, commandFence = v, v == ""
			continue
		}
		if v, ok := metaValue(t, metaKeyLine); ok {
			cur.KeyLine = v
			continue
		}
		if v, ok := metaValue(t, metaResolved); ok {
			cur.ResolvedBy = v
			continue
		}
		if f := p.fence.FindString(t); f != "" {
			body, j := p.fenceBody(lines, i, f)
			if commandFence {
				cur.Command, commandFence = body, false
				i = j
				continue
			}
			s := cur
			s.Kind, s.Text, s.Count = KindError, body, max(cur.Count, 1)
			if s.Source == "" {
				s.Source = p.at(l.n)
			}
			if s.KeyLine == "" && !strings.Contains(s.Text, "\n") {
				s.KeyLine = strings.TrimSpace(s.Text)
			}
			b.Signals = append(b.Signals, s)
			cur = Signal{}
			i = j
			continue
		}
		if m := p.bullet.FindStringSubmatch(t); m != nil {
			b.Signals = append(b.Signals, Signal{Kind: KindError, Text: unquote(strings.TrimSpace(m[1])), Source: p.at(l.n)})
			continue
		}
		if strings.TrimSpace(t) != "" {
			p.diag(l.n, "unexpected line in the Errors section")
		}
	}
}

// errorHeader reads the parts of an `Error N (…):` header.
func (p *blockParser) errorHeader(parts string) Signal {
	s := Signal{Count: 1}
	for _, part := range strings.Split(parts, "; ") {
		switch {
		case strings.HasPrefix(part, "seen ") && strings.HasSuffix(part, " times"):
			if n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(part, "seen "), " times")); err == nil && n > 0 {
				s.Count = n
			}
		case part == headerProbe:
			s.Probe = true
		case strings.HasPrefix(part, "hash: "):
			s.Hash = strings.TrimPrefix(part, "hash: ")
		case strings.HasPrefix(part, "source: "):
			s.Source = strings.TrimPrefix(part, "source: ")
		}
	}
	return s
}

// fenceBody reads the fence opened by f at lines[i]: its body and the
// index of its closing line (the last line when it is never closed, which
// is a diagnostic).
func (p *blockParser) fenceBody(lines []line, i int, f string) (string, int) {
	var body []string
	j := i + 1
	for ; j < len(lines); j++ {
		g := p.fence.FindString(lines[j].text)
		if g != "" && g[0] == f[0] && len(g) >= len(f) && strings.TrimSpace(lines[j].text[len(g):]) == "" {
			return strings.Join(body, "\n"), j
		}
		body = append(body, lines[j].text)
	}
	p.diag(lines[i].n, "error fence %s is never closed", f)
	return strings.Join(body, "\n"), j
}

// metaValue reads a "name value" line of an error (name ends with ":").
func metaValue(t, name string) (string, bool) {
	if t == name {
		return "", true
	}
	v, ok := strings.CutPrefix(t, name+" ")
	return strings.TrimSpace(v), ok
}

// working reads the Working State section.
func (p *blockParser) working(b *Block, lines []line) {
	inFiles := false
	for _, l := range lines {
		t := l.text
		switch {
		case strings.TrimSpace(t) == "":
		case inFiles && strings.HasPrefix(t, "  - "):
			b.FilesModified = append(b.FilesModified, strings.TrimSpace(t[4:]))
		case strings.HasPrefix(t, "- Files modified:"):
			inFiles = true
			if v := strings.TrimSpace(strings.TrimPrefix(t, "- Files modified:")); v != "" {
				for _, f := range strings.Split(v, ", ") {
					b.FilesModified = append(b.FilesModified, strings.TrimSpace(f))
				}
			}
		case strings.HasPrefix(t, "- Current task:"):
			inFiles = false
			b.Task = strings.TrimSpace(strings.TrimPrefix(t, "- Current task:"))
		case strings.HasPrefix(t, "- Last successful change:"):
			inFiles = false
			b.LastChange = strings.TrimSpace(strings.TrimPrefix(t, "- Last successful change:"))
		case strings.HasPrefix(t, "- Current hypothesis:"):
			inFiles = false
			b.Hypothesis = strings.TrimSpace(strings.TrimPrefix(t, "- Current hypothesis:"))
		case strings.HasPrefix(t, "- Confidence:"):
			inFiles = false
			v := strings.TrimSpace(strings.TrimPrefix(t, "- Confidence:"))
			v = strings.TrimSuffix(v, "/100")
			if n, err := strconv.Atoi(strings.TrimSpace(v)); err == nil && n >= 0 && n <= 100 {
				b.Confidence = n
			} else {
				p.diag(l.n, "confidence %q is not a score out of 100", v)
			}
		default:
			inFiles = false
		}
	}
}

// labelled reads the bullets of FormatStopSignals and FormatSabbath.
func (p *blockParser) labelled(b *Block, lines []line) {
	for _, l := range lines {
		t := strings.TrimRight(l.text, " \t")
		if strings.TrimSpace(t) == "" || strings.HasPrefix(strings.TrimSpace(t), "<!--") {
			continue
		}
		m := p.label.FindStringSubmatch(t)
		if m == nil {
			p.diag(l.n, "preserved stop signal line without a LABEL:")
			continue
		}
		switch m[1] {
		case "ERROR", "ERRORS", "BLOCKED", "FAILED ATTEMPTS", "CIRCUIT BREAKER", "TRIED AND FAILED", "STOP", "STUCK":
		default:
			p.diag(l.n, "unknown stop-signal label %q (kept as a stop signal)", m[1])
		}
		b.Signals = append(b.Signals, fromLabel(m[1], m[2], p.at(l.n))...)
	}
}

// eliminated reads a fire-debug `## Eliminated` list.
func (p *blockParser) eliminated(b *Block, lines []line) {
	cur := -1
	for _, l := range lines {
		t := strings.TrimSpace(l.text)
		if t == "" || strings.HasPrefix(t, "<!--") {
			continue
		}
		m := p.kv.FindStringSubmatch(t)
		if m == nil {
			if cur >= 0 {
				continue
			}
			p.diag(l.n, "eliminated entry line is not key: value")
			continue
		}
		key := strings.ToLower(strings.TrimSpace(m[1]))
		val := unquote(strings.TrimSpace(m[2]))
		switch key {
		case "hypothesis":
			b.Signals = append(b.Signals, Signal{Kind: KindFailedApproach, Text: val, Source: p.at(l.n)})
			cur = len(b.Signals) - 1
		case "evidence":
			if cur < 0 {
				p.diag(l.n, "evidence before any hypothesis")
				continue
			}
			b.Signals[cur].Detail = val
		case "timestamp":
			if cur >= 0 {
				if ts := parseTime(val); !ts.IsZero() {
					b.Signals[cur].FirstSeen, b.Signals[cur].LastSeen = ts, ts
				}
			}
		}
	}
}

// parseFixedLine reads a line of the Resolved section (fixedLine): an
// error with its command, key line and resolution; its text is its key
// line.
func parseFixedLine(t, src string) Signal {
	s := Signal{Kind: KindError, Source: src, Count: 1}
	if i := strings.LastIndex(t, fixedSep); i >= 0 {
		t, s.ResolvedBy = t[:i], strings.TrimSpace(t[i+len(fixedSep):])
	}
	if n := len(t) - len(strings.TrimLeft(t, "`")); n > 0 {
		fence := t[:n]
		rest := t[n:]
		if j := strings.Index(rest, fence+": "); j >= 0 {
			c := rest[:j]
			if strings.HasPrefix(c, " ") && strings.HasSuffix(c, " ") && strings.TrimSpace(c) != "" {
				c = c[1 : len(c)-1]
			}
			s.Command, t = c, rest[j+len(fence)+2:]
		}
	}
	s.KeyLine = strings.TrimSpace(t)
	s.Text = s.KeyLine
	return s
}

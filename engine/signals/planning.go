package signals

import (
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/recite-dev/recite/planning"
)

// FromIterations extracts one error signal per iteration record with an
// error (not deduplicated). The text is ErrorText, or "error hash H" when
// only ErrorHash is known; the hash is ErrorHash when set.
func FromIterations(iters []IterationRecord) []Signal {
	var out []Signal
	for _, it := range iters {
		text := it.ErrorText
		if strings.TrimSpace(text) == "" {
			if emptyCell(it.ErrorHash) {
				continue
			}
			text = "error hash " + it.ErrorHash
		}
		s := Signal{Kind: KindError, Text: text, Source: fmt.Sprintf("iteration %d", it.N), FirstSeen: it.Timestamp, LastSeen: it.Timestamp}
		if !emptyCell(it.ErrorHash) {
			s.Hash = hashNormalized(it.ErrorHash)
		}
		out = append(out, s)
	}
	return out
}

// emptyCell reports a table cell that means "nothing".
func emptyCell(s string) bool {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "-", "—", "–", "none", "n/a", "na", "null", "nil", "[none]", "(none)", "[none currently]", "[none yet]":
		return true
	}
	return false
}

// FromProject extracts the stop signals of a planning tree (not
// deduplicated): loops (FromLoop), unresolved debug files (FromDebug) and
// open blockers (FromBlockers). p may be nil.
func FromProject(p *planning.Project) []Signal {
	if p == nil {
		return nil
	}
	var out []Signal
	for _, l := range p.Loops {
		out = append(out, FromLoop(l)...)
	}
	for _, d := range p.Debug {
		out = append(out, FromDebug(d)...)
	}
	out = append(out, FromBlockers(p.Blockers)...)
	return out
}

// FromLoop extracts the stop signals of one loop file (docs/formats.md#loop-files):
//
//   - the errors the file quotes verbatim (planning.Loop.Errors, e.g.
//     `### Last Error (verbatim)`), each an error signal with its own
//     path:line; the last one is the error of the latest Error Hash in the
//     Loop Progress table, so it gets the Count, FirstSeen and LastSeen of
//     the rows carrying that hash;
//   - an Error Hash cell that holds words rather than a hash (an "Error"
//     column used for the message) is an error signal; a hash-looking cell
//     (hex with a digit, e.g. a41c9e07) is not an error text and yields
//     none;
//   - rows whose Health is BLOCKED, or whose Action or Result carries a
//     BLOCKED/STUCK/STOP mark (blocked, stop);
//   - the last Circuit Breaker State row when its state is not HEALTHY
//     (circuit_breaker, ID the state word);
//   - Approaches Tried (failed_approach);
//   - the Preserved Stop Signals of its Sabbath snapshots by label
//     (fromLabel), except an ERRORS text already contained in one of the
//     loop's verbatim errors (the snapshot quotes its first line).
//
// l may be nil.
func FromLoop(l *planning.Loop) []Signal {
	if l == nil {
		return nil
	}
	m := newMatchers()
	at := func(line int) string {
		if line > 0 {
			return fmt.Sprintf("%s:%d", l.Path, line)
		}
		return l.Path
	}
	var out []Signal
	lastHash := ""
	for _, it := range l.Iterations {
		if h := strings.TrimSpace(it.ErrorHash); looksLikeHash(h) {
			lastHash = h
		}
	}
	var verbatim []string
	for i, e := range l.Errors {
		s := Signal{Kind: KindError, Text: e.Text, Source: e.Source}
		if i == len(l.Errors)-1 && lastHash != "" {
			s.Count = 0
			for _, it := range l.Iterations {
				if strings.TrimSpace(it.ErrorHash) != lastHash {
					continue
				}
				s.Count++
				if ts := parseTime(it.Timestamp); !ts.IsZero() {
					if s.FirstSeen.IsZero() || ts.Before(s.FirstSeen) {
						s.FirstSeen = ts
					}
					if ts.After(s.LastSeen) {
						s.LastSeen = ts
					}
				}
			}
		}
		out = append(out, s)
		verbatim = append(verbatim, squash(e.Text))
	}
	for _, it := range l.Iterations {
		ts := parseTime(it.Timestamp)
		if cell := strings.TrimSpace(it.ErrorHash); !emptyCell(cell) && !looksLikeHash(cell) {
			out = append(out, Signal{Kind: KindError, Text: cell, Source: at(it.Line), FirstSeen: ts, LastSeen: ts})
		}
		base := Signal{Source: at(it.Line), FirstSeen: ts, LastSeen: ts}
		action := strings.TrimSpace(it.Action)
		switch {
		case strings.EqualFold(strings.TrimSpace(it.Health), "BLOCKED"):
			s := base
			s.Kind = KindBlocked
			s.Text = action
			if emptyCell(action) {
				s.Text = fmt.Sprintf("iteration %d: BLOCKED", it.N)
			}
			out = append(out, s)
		case action != "":
			ss := m.fromText(action, base, false)
			if len(ss) == 0 && m.breakerWord.MatchString(action) {
				s := base
				s.Kind = KindCircuitBreaker
				s.Text = action
				ss = append(ss, s)
			}
			out = append(out, ss...)
		}
		if r := strings.TrimSpace(it.Result); r != "" {
			out = append(out, m.fromText(r, base, false)...)
		}
	}
	if n := len(l.Breaker); n > 0 {
		row := l.Breaker[n-1]
		// An empty State cell is no state (strings.Fields gives nothing).
		if state := strings.TrimSpace(row.State); state != "" {
			word := strings.ToUpper(strings.Fields(state)[0])
			if word != "HEALTHY" && word != "CLOSED" {
				out = append(out, Signal{Kind: KindCircuitBreaker, Text: state, ID: word, Source: at(row.Line)})
			}
		}
	}
	for _, a := range l.Approaches {
		out = append(out, Signal{Kind: KindFailedApproach, Text: a.Text, Detail: a.Result, Source: a.Source})
	}
	for _, snap := range l.Snapshots {
		if snap == nil {
			continue
		}
		for _, sg := range snap.Signals {
			for _, s := range fromLabel(sg.Label, sg.Text, sg.Source) {
				if s.Kind == KindError && containedIn(squash(s.Text), verbatim) {
					continue
				}
				out = append(out, s)
			}
		}
	}
	return out
}

// looksLikeHash reports a table cell that is an error hash rather than an
// error text: 6 to 64 hex digits with at least one decimal digit (so that
// words such as "added" stay text).
func looksLikeHash(s string) bool {
	if len(s) < 6 || len(s) > 64 || !strings.ContainsAny(s, "0123456789") {
		return false
	}
	for _, r := range s {
		if !(r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F') {
			return false
		}
	}
	return true
}

// squash collapses white space runs to one space and trims.
func squash(s string) string { return strings.Join(strings.Fields(s), " ") }

// containedIn reports whether s (squashed, non-empty) occurs in one of the
// squashed texts.
func containedIn(s string, texts []string) bool {
	if s == "" {
		return false
	}
	for _, t := range texts {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// fromLabel maps one labelled preserved-stop-signal line (docs/formats.md#sabbath-snapshots,
// docs/formats.md#preservation-blocks) to signals. Placeholder texts yield
// nothing.
func fromLabel(label, text, source string) []Signal {
	text = strings.TrimSpace(text)
	if emptyCell(text) || isPlaceholder(text) || onlyPlaceholders(text) {
		return nil
	}
	switch strings.ToUpper(strings.TrimSpace(label)) {
	case "ERROR", "ERRORS":
		return []Signal{{Kind: KindError, Text: unquote(text), Source: source}}
	case "BLOCKED":
		return []Signal{{Kind: KindBlocked, Text: text, Source: source}}
	case "CIRCUIT BREAKER":
		word := strings.ToUpper(strings.Trim(strings.Fields(text)[0], ".,;:"))
		return []Signal{{Kind: KindCircuitBreaker, Text: text, ID: word, Source: source}}
	case "FAILED ATTEMPTS":
		// "{count} — approaches: {list}" (docs/formats.md#preservation-blocks): the count is a
		// counter, not an approach; each listed approach is one.
		var out []Signal
		for _, item := range failedAttempts(text) {
			out = append(out, Signal{Kind: KindFailedApproach, Text: item, Source: source})
		}
		return out
	case "TRIED AND FAILED":
		var out []Signal
		for _, item := range strings.Split(text, ", ") {
			if item = strings.TrimSpace(item); item != "" {
				out = append(out, Signal{Kind: KindFailedApproach, Text: item, Source: source})
			}
		}
		return out
	}
	return []Signal{{Kind: KindStop, Text: strings.TrimSpace(label + ": " + text), Source: source}}
}

// failedAttempts splits a FAILED ATTEMPTS value, "{count} — approaches:
// {list}" or "{count} — {list}", into the listed approaches (separated by
// "; ", else ", "); a bare count gives none, text without a leading count
// is one approach.
func failedAttempts(text string) []string {
	rest := strings.TrimSpace(text)
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		i++
	}
	if i > 0 && (i == len(rest) || rest[i] == ' ') {
		rest = strings.TrimSpace(rest[i:])
		for _, sep := range []string{"—", "–", "--", "-", ":"} {
			if strings.HasPrefix(rest, sep) {
				rest = strings.TrimSpace(rest[len(sep):])
				break
			}
		}
		if len(rest) >= len("approaches:") && strings.EqualFold(rest[:len("approaches:")], "approaches:") {
			rest = strings.TrimSpace(rest[len("approaches:"):])
		}
	}
	if rest == "" || onlyPlaceholders(rest) {
		return nil
	}
	sep := ", "
	if strings.Contains(rest, ";") {
		sep = ";"
	}
	var out []string
	for _, item := range strings.Split(rest, sep) {
		if item = strings.TrimSpace(item); item != "" && !onlyPlaceholders(item) {
			out = append(out, item)
		}
	}
	return out
}

// onlyPlaceholders reports text made only of template placeholders
// ("[count] — [list]", "{a1}, {a2}") and punctuation.
func onlyPlaceholders(s string) bool {
	depth := 0
	for _, r := range s {
		switch {
		case r == '[' || r == '{':
			depth++
		case r == ']' || r == '}':
			if depth > 0 {
				depth--
			}
		case depth == 0 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			return false
		}
	}
	return true
}

// isPlaceholder reports template text like "[exact error]" or "{state}".
func isPlaceholder(s string) bool {
	return (strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") && !strings.Contains(s[1:len(s)-1], "]")) ||
		(strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}") && !strings.Contains(s[1:len(s)-1], "}"))
}

// unquote removes one pair of surrounding double quotes.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return s[1 : len(s)-1]
	}
	return s
}

// FromDebug extracts the stop signals of a debug file that is not
// resolved (docs/formats.md#debug-files): its Symptoms errors, verbatim, as one error
// signal sourced at the line where they start (values such as "none" or
// "none (silent double-loop)" and template placeholders give none), and
// one failed_approach per eliminated hypothesis, whose Detail is the
// evidence. d may be nil.
func FromDebug(d *planning.DebugFile) []Signal {
	if d == nil || d.Resolved || strings.EqualFold(d.Status, "resolved") {
		return nil
	}
	var out []Signal
	if e := strings.TrimSpace(d.Errors); !noneValue(e) && !onlyPlaceholders(e) {
		src := d.Path
		if d.ErrorsLine > 0 {
			src = fmt.Sprintf("%s:%d", d.Path, d.ErrorsLine)
		}
		out = append(out, Signal{Kind: KindError, Text: d.Errors, Source: src})
	}
	for _, h := range d.Eliminated {
		out = append(out, Signal{Kind: KindFailedApproach, Text: h.Text, Detail: h.Evidence, Source: h.Source})
	}
	return out
}

// noneValue reports a field value that says there is nothing: an empty
// cell, or text whose first word is "none" or "n/a" ("none (silent
// double-loop)").
func noneValue(s string) bool {
	if emptyCell(s) {
		return true
	}
	first := strings.ToLower(strings.Fields(s)[0])
	first = strings.TrimRightFunc(first, func(r rune) bool { return !unicode.IsLetter(r) && r != '/' })
	return first == "none" || first == "n/a"
}

// FromBlockers extracts one blocked signal per open blocker; ID is the
// blocker's id when it looks like one (BLOCKER-005, B-01), not a derived
// "path:line", and then the Hash is that of the id, so the same blocker
// found in two files counts once.
func FromBlockers(bs []planning.Blocker) []Signal {
	var out []Signal
	for _, b := range bs {
		if !strings.EqualFold(b.Status, "open") {
			continue
		}
		s := Signal{Kind: KindBlocked, Text: b.Title, Source: b.Source}
		if isBlockerID(b.ID) {
			// One blocker named in several files (BLOCKERS.md and the state
			// file) is one signal: hash its id, not its wording.
			s.ID = b.ID
			s.Hash = hashNormalized(b.ID)
		}
		out = append(out, s)
	}
	return out
}

// isBlockerID reports ids like BLOCKER-005, B-01, BLK-001.
func isBlockerID(id string) bool {
	i := strings.LastIndexByte(id, '-')
	if i <= 0 || i == len(id)-1 {
		return false
	}
	for _, r := range id[:i] {
		if !(r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	for _, r := range id[i+1:] {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// parseTime reads an RFC 3339 timestamp or a date; zero when it cannot.
func parseTime(s string) time.Time {
	s = strings.TrimSpace(s)
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

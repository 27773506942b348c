package signals

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
)

// maxKeyLine is the longest key line Fit shows whole, in UTF-16 code
// units; a longer one (a minified line, a JSON blob) is cut at its end
// with "…".
const maxKeyLine = 400

// fitContext is the most lines of context Fit gives an error on each
// side of its key line (after 2 and 6), and fitHeadTail the most lines
// it keeps from the start and the end of a long output (after 5).
const (
	fitContext  = 15
	fitHeadTail = 20
)

// Fitted is what Fit kept of a block.
type Fitted struct {
	// Block is the block to render (RenderBlock); its rendering is at most
	// the limit given to Fit.
	Block Block
	// Shortened counts the signals shown shorter than they are: an error
	// as its key line, or as its key line with the lines around it, or
	// with the head and tail of its output; a resolved error as its line;
	// another signal as its first line.
	Shortened int
	// Omitted counts the signals left out because not even their key
	// lines fit (only under a limit too small for every key line).
	Omitted int
}

// Fit fits a block of stop signals into limit UTF-16 code units of its
// rendering (RenderBlock; UTF16Len counts as Claude Code counts its
// 10,000-character hook output), so that every signal is shown, at least
// as its key line (docs/signals.md#re-injection):
//
//  1. Harmless probes are left out.
//  2. Every signal gets its minimal form: an open error its command (its
//     first line, a marker for the lines after it: a here-document's body
//     is never shown) and its key line (a key line longer than 400 code
//     units cut at its end with "…"); a resolved error one line (its
//     command, its key line and what resolved it: RenderBlock's Resolved
//     section); another signal its first line. If even that is over the
//     limit, signals are left out (Omitted): the resolved errors first,
//     the oldest of them first, then the oldest of the least important
//     kind.
//  3. What is left is spent in rounds, each round over every open error
//     newest first, each signal grown only while the block fits: the
//     breaker line and the current task; the other signals' whole texts;
//     2, 6, then 15 lines of context around each error's key line; then
//     the head and tail of long outputs (5, then 20 lines each); then the
//     whole text. Lines left out are marked "⟨N lines omitted⟩".
//  4. Failed approaches' details, then the working state (files, last
//     change, hypothesis, confidence), when they fit.
//
// Signals are shown newest first within their kind (LastSeen, then the
// later in the block): how often an error repeated does not rank it. Their
// texts are never reworded, only cut at line boundaries (or at the end of
// a long key line). The block's Format, Path and Line are cleared.
func Fit(b Block, limit int) Fitted {
	b.Format, b.Path, b.Line = "", "", 0
	full := reinjectable(b.Signals)
	for i := range full {
		full[i].Text = cleanText(full[i].Text)
		full[i].Detail = cleanText(full[i].Detail)
		if full[i].Kind == KindError && strings.TrimSpace(full[i].KeyLine) == "" {
			// An error read from a planning file: its key line is found
			// in its text, as Verify finds it.
			full[i].KeyLine = KeyLine(full[i].Text)
		}
	}
	f := &fitter{full: full, limit: limit, whole: b}
	f.cur = Block{Timestamp: b.Timestamp, Trigger: b.Trigger}
	f.keep = make([]bool, len(full))
	f.shown = make([]Signal, len(full))
	f.order = newestFirst(full)
	for i, s := range full {
		f.shown[i] = minimal(s)
		f.keep[i] = true
	}
	for !f.fits() && f.dropOldest() {
	}
	f.try(func() { f.cur.Breaker = b.Breaker })
	f.try(func() { f.cur.Task = b.Task })
	for _, i := range f.order {
		if full[i].Kind != KindError && f.keep[i] {
			s := full[i]
			s.Detail = ""
			f.set(i, s)
		}
	}
	for _, lv := range []int{2, 6, fitContext} {
		f.grow(func(s Signal) string { return excerpt(s, lv, 0) })
	}
	for _, ht := range []int{5, fitHeadTail} {
		f.grow(func(s Signal) string { return excerpt(s, fitContext, ht) })
	}
	f.grow(func(s Signal) string { return s.Text })
	for _, i := range f.order {
		if full[i].Kind != KindError && f.keep[i] {
			f.set(i, full[i])
		}
	}
	f.try(func() { f.cur.FilesModified = b.FilesModified })
	f.try(func() { f.cur.LastChange = b.LastChange })
	f.try(func() { f.cur.Hypothesis = b.Hypothesis })
	f.try(func() { f.cur.Confidence = b.Confidence })
	out := Fitted{Block: f.block()}
	for i, s := range full {
		switch {
		case !f.keep[i]:
			out.Omitted++
		case f.shown[i].Text != s.Text || f.shown[i].Detail != s.Detail:
			out.Shortened++
		}
	}
	return out
}

// reinjectable is sigs without harmless probes (a copy).
func reinjectable(sigs []Signal) []Signal {
	var out []Signal
	for _, s := range sigs {
		if !s.Probe {
			out = append(out, s)
		}
	}
	return out
}

// newestFirst orders signal indexes: open errors, newest first (LastSeen,
// then the later in sigs); then the other kinds in importance order
// (blocked, stop, circuit breaker, failed approach), newest first; then
// resolved errors, newest first. The last of the order is the first left
// out when even the minimal forms do not fit.
func newestFirst(sigs []Signal) []int {
	rank := func(s Signal) int {
		switch {
		case s.Kind == KindError && s.ResolvedBy != "":
			return 5
		case s.Kind == KindError:
			return 0
		case s.Kind == KindBlocked:
			return 1
		case s.Kind == KindStop:
			return 2
		case s.Kind == KindCircuitBreaker:
			return 3
		}
		return 4
	}
	idx := make([]int, len(sigs))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		if c := cmp.Compare(rank(sigs[a]), rank(sigs[b])); c != 0 {
			return c
		}
		if c := sigs[b].LastSeen.Compare(sigs[a].LastSeen); c != 0 {
			return c
		}
		return cmp.Compare(b, a)
	})
	return idx
}

// minimal is a signal's smallest form: an open error's command mention
// (commandMention) and key line (cut to maxKeyLine); a resolved error its
// line (no text: RenderBlock's Resolved section); another signal's first
// line without its detail.
func minimal(s Signal) Signal {
	if s.Kind == KindError {
		k := s.KeyLine
		if k == "" {
			k = KeyLine(s.Text)
		}
		k = strings.TrimSpace(k)
		if UTF16Len(k) > maxKeyLine {
			k = CutUTF16(k, maxKeyLine-1) + "…"
		}
		s.KeyLine = k
		s.Command = commandMention(s.Command)
		s.Text = k
		if s.ResolvedBy != "" {
			s.Text = ""
		}
		return s
	}
	s.Text, _, _ = strings.Cut(s.Text, "\n")
	s.Detail = ""
	return s
}

// commandMention is a command as the re-injection shows it: its first
// line (shortCommand), with "⟨+N lines⟩" when lines follow.
func commandMention(cmd string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(cleanText(cmd)), "\n")
	first = strings.TrimSpace(first)
	if UTF16Len(first) > maxCommandLine {
		first = CutUTF16(first, maxCommandLine-1) + "…"
	}
	if n := commandLines(cmd); n > 0 {
		first += fmt.Sprintf(" ⟨+%d lines⟩", n)
	}
	return first
}

// fitter is the state of one Fit.
type fitter struct {
	full, shown []Signal
	keep        []bool
	order       []int
	cur, whole  Block
	limit       int
}

func (f *fitter) block() Block {
	b := f.cur
	b.Signals = nil
	for _, i := range f.order {
		if f.keep[i] {
			b.Signals = append(b.Signals, f.shown[i])
		}
	}
	return b
}

func (f *fitter) fits() bool { return UTF16Len(RenderBlock(f.block())) <= f.limit }

// try applies change and undoes it when the block no longer fits.
func (f *fitter) try(change func()) {
	saved := f.cur
	change()
	if !f.fits() {
		f.cur = saved
	}
}

// set shows signal i as s when the block still fits; it reports whether
// it did.
func (f *fitter) set(i int, s Signal) bool {
	old := f.shown[i]
	f.shown[i] = s
	if f.fits() {
		return true
	}
	f.shown[i] = old
	return false
}

// grow gives each kept error, newest first, the text form(s) returns,
// when it is longer than what is shown and the block still fits.
func (f *fitter) grow(form func(Signal) string) {
	for _, i := range f.order {
		if !f.keep[i] || f.full[i].Kind != KindError || f.full[i].ResolvedBy != "" {
			continue
		}
		// Each form keeps every line the one before kept.
		t := form(f.full[i])
		if t == f.shown[i].Text {
			continue
		}
		s := f.shown[i]
		s.Text = t
		f.set(i, s)
	}
}

// dropOldest leaves out the least important kept signal: the last of
// order (the oldest of the least important kind); false when none is
// left.
func (f *fitter) dropOldest() bool {
	for k := len(f.order) - 1; k >= 0; k-- {
		if i := f.order[k]; f.keep[i] {
			f.keep[i] = false
			return true
		}
	}
	return false
}

// excerpt is an error's text reduced to ctx lines around its key line
// and, when headTail > 0, the first and last headTail lines, gaps marked
// "⟨N lines omitted⟩".
func excerpt(s Signal, ctx, headTail int) string {
	lines := strings.Split(s.Text, "\n")
	at := keyIndex(lines, s.KeyLine)
	keep := make([]bool, len(lines))
	if at >= 0 {
		for j := max(0, at-ctx); j <= min(len(lines)-1, at+ctx); j++ {
			keep[j] = true
		}
	}
	for j := 0; j < min(headTail, len(lines)); j++ {
		keep[j] = true
		keep[len(lines)-1-j] = true
	}
	// A gap of one line costs more as a marker than as itself.
	for j := 1; j+1 < len(lines); j++ {
		if !keep[j] && keep[j-1] && keep[j+1] {
			keep[j] = true
		}
	}
	if len(lines) > 1 && !keep[0] && keep[1] {
		keep[0] = true
	}
	if n := len(lines); n > 1 && !keep[n-1] && keep[n-2] {
		keep[n-1] = true
	}
	var sb strings.Builder
	gap := 0
	flushGap := func() {
		if gap > 0 {
			fmt.Fprintf(&sb, "⟨%d lines omitted⟩\n", gap)
			gap = 0
		}
	}
	for j, l := range lines {
		if !keep[j] {
			gap++
			continue
		}
		flushGap()
		sb.WriteString(l + "\n")
	}
	flushGap()
	if at < 0 {
		return strings.TrimSuffix(s.KeyLine+"\n"+sb.String(), "\n")
	}
	return strings.TrimSuffix(sb.String(), "\n")
}

// keyIndex is the line of lines holding key (equal once trimmed, else
// containing it), or -1.
func keyIndex(lines []string, key string) int {
	key = strings.TrimSpace(key)
	if key == "" {
		return -1
	}
	for j, l := range lines {
		if strings.TrimSpace(l) == key {
			return j
		}
	}
	for j, l := range lines {
		if strings.Contains(l, key) {
			return j
		}
	}
	return -1
}

// UTF16Len is the length of s in UTF-16 code units, as JavaScript's
// String.length counts it (Claude Code caps hook output at 10,000 of
// them): 2 for a rune outside the Basic Multilingual Plane (most emoji),
// 1 for any other rune, including an invalid byte (decoded as U+FFFD).
func UTF16Len(s string) int {
	n := 0
	for _, r := range s {
		if l := utf16.RuneLen(r); l > 0 {
			n += l
		} else {
			n++
		}
	}
	return n
}

// CutUTF16 is the longest prefix of s, cut at a rune boundary, of at most
// limit UTF-16 code units (the unit of UTF16Len).
func CutUTF16(s string, limit int) string {
	n := 0
	for i, r := range s {
		l := max(1, utf16.RuneLen(r))
		if n+l > limit {
			return s[:i]
		}
		n += l
	}
	return s
}

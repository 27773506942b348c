package claudecode

import (
	"fmt"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/signals"
)

// fitContext joins lead, the recitation and the block and fits them to
// limit UTF-16 code units (utf16Len: what Claude Code's 10,000-character
// cap counts), dropping the least important parts first: the working
// state, the failed approaches' details, the recitation; then it keeps the
// signals greedily by importance (errors, blocked, stop requests,
// circuit-breaker lines, failed approaches; newest first within a kind),
// skipping any that no longer fits, so one huge error does not push out
// many small ones. Then the errors skipped come back shortened to their
// head and tail (shortenError: first 20 and last 40 lines, then by
// characters, with a "⟨N lines omitted⟩" marker), newest first, each in an
// equal share of the room left; an error is dropped only when not even
// that fits. Signals are never reworded; other kinds are dropped whole;
// when nothing fits, the most important is cut at its end with a note. A
// note counts what was left out.
func fitContext(lead, rec string, b signals.Block, limit int) string {
	b.Signals = slices.Clone(b.Signals)
	b.Format, b.Path, b.Line = "", "", 0
	f := &fitter{lead: lead, rec: rec, b: b, limit: limit, total: len(b.Signals)}
	if f.fits() {
		return f.render()
	}
	// The least important parts go first: the working state, the
	// signals' details, the recitation.
	for _, step := range []func(){
		func() { f.b.FilesModified, f.b.LastChange, f.b.Hypothesis, f.b.Confidence = nil, "", "", 0 },
		func() {
			for i := range f.b.Signals {
				f.b.Signals[i].Detail = ""
			}
		},
		func() { f.rec = "" },
	} {
		step()
		if f.fits() {
			return f.render()
		}
	}
	f.keepGreedily()
	f.shortenSkipped()
	f.apply()
	if len(f.b.Signals) > 0 {
		return f.render()
	}
	return f.cutOne()
}

// fitter is one fitContext: the parts, the signals kept so far (keep,
// indexes into all) and the order of importance they are tried in.
type fitter struct {
	lead, rec string
	b         signals.Block
	limit     int
	// omitted counts the signals left out of total; all are the block's
	// signals, keep marks those kept, order lists them by importance.
	omitted, total int
	all            []signals.Signal
	keep           []bool
	order          []int
}

// render is the output as it stands.
func (f *fitter) render() string {
	var sb strings.Builder
	sb.WriteString(f.lead + "\n")
	if f.rec != "" {
		sb.WriteString("\n" + f.rec + "\n")
	}
	if len(f.b.Signals) > 0 || f.b.Breaker != "" || f.b.Task != "" || len(f.b.FilesModified) > 0 {
		sb.WriteString("\n" + signals.RenderBlock(f.b))
	}
	if f.omitted > 0 {
		fmt.Fprintf(&sb, "\n(recite left out %d of %d stop signals to stay within %d characters; all of them are in %s)\n", f.omitted, f.total, f.limit, layout.PreservedFile)
	}
	return sb.String()
}

// fits reports whether the output as it stands is within the limit.
func (f *fitter) fits() bool { return utf16Len(f.render()) <= f.limit }

// apply sets the block's signals to those kept, in their order.
func (f *fitter) apply() {
	f.b.Signals = f.b.Signals[:0:0]
	for i, s := range f.all {
		if f.keep[i] {
			f.b.Signals = append(f.b.Signals, s)
		}
	}
	f.omitted = len(f.all) - len(f.b.Signals)
}

// keepGreedily keeps signals by importance: errors, blocked, stop
// requests, circuit-breaker lines, failed approaches; newest first within
// a kind. A signal that does not fit is skipped, so one huge error does
// not push out many small ones. Kept signals stay in their order. When not
// even the block's frame fits, the task and the breaker go first.
func (f *fitter) keepGreedily() {
	f.all = f.b.Signals
	f.order = make([]int, 0, len(f.all))
	for _, k := range []signals.Kind{signals.KindError, signals.KindBlocked, signals.KindStop, signals.KindCircuitBreaker, signals.KindFailedApproach} {
		for i := len(f.all) - 1; i >= 0; i-- {
			if f.all[i].Kind == k {
				f.order = append(f.order, i)
			}
		}
	}
	f.keep = make([]bool, len(f.all))
	f.apply()
	if !f.fits() {
		f.b.Task, f.b.Breaker = "", ""
		f.apply()
	}
	for _, i := range f.order {
		f.keep[i] = true
		f.apply()
		if !f.fits() {
			f.keep[i] = false
		}
	}
}

// shortenSkipped brings back the errors that did not fit whole, shortened
// to their head and tail (shortenError), newest first, each within an
// equal share of the room left: a shortened error beats a dropped one, and
// the newest errors are the ones a summary loses (issue 5 review, bug 2).
func (f *fitter) shortenSkipped() {
	var skipped []int
	for _, i := range f.order {
		if !f.keep[i] && f.all[i].Kind == signals.KindError {
			skipped = append(skipped, i)
		}
	}
	for k, i := range skipped {
		text := f.all[i].Text
		f.all[i].Text = ""
		f.keep[i] = true
		f.apply()
		room := f.limit - utf16Len(f.render())
		share := room / (len(skipped) - k)
		if share < minShortened {
			share = room
		}
		// The fence may grow and the note shrink; retry with what is
		// over.
		for try := 0; try < 4; try++ {
			f.all[i].Text = shortenError(text, share)
			f.apply()
			if f.all[i].Text != "" && f.fits() {
				break
			}
			share -= max(1, utf16Len(f.render())-f.limit)
			f.all[i].Text = ""
		}
		if f.all[i].Text == "" {
			f.all[i].Text, f.keep[i] = text, false
		}
	}
}

// cutOne is the output when not even one signal fits: the most important
// one is kept and its text cut at the end, with a note.
func (f *fitter) cutOne() string {
	if len(f.order) > 0 {
		f.keep[f.order[0]] = true
		f.apply()
	}
	for i := range f.b.Signals {
		s := &f.b.Signals[i]
		over := utf16Len(f.render()) - f.limit
		const note = "\n… (cut by recite to fit the hook output limit)"
		s.Text = cutUTF16(s.Text, max(0, utf16Len(s.Text)-over-utf16Len(note)-16)) + note
		if f.fits() {
			break
		}
	}
	return cutUTF16(f.render(), f.limit)
}

// Shortening of an error too long for the hook's output (shortenError).
const (
	// shortHeadLines and shortTailLines are the lines an error keeps from
	// its start and its end; a traceback's exception and message are at
	// the end, so the tail is the longer part.
	shortHeadLines = 20
	shortTailLines = 40
	// minShortened is the least room, in UTF-16 code units, an error is
	// shortened into; with less it is dropped.
	minShortened = 200
	// omittedRoom is the room kept for the omission marker, in UTF-16 code
	// units.
	omittedRoom = 40
)

// shortenError fits an error's text into limit UTF-16 code units, keeping
// its head and its tail with a visible marker between them: first the
// first 20 and last 40 lines around "⟨N lines omitted⟩"; when that is still
// too long, a third of the room for the head and the rest for the tail,
// each cut back to whole lines where it holds more than one
// ("⟨N lines omitted⟩"), else cut inside a line ("⟨N characters
// omitted⟩", counted in UTF-16 code units). It returns text itself when it
// fits, and "" when limit is under minShortened.
func shortenError(text string, limit int) string {
	if utf16Len(text) <= limit {
		return text
	}
	if limit < minShortened {
		return ""
	}
	lines := strings.Split(text, "\n")
	if len(lines) > shortHeadLines+shortTailLines+1 {
		n := len(lines) - shortHeadLines - shortTailLines
		s := strings.Join(lines[:shortHeadLines], "\n") + "\n" + fmt.Sprintf("⟨%d lines omitted⟩", n) + "\n" + strings.Join(lines[len(lines)-shortTailLines:], "\n")
		if utf16Len(s) <= limit {
			return s
		}
	}
	avail := limit - omittedRoom
	head := cutUTF16(text, avail/3)
	tail := suffixUTF16(text, avail-avail/3)
	whole := true
	if j := strings.LastIndexByte(head, '\n'); j > 0 {
		head = head[:j]
	} else {
		whole = false
	}
	if j := strings.IndexByte(tail, '\n'); j >= 0 && j < len(tail)-1 {
		tail = tail[j+1:]
	} else {
		whole = false
	}
	mid := text[len(head) : len(text)-len(tail)]
	marker := fmt.Sprintf("⟨%d characters omitted⟩", utf16Len(mid))
	if whole {
		// mid is "\n" + the omitted lines + "\n".
		marker = fmt.Sprintf("⟨%d lines omitted⟩", strings.Count(mid, "\n")-1)
	}
	return head + "\n" + marker + "\n" + tail
}

// suffixUTF16 is the longest suffix of s, cut at a rune boundary, of at
// most limit UTF-16 code units.
func suffixUTF16(s string, limit int) string {
	n := 0
	for i := len(s); i > 0; {
		r, size := utf8.DecodeLastRuneInString(s[:i])
		l := max(1, utf16.RuneLen(r))
		if n+l > limit {
			return s[i:]
		}
		n += l
		i -= size
	}
	return s
}

// utf16Len is the length of s in UTF-16 code units, as JavaScript's
// String.length counts it (Claude Code's output cap): 2 for a rune outside
// the Basic Multilingual Plane (most emoji), 1 for any other rune,
// including an invalid byte (decoded as U+FFFD).
func utf16Len(s string) int {
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

// cutUTF16 is the longest prefix of s, cut at a rune boundary, of at most
// limit UTF-16 code units.
func cutUTF16(s string, limit int) string {
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

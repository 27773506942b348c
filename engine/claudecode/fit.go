package claudecode

import (
	"fmt"
	"strings"

	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/signals"
)

// fitOutput joins lead, the recitation rec and the block b and fits them
// to limit UTF-16 code units (utf16Len: what Claude Code's
// 10,000-character cap counts). The block is fitted by signals.Fit in the
// room the lead, the recitation and the note leave: every stop signal is
// shown at least as its command and key line, newest errors first, then
// with the lines around its key line and the head and tail of its output
// as room allows; resolved signals and, unless only they were lost,
// harmless probes are left out. When even the key lines do not fit beside
// the recitation, the recitation goes first. A note says how many signals
// were shortened (and left out, under a limit too small for every key
// line). A block with nothing to show is left out.
func fitOutput(lead, rec string, b signals.Block, limit int) string {
	out, omitted := fitWith(lead, rec, b, limit)
	if omitted > 0 && rec != "" {
		out, _ = fitWith(lead, "", b, limit)
	}
	return out
}

// fitWith is fitOutput with the recitation rec kept; it returns the
// output and how many signals were left out. The block gets the room the
// rest leaves, less the note's once the note is known.
func fitWith(lead, rec string, b signals.Block, limit int) (string, int) {
	room := limit - utf16Len(frame(lead, rec, "", ""))
	var out string
	var f signals.Fitted
	for try := 0; try < 4 && room > 0; try++ {
		f = signals.Fit(b, room)
		body := ""
		if !emptyBlock(f.Block) {
			body = signals.RenderBlock(f.Block)
		}
		out = frame(lead, rec, body, fitNote(f, limit))
		n := utf16Len(out)
		if n <= limit {
			return out, f.Omitted
		}
		room -= n - limit
	}
	if out == "" {
		out = frame(lead, rec, "", "")
		f.Omitted = len(b.Signals)
	}
	return signals.CutUTF16(out, limit), f.Omitted
}

// frame is the output's text: the lead, then the recitation, the block
// and the note, each when not "".
func frame(lead, rec, block, note string) string {
	var sb strings.Builder
	sb.WriteString(lead + "\n")
	if rec != "" {
		sb.WriteString("\n" + rec + "\n")
	}
	if block != "" {
		sb.WriteString("\n" + block)
	}
	if note != "" {
		sb.WriteString("\n" + note + "\n")
	}
	return sb.String()
}

// emptyBlock reports a fitted block with nothing to show.
func emptyBlock(b signals.Block) bool {
	return len(b.Signals) == 0 && b.Breaker == "" && b.Task == "" && len(b.FilesModified) == 0 && b.LastChange == "" && b.Hypothesis == ""
}

// fitNote says what signals.Fit shortened and left out, "" when nothing.
func fitNote(f signals.Fitted, limit int) string {
	if f.Shortened == 0 && f.Omitted == 0 {
		return ""
	}
	total := len(f.Block.Signals) + f.Omitted
	s := fmt.Sprintf("(recite shortened %d of %d stop signals", f.Shortened, total)
	if f.Omitted > 0 {
		s += fmt.Sprintf(" and left out %d", f.Omitted)
	}
	return s + fmt.Sprintf(" to stay within %d characters; the full texts are in %s and %s/)", limit, layout.PreservedFile, layout.ConversationsDir)
}

// utf16Len is the length of s in UTF-16 code units, as JavaScript's
// String.length counts it (Claude Code's output cap; signals.UTF16Len).
func utf16Len(s string) int { return signals.UTF16Len(s) }

package conversation

import (
	"fmt"
	"slices"
	"strings"
)

// Entry flags, in the high bits of an entry's kind byte (index version 2,
// docs/formats.md#conversation-index): what a record may hold, so that a
// reader of the newest part of a log finds what it needs of the older part
// without reading it.
const (
	// kindBits holds the kind code (kindCodes).
	kindBits = 0x0f
	// flagPrompt marks a message that may open an agent turn
	// (PromptCandidate).
	flagPrompt = 0x10
	// flagStop marks a message whose text names a stop word
	// (StopCandidate).
	flagStop = 0x20
	// flagError marks a failed result or an error message (ErrorCandidate).
	flagError = 0x40
	// flagBits are the bits entries may carry.
	flagBits = flagPrompt | flagStop | flagError
)

// maxLedger is how many of the newest records flagged flagStop, and of
// those flagged flagError, the index header lists (its ledger).
const maxLedger = 32

// PromptCandidate reports whether r is a message that may open an agent
// turn: from the user, with text, not internal, not a compaction summary
// and not a tool result. The index counts them per log so that a window's
// turns can be numbered from the start of the conversation (engine/compress
// numbers the turns of conversations without iteration records, and refines
// this test by content).
func PromptCandidate(r *Record) bool {
	return r.Kind == KindMessage && r.Role == RoleUser && !r.Internal && !r.CompactSummary &&
		r.ToolCallID == "" && strings.TrimSpace(r.Content) != ""
}

// StopCandidate reports whether r is a message that may hold a stop signal
// in its text: not internal, and naming BLOCKED, STUCK or STOP in capitals
// (the words engine/signals looks for). A rejected tool use is a failed
// result, an ErrorCandidate.
func StopCandidate(r *Record) bool {
	return r.Kind == KindMessage && !r.Internal && r.Content != "" &&
		(strings.Contains(r.Content, "BLOCKED") || strings.Contains(r.Content, "STUCK") || strings.Contains(r.Content, "STOP"))
}

// ErrorCandidate reports whether r is a message flagged is_error with
// text, not internal: a failed tool result (a rejected tool use among
// them), a failed agent run.
func ErrorCandidate(r *Record) bool {
	return r.Kind == KindMessage && r.IsError && !r.Internal && r.Content != ""
}

// recordFlags returns the entry flags of r.
func recordFlags(r *Record) byte {
	var f byte
	if PromptCandidate(r) {
		f |= flagPrompt
	}
	if StopCandidate(r) {
		f |= flagStop
	}
	if ErrorCandidate(r) {
		f |= flagError
	}
	return f
}

// note adds the entry at read-order position pos, flagged f, to the
// header's counts and ledger.
func (h *indexHeader) note(pos int, f byte) {
	if f&flagPrompt != 0 {
		h.Prompts++
	}
	if f&flagStop != 0 {
		h.StopRefs = pushRef(h.StopRefs, pos)
	}
	if f&flagError != 0 {
		h.ErrorRefs = pushRef(h.ErrorRefs, pos)
	}
}

// pushRef appends pos to refs, keeping the newest maxLedger.
func pushRef(refs []int, pos int) []int {
	if len(refs) == maxLedger {
		refs = append(refs[:0:0], refs[1:]...)
	}
	return append(refs, pos)
}

// checkLedger reports whether the header's ledger is well formed: at most
// maxLedger positions per list, ascending, inside the entries, and a
// prompt count no larger than the messages.
func (h *indexHeader) checkLedger() error {
	if h.Prompts < 0 || h.Prompts > h.Messages {
		return fmt.Errorf("%w: %d prompts of %d messages", errBadIndex, h.Prompts, h.Messages)
	}
	for _, refs := range [][]int{h.StopRefs, h.ErrorRefs} {
		if len(refs) > maxLedger {
			return fmt.Errorf("%w: ledger of %d", errBadIndex, len(refs))
		}
		for i, p := range refs {
			if p < 0 || p >= h.Entries || i > 0 && p <= refs[i-1] {
				return fmt.Errorf("%w: ledger position %d", errBadIndex, p)
			}
		}
	}
	return nil
}

// Earlier describes the part of a conversation older than the records a
// Window holds: how many messages and iteration records it has, and how
// many of those messages are PromptCandidate. All zero for a whole
// conversation.
type Earlier struct {
	Messages   int `json:"messages"`
	Iterations int `json:"iterations"`
	Prompts    int `json:"prompts"`
}

// ledgerEntries returns, in read order, the entries of the ledgers of c
// that the window does not hold: among c's own records those before
// position start, and among the first hi messages of its parents those
// older than the newest skip of them. For a fork, hi is c.inh and skip the
// inherited messages the window holds.
func (c *chainView) ledgerEntries(start, skip int) ([][]ordEntry, []*logView, error) {
	var levels [][]ordEntry
	var views []*logView
	own, err := c.v.ledger(func(e ordEntry, pos int) bool { return pos < start })
	if err != nil {
		return nil, nil, err
	}
	levels, views = append(levels, own), append(views, c.v)
	// The parents' part: the first hi messages of the chain above c, of
	// which the newest skip are in the window.
	hi := c.inh
	for p := c.parent; p != nil && hi > 0; p = p.parent {
		ownHi := hi - p.inh // p's own messages among the first hi
		if ownHi > 0 {
			limit := ownHi - skip // p's own message ranks below it are not in the window
			es, err := p.v.ledger(func(e ordEntry, _ int) bool { return e.Kind == KindMessage && e.Rank < limit })
			if err != nil {
				return nil, nil, err
			}
			levels, views = append(levels, es), append(views, p.v)
			skip = max(0, skip-ownHi)
		}
		hi = min(hi, p.inh)
	}
	slices.Reverse(levels)
	slices.Reverse(views)
	return levels, views, nil
}

// ledger returns the entries of v's ledger (stops and errors merged, in
// read order, each once) that keep accepts.
func (v *logView) ledger(keep func(e ordEntry, pos int) bool) ([]ordEntry, error) {
	refs := slices.Concat(v.hdr.StopRefs, v.hdr.ErrorRefs)
	slices.Sort(refs)
	refs = slices.Compact(refs)
	var out []ordEntry
	var buf []ordEntry
	for _, pos := range refs {
		var err error
		if buf, err = v.entries(pos, pos+1, buf[:0]); err != nil {
			return nil, err
		}
		e := buf[0]
		if e.Kind != KindMessage || e.Flags&(flagStop|flagError) == 0 {
			return nil, fmt.Errorf("%w: ledger position %d is not a flagged message", errBadIndex, pos)
		}
		if keep(e, pos) {
			out = append(out, e)
		}
	}
	return out, nil
}

// countPrompts counts the entries flagged flagPrompt among the first hi
// messages of c in read order (its inherited ones first), reading entries
// only. It is used for forks, whose header counts only their own log.
func (c *chainView) countPrompts(hi int) (int, error) {
	n := 0
	if c.inh > 0 {
		m, err := c.parent.countPrompts(min(hi, c.inh))
		if err != nil {
			return 0, err
		}
		n = m
	}
	own := hi - c.inh
	if own <= 0 {
		return n, nil
	}
	if own >= c.v.hdr.Messages {
		return n + c.v.hdr.Prompts, nil
	}
	var buf []ordEntry
	var err error
	for i := 0; i < c.v.hdr.Entries; i += 4096 {
		if buf, err = c.v.entries(i, min(i+4096, c.v.hdr.Entries), buf[:0]); err != nil {
			return 0, err
		}
		for _, e := range buf {
			if e.Kind != KindMessage {
				continue
			}
			if e.Rank >= own {
				return n, nil
			}
			if e.Flags&flagPrompt != 0 {
				n++
			}
		}
	}
	return n, nil
}

package conversation

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/recite-dev/recite/markdown"
)

// WindowOptions bound a Window: it reaches back from the newest record
// until it holds Messages messages and Iterations iteration records (each
// as far as there are), and never holds more than MaxBytes bytes of log
// lines. With Messages and Iterations both 0 it reaches back to the start,
// within MaxBytes; with all three 0 it is the whole conversation.
type WindowOptions struct {
	// Messages is how many of the newest messages the window holds, a
	// fork's inherited ones included.
	Messages int
	// Iterations is how many of the newest iteration records the window
	// holds: it starts at the Iterations-th last one (or earlier, for
	// Messages), or at the log's first one when it has fewer (the index
	// counts them: a log without any is not walked for them). A reader
	// that wants only the iteration records reads them alone
	// (Snapshot.Iterations).
	Iterations int
	// MaxBytes, when positive, bounds the bytes of log lines (newlines not
	// counted) the window holds: the newest record that would pass it ends
	// the window, so a window can be empty. A record longer than MaxBytes
	// alone is carried as a note instead (LeftOutNote, Source LeftOut),
	// so the window goes on past it.
	MaxBytes int64
}

// Window is the newest part of a conversation in read order, with what is
// known of the whole.
type Window struct {
	// Info describes the whole conversation.
	Info Info
	// Records are the window's records in read order: for a fork, the
	// inherited messages (the first Inherited records), then its own
	// records of every kind.
	Records []Record
	// Inherited is how many of Records are messages inherited from a
	// fork's parent.
	Inherited int
	// FirstMessage is the 1-based number, among all the conversation's
	// messages, of the first message in Records (the N of `fork --at`);
	// 0 when Records hold no message.
	FirstMessage int
	// Complete reports that Records hold the whole conversation.
	Complete bool
	// Earlier counts what the conversation holds before Records (zero
	// when Complete).
	Earlier Earlier
	// Signals are the records of the index's ledger older than Records,
	// in read order: of the newest 32 messages naming a stop word
	// (StopCandidate) and the newest 32 failed results (ErrorCandidate) of
	// each log of the chain, those the window does not hold. Nil when
	// Complete.
	Signals []Record
}

// Conversation returns the window as a Conversation: Messages,
// Iterations, Events, Deliverables and TestsPassing are those of the
// window's records; Meta and LastActivity are those of the whole
// conversation, Earlier and Signals those of the window.
func (w *Window) Conversation() *Conversation {
	c := build(w.Info.ID, w.Records[w.Inherited:], w.Records[:w.Inherited])
	c.Meta = w.Info.Meta
	c.LastActivity = w.Info.LastActivity
	c.Earlier, c.Signals = w.Earlier, w.Signals
	c.finish()
	return c
}

// entriesBlock is how many read-order entries a backward walk reads at a
// time (4 KiB).
const entriesBlock = 256

// Window returns the newest records of the snapshot's conversation within
// opts. It reads the entries and records it returns and nothing older, so
// its cost depends on opts and the records' sizes, not on the length of
// the log. Errors wrap a broken index or a failed read.
func (sn *Snapshot) Window(opts WindowOptions) (*Window, error) {
	c := sn.c
	if c == nil {
		return nil, errors.New("conversation snapshot closed")
	}
	unbounded := opts.Messages <= 0 && opts.Iterations <= 0
	var picks []ordEntry // own records, newest first
	msgs, iters := 0, 0
	// The log holds no more iteration records than its index counts: once
	// they are all in, older records are not wanted for them.
	wantIters := min(opts.Iterations, c.v.hdr.Iterations)
	var used int64
	full := false
	done := func() bool { return !unbounded && msgs >= opts.Messages && iters >= wantIters }
	var buf []ordEntry
	var err error
	block := entriesBlock
	if !unbounded {
		block = min(block, opts.Messages+opts.Iterations+16)
	}
	for i := c.v.hdr.Entries; i > 0 && !done() && !full; block = min(4*block, 16*entriesBlock) {
		from := max(0, i-block)
		if buf, err = c.v.entries(from, i, buf[:0]); err != nil {
			return nil, err
		}
		for _, e := range slices.Backward(buf) {
			if done() {
				break
			}
			size := e.Len
			if opts.MaxBytes > 0 && size > opts.MaxBytes {
				size = leftOutSize(size) // too large to carry: a note stands for it
			}
			if opts.MaxBytes > 0 && used+size > opts.MaxBytes {
				full = true
				break
			}
			picks = append(picks, e)
			used += size
			switch e.Kind {
			case KindMessage:
				msgs++
			case KindIteration:
				iters++
			}
		}
		i = from
	}
	w := &Window{Info: sn.Info}
	ownAll := len(picks) == c.v.hdr.Entries
	if ownAll && !full && c.inh > 0 && (unbounded || msgs < opts.Messages) {
		want := c.inh
		if !unbounded {
			want = min(want, opts.Messages-msgs)
		}
		inh, _, err := c.parent.lastMessages(c.inh, want, opts.MaxBytes, used)
		if err != nil {
			return nil, err
		}
		w.Records, w.Inherited = inh, len(inh)
	}
	slices.Reverse(picks)
	if w.Records, err = c.v.readCarried(picks, w.Records, opts.MaxBytes); err != nil {
		return nil, err
	}
	if n := msgs + w.Inherited; n > 0 {
		w.FirstMessage = c.total - n + 1
	}
	w.Complete = ownAll && w.Inherited == c.inh
	if !w.Complete {
		if err := sn.earlier(w, c.v.hdr.Entries-len(picks), msgs, iters); err != nil {
			return nil, err
		}
	}
	return w, nil
}

// earlier fills w's Earlier and Signals for a window that does not hold
// the whole conversation: its own records start at read-order position
// start and hold msgs messages and iters iteration records.
func (sn *Snapshot) earlier(w *Window, start, msgs, iters int) error {
	c := sn.c
	total := c.v.hdr.Prompts
	if c.inh > 0 {
		var err error
		if total, err = c.countPrompts(c.total); err != nil {
			return err
		}
	}
	in := 0
	for i := range w.Records {
		if PromptCandidate(&w.Records[i]) {
			in++
		}
	}
	w.Earlier = Earlier{Messages: c.total - msgs - w.Inherited, Iterations: c.v.hdr.Iterations - iters, Prompts: max(0, total-in)}
	levels, views, err := c.ledgerEntries(start, w.Inherited)
	if err != nil {
		return err
	}
	for i, es := range levels {
		if w.Signals, err = views[i].read(es, w.Signals); err != nil {
			return err
		}
	}
	return nil
}

// read appends the records of es (in read order) to out.
func (v *logView) read(es []ordEntry, out []Record) ([]Record, error) {
	if len(es) == 0 {
		return out, nil
	}
	var span int64 // the bytes of the lines
	lo, hi := es[0].Off, es[0].Off+es[0].Len
	for _, e := range es {
		span += e.Len + 1
		lo, hi = min(lo, e.Off), max(hi, e.Off+e.Len)
	}
	// Lines close together (a window) are read through one buffer; lines
	// spread over the log (a ledger's) each alone, so the bytes between
	// them are not read.
	buf := 0
	if hi-lo <= 2*span {
		buf = int(min(span+2, 256<<10))
	}
	lr := newLineReader(v.log, v.hdr.Size, buf)
	l := v.memo.logRecords(v)
	var prev *Record
	for _, e := range es {
		r, err := v.decode(lr, l, e)
		if err != nil {
			return out, err
		}
		if prev != nil && compareKey(prev.Time, prev.ID, r.Time, r.ID) >= 0 {
			return out, fmt.Errorf("%w: records %s and %s out of order", errBadIndex, prev.ID, r.ID)
		}
		out = append(out, r)
		prev = &out[len(out)-1]
	}
	return out, nil
}

// lastMessages returns, in read order, the last want messages among the
// first hi of c's read order, as far as they fit in maxBytes (when
// positive) with used bytes already taken, and the bytes used then.
func (c *chainView) lastMessages(hi, want int, maxBytes, used int64) ([]Record, int64, error) {
	own := hi - c.inh // own messages among the first hi
	var picks []ordEntry
	full := false
	if own > 0 {
		last, err := c.v.messageEntry(own - 1)
		if err != nil {
			return nil, used, err
		}
		var buf []ordEntry
	walk:
		for i := last + 1; i > 0; {
			from := max(0, i-entriesBlock)
			if buf, err = c.v.entries(from, i, buf[:0]); err != nil {
				return nil, used, err
			}
			for _, e := range slices.Backward(buf) {
				if len(picks) == want {
					break walk
				}
				if e.Kind != KindMessage {
					continue
				}
				if maxBytes > 0 && used+e.Len > maxBytes {
					full = true
					break walk
				}
				picks = append(picks, e)
				used += e.Len
			}
			i = from
		}
	}
	var out []Record
	if len(picks) < want && !full && c.inh > 0 {
		var err error
		if out, used, err = c.parent.lastMessages(min(hi, c.inh), want-len(picks), maxBytes, used); err != nil {
			return nil, used, err
		}
	}
	slices.Reverse(picks)
	out, err := c.v.read(picks, out)
	return out, used, err
}

// MessageNumber returns the 1-based number of message recID among the
// snapshot's messages in read order (the N that `show` prints and `fork
// --at` takes), looking from the newest back, so the message just
// appended costs one record read. It returns 0 when no message has that
// id.
func (sn *Snapshot) MessageNumber(recID string) (int, error) {
	if sn.c == nil {
		return 0, errors.New("conversation snapshot closed")
	}
	return sn.c.findMessage(sn.c.total, recID)
}

func (c *chainView) findMessage(hi int, recID string) (int, error) {
	if own := hi - c.inh; own > 0 {
		last, err := c.v.messageEntry(own - 1)
		if err != nil {
			return 0, err
		}
		lr := newLineReader(c.v.log, c.v.hdr.Size, 0)
		l := c.v.memo.logRecords(c.v)
		var buf []ordEntry
		for i, block := last+1, 8; i > 0; block = min(4*block, entriesBlock) {
			from := max(0, i-block)
			if buf, err = c.v.entries(from, i, buf[:0]); err != nil {
				return 0, err
			}
			for _, e := range slices.Backward(buf) {
				if e.Kind != KindMessage {
					continue
				}
				r, err := c.v.decode(lr, l, e)
				if err != nil {
					return 0, err
				}
				if r.ID == recID {
					return c.inh + e.Rank + 1, nil
				}
			}
			i = from
		}
	}
	if c.inh > 0 {
		return c.parent.findMessage(min(hi, c.inh), recID)
	}
	return 0, nil
}

// withSnapshot calls fn with a snapshot of conversation id. When fn finds
// the index broken (files damaged under it), the chain's indexes are
// dropped and fn runs once more on rebuilt ones.
func (s *Store) withSnapshot(ctx context.Context, id string, fn func(*Snapshot) error) error {
	for attempt := 0; ; attempt++ {
		sn, err := s.Snapshot(ctx, id)
		if err != nil {
			return err
		}
		var ids []string
		for x := sn.c; x != nil; x = x.parent {
			ids = append(ids, x.v.id)
		}
		err = fn(sn)
		sn.Close()
		if err == nil || !errors.Is(err, errBadIndex) || attempt > 0 {
			return err
		}
		for _, x := range ids {
			_ = s.withLock(ctx, x, func() error { s.dropIndex(x); return nil })
		}
	}
}

// Info describes conversation id (see Snapshot and Info) and returns the
// diagnostics of its torn lines.
func (s *Store) Info(ctx context.Context, id string) (Info, []markdown.Diagnostic, error) {
	sn, err := s.Snapshot(ctx, id)
	if err != nil {
		return Info{}, nil, err
	}
	defer sn.Close()
	return sn.Info, sn.Diagnostics, nil
}

// Window returns the newest records of conversation id within opts (see
// Snapshot.Window) and the diagnostics of its torn lines.
func (s *Store) Window(ctx context.Context, id string, opts WindowOptions) (*Window, []markdown.Diagnostic, error) {
	var w *Window
	var diags []markdown.Diagnostic
	err := s.withSnapshot(ctx, id, func(sn *Snapshot) error {
		var err error
		w, err = sn.Window(opts)
		diags = sn.Diagnostics
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	return w, diags, nil
}

// MessageNumber returns the 1-based number of message recID in
// conversation id (see Snapshot.MessageNumber), 0 when it has none.
func (s *Store) MessageNumber(ctx context.Context, id, recID string) (int, error) {
	var n int
	err := s.withSnapshot(ctx, id, func(sn *Snapshot) error {
		var err error
		n, err = sn.MessageNumber(recID)
		return err
	})
	return n, err
}

// Tail returns the last n messages of conversation id in read order (a
// fork with fewer than n own messages takes the rest from its parent),
// through the log's index: its cost depends on n and the message sizes,
// not on the length of the log. Torn lines are skipped (Window and Read
// report them).
func (s *Store) Tail(id string, n int) ([]Record, error) {
	if n <= 0 {
		return nil, nil
	}
	w, _, err := s.Window(context.Background(), id, WindowOptions{Messages: n})
	if err != nil {
		return nil, fmt.Errorf("tail %q: %w", id, err)
	}
	out := make([]Record, 0, n)
	for _, r := range w.Records {
		if r.Kind == KindMessage {
			out = append(out, r)
		}
	}
	return out, nil
}

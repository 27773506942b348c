package conversation

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/recite-dev/recite/markdown"
)

// Info describes a whole conversation from its index, without reading its
// records (a fork reads one record per parent for LastActivity).
type Info struct {
	// Summary holds the id, agent type, title, parent, number of messages
	// (a fork's inherited ones included, as in Conversation.Messages) and
	// last activity (as Conversation.LastActivity).
	Summary
	// Meta is the merged metadata (as Conversation.Meta).
	Meta Meta `json:"meta"`
	// Inherited is how many of the messages a fork inherits from its
	// parent (they come first in read order).
	Inherited int `json:"inherited,omitempty"`
	// Iterations counts the iteration records.
	Iterations int `json:"iterations"`
	// Records counts the conversation's own records of every kind,
	// duplicates dropped.
	Records int `json:"records"`
	// Size is the length of the conversation's own log in bytes.
	Size int64 `json:"size"`
	// Torn counts the lines of the own log that are not records.
	Torn int `json:"torn,omitempty"`
}

// Snapshot is a consistent view of one conversation (and, for a fork, its
// parents) through the logs' sidecar indexes: records appended after it
// was taken are not seen. Its queries cost what they return, not the
// length of the log. Close it when done. A Snapshot is not safe for
// concurrent use.
type Snapshot struct {
	// Info describes the whole conversation.
	Info Info
	// Diagnostics name the lines of the logs (parents' first) that are not
	// records, as Read reports them (at most 32 per log, then a count).
	Diagnostics []markdown.Diagnostic

	c *chainView
}

// chainView is a conversation's view and, for a fork, its parent's.
type chainView struct {
	v      *logView
	parent *chainView
	inh    int // messages inherited from parent
	total  int // inh + own messages
}

func (c *chainView) close() {
	for ; c != nil; c = c.parent {
		c.v.Close()
	}
}

// Snapshot opens conversation id (in Dir or the archive) and, for a fork,
// its parents, bringing each log's index up to date under its lock (a
// missing or stale index is rebuilt from the log once; see
// docs/formats.md#conversation-index). Errors: ErrNotFound, ErrInvalidID,
// an unreadable log, a fork chain that loops or is deeper than 64, or
// ctx's error while waiting for a lock.
func (s *Store) Snapshot(ctx context.Context, id string) (*Snapshot, error) {
	c, err := s.openChain(ctx, id, nil)
	if err != nil {
		return nil, err
	}
	sn := &Snapshot{c: c}
	if err := sn.describe(); err != nil {
		c.close()
		return nil, err
	}
	return sn, nil
}

// Close releases the snapshot's files.
func (sn *Snapshot) Close() {
	if sn.c != nil {
		sn.c.close()
		sn.c = nil
	}
}

func (s *Store) openChain(ctx context.Context, id string, chain []string) (*chainView, error) {
	if slices.Contains(chain, id) || len(chain) > maxForkDepth {
		return nil, fmt.Errorf("read %q: fork chain %s loops or is too deep", id, strings.Join(append(chain, id), " → "))
	}
	v, err := s.view(ctx, id)
	if err != nil {
		return nil, err
	}
	c := &chainView{v: v, total: v.hdr.Messages}
	if v.hdr.Meta.Parent == "" {
		return c, nil
	}
	p, err := s.openChain(ctx, v.hdr.Meta.Parent, append(chain, id))
	if err != nil {
		v.Close()
		return nil, fmt.Errorf("read fork %q: %w", id, err)
	}
	c.parent = p
	c.inh = p.total
	if at := v.hdr.Meta.ForkAt; at != nil && *at >= 0 && *at < c.inh {
		c.inh = *at
	}
	c.total += c.inh
	return c, nil
}

// describe fills Info and Diagnostics.
func (sn *Snapshot) describe() error {
	c := sn.c
	h := c.v.hdr
	sn.Info = Info{
		Summary: Summary{ID: c.v.id, AgentType: h.Meta.AgentType, Title: h.Meta.Title, Parent: h.Meta.Parent,
			Messages: c.total, LastActivity: h.Activity},
		Meta: h.Meta, Inherited: c.inh, Iterations: h.Iterations, Records: h.Entries, Size: h.Size, Torn: h.TornCount,
	}
	if c.inh > 0 {
		t, err := c.parent.maxTime(c.inh)
		if err != nil {
			return err
		}
		if t.After(sn.Info.LastActivity) {
			sn.Info.LastActivity = t
		}
	}
	if sn.Info.LastActivity.IsZero() {
		sn.Info.LastActivity = h.Newest
	}
	var chain []*chainView
	for x := c; x != nil; x = x.parent {
		chain = append(chain, x)
	}
	for _, x := range slices.Backward(chain) {
		sn.Diagnostics = append(sn.Diagnostics, x.v.diagnostics()...)
	}
	return nil
}

// diagnostics are the torn lines the index lists.
func (v *logView) diagnostics() []markdown.Diagnostic {
	var out []markdown.Diagnostic
	for _, t := range v.hdr.Torn {
		out = append(out, markdown.Diagnostic{Path: v.path, Line: t.Line, Message: t.Message})
	}
	if more := v.hdr.TornCount - len(v.hdr.Torn); more > 0 {
		out = append(out, markdown.Diagnostic{Path: v.path, Message: fmt.Sprintf("%d more torn or malformed records skipped", more)})
	}
	return out
}

// maxTime is the newest timestamp among the first m messages of c in read
// order (0 < m <= c.total).
func (c *chainView) maxTime(m int) (time.Time, error) {
	if m <= c.inh {
		return c.parent.maxTime(m)
	}
	var t time.Time
	if c.inh > 0 {
		var err error
		if t, err = c.parent.maxTime(c.inh); err != nil {
			return t, err
		}
	}
	// Own records are in (timestamp, id) order: the last is the newest.
	i, err := c.v.messageEntry(m - c.inh - 1)
	if err != nil {
		return t, err
	}
	es, err := c.v.entries(i, i+1, nil)
	if err != nil {
		return t, err
	}
	r, err := c.v.decode(newLineReader(c.v.log, c.v.hdr.Size, 0), c.v.memo.logRecords(c.v), es[0])
	if err != nil {
		return t, err
	}
	if r.Time.After(t) {
		t = r.Time
	}
	return t, nil
}

// messageEntry returns the index of the entry of own message rank (0-based
// among the log's own messages), by binary search on the entries' ranks.
func (v *logView) messageEntry(rank int) (int, error) {
	if rank < 0 || rank >= v.hdr.Messages {
		return 0, fmt.Errorf("%w: message %d of %d", errBadIndex, rank, v.hdr.Messages)
	}
	var buf []ordEntry
	var ferr error
	// The message of rank r is the first message entry whose Rank is r;
	// every entry after the previous message up to it has Rank r.
	lo, hi := 0, v.hdr.Entries
	if v.hdr.Messages-rank <= entriesBlock/2 {
		// Near the end (the newest messages, a message just appended):
		// one read of the last entries instead of a binary search.
		from := max(0, v.hdr.Entries-min(entriesBlock, 2*(v.hdr.Messages-rank)+16))
		if buf, ferr = v.entries(from, v.hdr.Entries, buf); ferr != nil {
			return 0, ferr
		}
		if buf[0].Rank <= rank {
			lo, _ = slices.BinarySearchFunc(buf, rank, func(e ordEntry, r int) int { return cmp.Compare(e.Rank, r) })
			lo += from
			hi = lo
		}
	}
	for lo < hi {
		mid := int(uint(lo+hi) >> 1)
		if buf, ferr = v.entries(mid, mid+1, buf[:0]); ferr != nil {
			return 0, ferr
		}
		if buf[0].Rank < rank {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	for j := lo; j < v.hdr.Entries; j += 64 {
		buf, ferr = v.entries(j, min(j+64, v.hdr.Entries), buf[:0])
		if ferr != nil {
			return 0, ferr
		}
		for k, e := range buf {
			if e.Rank != rank {
				return 0, fmt.Errorf("%w: ranks skip %d", errBadIndex, rank)
			}
			if e.Kind == KindMessage {
				return j + k, nil
			}
		}
	}
	return 0, fmt.Errorf("%w: message %d missing", errBadIndex, rank)
}

// Records returns the conversation's records in read order, streaming: for
// a fork, the messages it inherits (its parents' first messages, in their
// read order), then its own records of every kind, in (timestamp, id)
// order, duplicates dropped. It holds one record (and a 256 KiB buffer
// per log) at a time, whatever the length of the log. The iteration stops
// at the first error, an error wrapping a broken index (the snapshot's
// index files damaged while it was open) or a failed read.
func (sn *Snapshot) Records() iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		if sn.c == nil {
			yield(Record{}, errors.New("conversation snapshot closed"))
			return
		}
		_ = sn.c.scan(sn.c.total, false, yield)
	}
}

// errStop ends a scan early.
var errStop = errors.New("stop")

// scan yields the first hi messages of c's read order (its inherited
// messages, then its own) when onlyMessages, or else all of c's records
// (hi is then c.total). It returns errStop when yield stopped it, or the
// error it yielded.
func (c *chainView) scan(hi int, onlyMessages bool, yield func(Record, error) bool) error {
	if c.inh > 0 && hi > 0 {
		if err := c.parent.scan(min(hi, c.inh), true, yield); err != nil {
			return err
		}
	}
	own := hi - c.inh // own messages wanted, when onlyMessages
	if onlyMessages && own <= 0 {
		return nil
	}
	lr := newLineReader(c.v.log, c.v.hdr.Size, 256<<10)
	var buf []ordEntry
	var err error
	have, prevTime, prevID := false, time.Time{}, ""
	for i := 0; i < c.v.hdr.Entries; i += 4096 {
		if buf, err = c.v.entries(i, min(i+4096, c.v.hdr.Entries), buf[:0]); err != nil {
			yield(Record{}, err)
			return err
		}
		for _, e := range buf {
			if onlyMessages {
				if e.Kind != KindMessage {
					continue
				}
				if e.Rank >= own {
					return nil
				}
			}
			r, err := lr.record(e)
			if err == nil && c.v.memo != nil {
				c.v.memo.decoded.Add(1) // a whole log's records are not kept
			}
			if err == nil && have && compareKey(prevTime, prevID, r.Time, r.ID) >= 0 {
				err = fmt.Errorf("%w: records %s and %s out of order", errBadIndex, prevID, r.ID)
			}
			if err != nil {
				yield(Record{}, err)
				return err
			}
			have, prevTime, prevID = true, r.Time, r.ID
			if !yield(r, nil) {
				return errStop
			}
		}
	}
	return nil
}

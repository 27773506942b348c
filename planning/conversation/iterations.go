package conversation

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/recite-dev/recite/markdown"
)

// Iterations returns the newest n iteration records of the snapshot's
// conversation in read order (its own log's: a fork inherits messages
// only), as many as it has, and of those no more than fit in maxBytes of
// log lines when maxBytes is positive (the newest kept first). It reads
// those records and nothing else: their entries come from the index's
// iteration ledger (the newest IterationLedger), older ones from a
// backward walk of the read order that decodes no other record. So its
// cost depends on n, not on the length of the log nor on how many other
// records lie between the iterations. Errors wrap a broken index or a
// failed read.
func (sn *Snapshot) Iterations(n int, maxBytes int64) ([]Record, error) {
	if sn.c == nil {
		return nil, errors.New("conversation snapshot closed")
	}
	v := sn.c.v
	want := min(n, v.hdr.Iterations)
	if want <= 0 {
		return nil, nil
	}
	var es []ordEntry
	var err error
	if want <= len(v.hdr.IterRefs) {
		es, err = v.entriesAt(v.hdr.IterRefs[len(v.hdr.IterRefs)-want:])
	} else {
		es, err = v.lastOfKind(KindIteration, want)
	}
	if err != nil {
		return nil, err
	}
	if len(es) != want {
		return nil, fmt.Errorf("%w: %d of %d iteration entries found", errBadIndex, len(es), want)
	}
	var used int64
	first := len(es)
	for i, e := range slices.Backward(es) {
		if e.Kind != KindIteration {
			return nil, fmt.Errorf("%w: ledger entry at %d is not an iteration", errBadIndex, e.Off)
		}
		if maxBytes > 0 && used+e.Len > maxBytes {
			break
		}
		used += e.Len
		first = i
	}
	return v.read(es[first:], nil)
}

// entriesAt returns the entries at the ascending read-order positions pos,
// reading runs of nearby positions at once.
func (v *logView) entriesAt(pos []int) ([]ordEntry, error) {
	out := make([]ordEntry, 0, len(pos))
	var buf []ordEntry
	for i := 0; i < len(pos); {
		// A run: positions less than 64 entries (1 KiB) apart.
		j := i + 1
		for j < len(pos) && pos[j]-pos[j-1] < 64 {
			j++
		}
		var err error
		if buf, err = v.entries(pos[i], pos[j-1]+1, buf[:0]); err != nil {
			return nil, err
		}
		for _, p := range pos[i:j] {
			out = append(out, buf[p-pos[i]])
		}
		i = j
	}
	return out, nil
}

// lastOfKind returns, in read order, the entries of the newest n records
// of kind k, walking the read order back (entries only).
func (v *logView) lastOfKind(k Kind, n int) ([]ordEntry, error) {
	var picks []ordEntry
	var buf []ordEntry
	var err error
	for i := v.hdr.Entries; i > 0 && len(picks) < n; {
		from := max(0, i-16*entriesBlock)
		if buf, err = v.entries(from, i, buf[:0]); err != nil {
			return nil, err
		}
		for _, e := range slices.Backward(buf) {
			if e.Kind == k {
				if picks = append(picks, e); len(picks) == n {
					break
				}
			}
		}
		i = from
	}
	slices.Reverse(picks)
	return picks, nil
}

// Iterations returns the newest n iteration records of conversation id
// within maxBytes (see Snapshot.Iterations), the conversation's Info, and
// the diagnostics of its torn lines.
func (s *Store) Iterations(ctx context.Context, id string, n int, maxBytes int64) ([]Record, Info, []markdown.Diagnostic, error) {
	var recs []Record
	var info Info
	var diags []markdown.Diagnostic
	err := s.withSnapshot(ctx, id, func(sn *Snapshot) error {
		var err error
		recs, err = sn.Iterations(n, maxBytes)
		info, diags = sn.Info, sn.Diagnostics
		return err
	})
	if err != nil {
		return nil, Info{}, nil, err
	}
	return recs, info, diags, nil
}

package conversation

import (
	"context"
	"errors"
	"slices"

	"github.com/recite-dev/recite/markdown"
)

// Iterations returns the newest n iteration records of the snapshot's
// conversation in read order (its own log's: a fork inherits messages
// only), those a Window{Iterations: n, MaxBytes: maxBytes} holds: the
// walk from the newest record back stops at the n-th iteration record, at
// the log's oldest one (the index counts them), or where the records'
// lines pass maxBytes when it is positive (a record longer than maxBytes
// counts as the note that stands for it, as in Window). It walks the index's entries
// only and decodes the iteration records and nothing else, so the
// messages between thinly spread iteration records cost 16 bytes of
// index each, and a log without any costs nothing. Errors wrap a broken
// index or a failed read.
func (sn *Snapshot) Iterations(n int, maxBytes int64) ([]Record, error) {
	if sn.c == nil {
		return nil, errors.New("conversation snapshot closed")
	}
	v := sn.c.v
	want := min(n, v.hdr.Iterations)
	var picks []ordEntry // newest first
	var used int64
	var buf []ordEntry
	var err error
walk:
	for i := v.hdr.Entries; i > 0 && len(picks) < want; {
		from := max(0, i-16*entriesBlock)
		if buf, err = v.entries(from, i, buf[:0]); err != nil {
			return nil, err
		}
		for _, e := range slices.Backward(buf) {
			size := e.Len
			if maxBytes > 0 && size > maxBytes {
				size = leftOutSize(size) // too large to carry: a note stands for it, as in Window
			}
			if maxBytes > 0 && used+size > maxBytes {
				break walk
			}
			used += size
			if e.Kind == KindIteration {
				if picks = append(picks, e); len(picks) == want {
					break walk
				}
			}
		}
		i = from
	}
	slices.Reverse(picks)
	return v.readCarried(picks, nil, maxBytes)
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

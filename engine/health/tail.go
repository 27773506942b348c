package health

import (
	"bytes"
	"fmt"
	"os"

	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// TailMaxBytes bounds how much of a log's end TailConversation reads.
const TailMaxBytes = 8 << 20

// tailFirstWindow is the first window TailConversation reads.
const tailFirstWindow = 256 << 10

// TailConversation reads the end of conversation id's log: windows of
// 256 KiB, 512 KiB, … up to maxBytes from its end, until one holds at least
// n messages; the records of that window (the first, partial line
// dropped) are normalised as Store.Read does, and the last n messages and
// every iteration record from the first kept message on are returned, so
// the cost depends on n and record sizes, not on the log's length. A log
// no longer than the window, and a fork (whose start lives in its parent),
// is read whole with Store.Read. Meta comes from the records read (a long
// log's first meta record is not seen). Malformed lines in the window are
// diagnostics naming the log, their line numbers counted from the window's
// start. Errors: a missing log ([conversation.ErrNotFound]), an invalid
// id, an unreadable file.
func TailConversation(store *conversation.Store, id string, n int, maxBytes int64) (*conversation.Conversation, []planning.Diagnostic, error) {
	p, err := store.Path(id)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		// Archived, missing or unreadable: Store.Read says which.
		return store.Read(id)
	}
	defer func() { _ = f.Close() }()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("read %q: %w", id, err)
	}
	size := st.Size()
	for window := int64(tailFirstWindow); ; window *= 2 {
		window = min(window, maxBytes)
		if size <= window {
			return store.Read(id)
		}
		data := make([]byte, window)
		if _, err := f.ReadAt(data, size-window); err != nil {
			return nil, nil, fmt.Errorf("read %q: %w", id, err)
		}
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			data = data[i+1:]
		}
		recs, diags := conversation.ParseLog(p, data)
		recs = conversation.Normalize(recs)
		c := &conversation.Conversation{ID: id}
		for _, r := range recs {
			if r.Kind == conversation.KindMeta && r.Meta != nil && r.Meta.Parent != "" {
				return store.Read(id) // a fork: its start is in the parent
			}
		}
		msgs := 0
		for _, r := range recs {
			if r.Kind == conversation.KindMessage {
				msgs++
			}
		}
		if msgs < n && window < maxBytes {
			continue
		}
		skip := max(0, msgs-n)
		for _, r := range recs {
			if r.Time.After(c.LastActivity) {
				c.LastActivity = r.Time
			}
			switch r.Kind {
			case conversation.KindMessage:
				if skip > 0 {
					skip--
					continue
				}
				c.Messages = append(c.Messages, r)
			case conversation.KindIteration:
				if len(c.Messages) > 0 {
					c.Iterations = append(c.Iterations, r)
				}
			case conversation.KindMeta:
				if r.Event != "" {
					c.Events = append(c.Events, r)
				}
			}
		}
		return c, diags, nil
	}
}

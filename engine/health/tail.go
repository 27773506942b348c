package health

import (
	"context"
	"time"

	"github.com/recite-dev/recite/engine/history"
	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning/conversation"
)

// TailMaxBytes bounds how much of a log's end a tail read takes, in bytes.
const TailMaxBytes = 8 << 20

// ConversationWindow reads the newest part of conversation id through its
// index (conversation.Store.Window), so the cost depends on what is read,
// not on the length of the log: with tail > 0 the last tail messages and
// the iteration records among them, within TailMaxBytes (the Claude Code
// hook's PreCompact); with tail 0 the horizon a build reads
// (history.Horizon). The conversation it returns counts what lies before
// the window (Earlier) and carries the older records of the index's ledger
// (Signals: the newest records naming a stop word, the newest failed
// results). Diagnostics are the log's torn lines. Errors: a missing log
// ([conversation.ErrNotFound]), an invalid id, an unreadable file, ctx's
// error while waiting for the log's lock.
func ConversationWindow(ctx context.Context, store *conversation.Store, id string, tail int) (*conversation.Conversation, []markdown.Diagnostic, error) {
	opts := history.Horizon(0)
	if tail > 0 {
		opts = conversation.WindowOptions{Messages: tail, MaxBytes: TailMaxBytes}
	}
	w, diags, err := store.Window(ctx, id, opts)
	if err != nil {
		return nil, nil, err
	}
	return w.Conversation(), diags, nil
}

// lateGrace bounds the wait for a log's lock once the caller's context has
// ended (a hook out of time still reads the windows, which are bounded).
const lateGrace = 250 * time.Millisecond

// readLate is ConversationWindow under ctx, or, when ctx has ended, under a
// fresh context of lateGrace.
func readLate(ctx context.Context, store *conversation.Store, id string, tail int) (*conversation.Conversation, []markdown.Diagnostic, error) {
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), lateGrace)
		defer cancel()
	}
	return ConversationWindow(ctx, store, id, tail)
}

package health

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"

	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/signals"
	"github.com/recite-dev/recite/markdown"
	"github.com/recite-dev/recite/planning"
	"github.com/recite-dev/recite/planning/conversation"
)

// Bounds of OpenSignals: how many of the most recently active
// conversations it reads, and how much of the end of each.
const (
	// RecentConversations is how many conversations are read.
	RecentConversations = 5
	// RecentMessages is how many of the newest messages of each are read.
	RecentMessages = 500
	// RecentMaxBytes bounds what is read of each log, in bytes.
	RecentMaxBytes = 2 << 20
)

// OpenSources says what OpenSignals reads besides the recent
// conversations.
type OpenSources struct {
	// Project is the planning tree, whose loop files, debug files and
	// blockers hold signals of their own (signals.FromProject); nil for
	// none.
	Project *planning.Project
	// Known are signals already known (the latest preservation block's,
	// each with a LastSeen: the block's timestamp when it had none), marked
	// resolved when the recent conversations resolve them (signals.Resolve:
	// a later successful run of the same command).
	Known []signals.Signal
	// HookAgents name the agents whose iteration records repeat an error
	// their tool messages hold (Sources.HookAgents).
	HookAgents []string
	// Store, when set, is the conversation store to read through
	// (Sources.Store); nil opens the project's when it has a conversations
	// folder.
	Store *conversation.Store
}

// OpenSignals returns the stop signals a new session of the project must
// know: those of the tails of its RecentConversations most recently
// active conversations (other Claude Code sessions, `conversation run`
// logs; the newest RecentMessages messages of each, at most RecentMaxBytes
// read through the log's index, never a whole log) and of its planning
// tree, extracted together in time order (signals.Extract), so an error
// resolved later in any of them — a later successful run of the same
// command or test — carries ResolvedBy, and one seen in two sessions
// counts once. The result is ordered newest first (LastSeen; undated
// signals last, known ones before new ones). Resolved signals are left
// out, a known signal the conversations resolve too: a new session needs
// what is still open (the re-injection after a compaction keeps resolved
// errors as lines, from the block itself). A conversation that cannot be
// read is a diagnostic.
func OpenSignals(ctx context.Context, dir string, src OpenSources) ([]signals.Signal, []markdown.Diagnostic) {
	var msgs []signals.Message
	var iters []conversation.Record
	var diags []markdown.Diagnostic
	var read []string // the conversations read
	if convDir := filepath.Join(dir, filepath.FromSlash(layout.ConversationsDir)); src.Store != nil || dirExists(convDir) {
		store, err := src.Store, error(nil)
		if store == nil {
			store, err = conversation.Open(convDir)
		}
		if err != nil {
			diags = append(diags, markdown.Diagnostic{Path: layout.ConversationsDir, Message: err.Error()})
		} else {
			ids, ldiags := newestConversations(store, RecentConversations)
			diags = append(diags, ldiags...)
			for _, id := range ids {
				if ctx.Err() != nil {
					break
				}
				read = append(read, id)
				w, wdiags, err := store.Window(ctx, id, conversation.WindowOptions{Messages: RecentMessages, MaxBytes: RecentMaxBytes})
				diags = append(diags, wdiags...)
				if err != nil {
					diags = append(diags, markdown.Diagnostic{Path: layout.ConversationLog(id), Message: fmt.Sprintf("stop signals: %v", err)})
					continue
				}
				c := w.Conversation()
				msgs = append(msgs, SignalMessages(c)...)
				for _, r := range c.Iterations {
					if !slices.Contains(src.HookAgents, r.Agent) {
						iters = append(iters, r)
					}
				}
			}
		}
	}
	// One time line across the conversations, so a run in one resolves an
	// error of another.
	slices.SortStableFunc(msgs, func(a, b signals.Message) int { return a.Timestamp.Compare(b.Timestamp) })
	slices.SortStableFunc(iters, func(a, b conversation.Record) int { return a.Time.Compare(b.Time) })
	found := planningSources(src.Project, extractCached(dir, read, src.Project, msgs, IterationRecords(iters)))
	known := signals.MarkResolved(src.Known, signals.Resolve(msgs, src.Known))
	out := slices.DeleteFunc(mergeKnown(known, found), func(s signals.Signal) bool { return s.ResolvedBy != "" })
	// Newest first (an undated signal last), as Fit gives room.
	slices.SortStableFunc(out, func(a, b signals.Signal) int { return b.LastSeen.Compare(a.LastSeen) })
	return out, relDiags(dir, diags)
}

// mergeKnown is known followed by the signals of found it does not hold
// (by kind and hash); a known signal that found holds resolved is marked
// resolved by the same run.
func mergeKnown(known, found []signals.Signal) []signals.Signal {
	key := func(s signals.Signal) string { return string(s.Kind) + "\x00" + s.Hash }
	at := map[string]int{}
	out := slices.Clone(known)
	for i, s := range out {
		at[key(s)] = i
	}
	for _, s := range found {
		i, ok := at[key(s)]
		if !ok {
			at[key(s)] = len(out)
			out = append(out, s)
			continue
		}
		if out[i].ResolvedBy == "" && s.ResolvedBy != "" {
			out[i].ResolvedBy = s.ResolvedBy
		}
	}
	return out
}

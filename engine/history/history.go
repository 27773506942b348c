// Package history prunes a conversation's messages before they enter a prompt
// (docs/formats.md#history-pruning). Four strategies: [Window] (the last N
// messages), [Tokens] (a token budget), [Summary] (older messages folded into
// one summary message) and [Importance] (the top K by score).
//
// Every strategy works on units, never on single messages
// (docs/architecture.md#tool-calls-keep-their-results,
// docs/providers.md#rules-every-shape-keeps): an assistant message with tool
// calls and the tool messages answering them, with everything between, form
// one unit that is kept or dropped whole, so a pruned list never holds a tool
// call without its result or a tool result without its call. A tool result
// whose call is not in the input at all (an orphan) is dropped by every
// strategy. Apart from the summary message, the output is always a subsequence
// of the input.
//
// Every strategy evicts in steps (evict.go, docs/formats.md#cache-aware-eviction):
// between two evictions its output only grows at the end, so a provider's
// prompt cache is rewritten once per eviction, not on every message; the
// zero value of each strategy's Low keeps the sliding form of old.
package history

import (
	"context"
	"errors"
	"slices"

	"github.com/recite-dev/recite/planning/conversation"
)

// Strategy prunes a list of messages, oldest first. Implementations return
// a new slice and never modify msgs.
type Strategy interface {
	Prune(ctx context.Context, msgs []conversation.Record) ([]conversation.Record, error)
}

// unit is a half-open range [lo, hi) of messages kept or dropped together.
type unit struct{ lo, hi int }

// units splits msgs into the atomic units described in the package comment,
// in order, and leaves out orphan tool results. Intervals from a tool call
// to its last answering result are merged when they overlap, which keeps
// parallel calls and interleaved results together.
func units(msgs []conversation.Record) []unit {
	callAt := map[string]int{} // tool call id → index of the calling message
	end := make([]int, len(msgs))
	orphan := make([]bool, len(msgs))
	for i, m := range msgs {
		end[i] = i + 1
		for _, c := range m.ToolCalls {
			if c.ID != "" {
				callAt[c.ID] = i
			}
		}
		if m.Role == conversation.RoleTool && m.ToolCallID != "" {
			j, ok := callAt[m.ToolCallID]
			if !ok {
				orphan[i] = true
				continue
			}
			end[j] = max(end[j], i+1)
		} else if m.Role == conversation.RoleTool {
			orphan[i] = true
		}
	}
	var out []unit
	for i := 0; i < len(msgs); {
		if orphan[i] {
			i++
			continue
		}
		u := unit{i, end[i]}
		for k := i + 1; k < u.hi; k++ {
			u.hi = max(u.hi, end[k])
		}
		out = append(out, u)
		i = u.hi
	}
	return out
}

// collect returns the messages of the chosen units in order, leaving out
// orphan tool results inside them.
func collect(msgs []conversation.Record, us []unit) []conversation.Record {
	var out []conversation.Record
	for _, u := range us {
		for i := u.lo; i < u.hi; i++ {
			if isOrphan(msgs, u, i) {
				continue
			}
			out = append(out, msgs[i])
		}
	}
	return out
}

// isOrphan reports whether msgs[i] is a tool result whose call is not in
// unit u before it.
func isOrphan(msgs []conversation.Record, u unit, i int) bool {
	m := msgs[i]
	if m.Role != conversation.RoleTool {
		return false
	}
	if m.ToolCallID == "" {
		return true
	}
	for k := u.lo; k < i; k++ {
		for _, c := range msgs[k].ToolCalls {
			if c.ID == m.ToolCallID {
				return false
			}
		}
	}
	return true
}

// size is the number of messages collect would keep from u.
func size(msgs []conversation.Record, u unit) int {
	n := 0
	for i := u.lo; i < u.hi; i++ {
		if !isOrphan(msgs, u, i) {
			n++
		}
	}
	return n
}

// DefaultWindow is the window size when none is configured
// (docs/formats.md#history-pruning): the high-water mark of the window
// strategy, in messages.
const DefaultWindow = 200

// Window keeps at most the last N messages (DefaultWindow when N ≤ 0),
// evicting down to Low messages when they pass N
// (docs/formats.md#cache-aware-eviction); a Low of 0 (or N or more) is the
// sliding window: the last N. The cut moves forward to a unit boundary, so
// fewer messages may be kept; if the last unit alone is larger than N it is
// kept whole.
type Window struct {
	N int
	// Low is the low-water mark in messages (LowMark).
	Low int
}

// Prune implements Strategy.
func (w Window) Prune(ctx context.Context, msgs []conversation.Record) ([]conversation.Record, error) {
	p, err := w.Evict(ctx, msgs)
	return p.Messages, err
}

// Evict implements Evictor.
func (w Window) Evict(_ context.Context, msgs []conversation.Record) (Pruned, error) {
	n := w.N
	if n <= 0 {
		n = DefaultWindow
	}
	us := units(msgs)
	cut, epoch := evict(unitSizes(msgs, us), n, lowOrSlide(n, w.Low))
	return Pruned{Messages: collect(msgs, us[cut:]), Settled: settled(msgs, us, epoch, w.Low, n)}, nil
}

// settled is settledAt for a strategy with marks (high, low), and 0 for
// the sliding form (low not in (0, high)), which has no settled part: it
// evicts on every message.
func settled(msgs []conversation.Record, us []unit, epoch, low, high int) int {
	if low <= 0 || low >= high {
		return 0
	}
	return settledAt(msgs, us, epoch)
}

// Tokens keeps the newest units whose tokens fit Budget, counted by Count
// (e.g. a BPE counter from engine/budget) over each message's content and
// tool call names and arguments, evicting down to Low tokens when they
// pass Budget (docs/formats.md#cache-aware-eviction; Low 0 slides: the
// newest units that fit). The last exchange (from the last user message
// to the end) is always kept, even over budget.
type Tokens struct {
	// Budget is the token budget: the high-water mark.
	Budget int
	// Low is the low-water mark in tokens (LowMark).
	Low int
	// Count returns the tokens of a text. Required.
	Count func(string) int
}

// Prune implements Strategy.
func (t Tokens) Prune(ctx context.Context, msgs []conversation.Record) ([]conversation.Record, error) {
	p, err := t.Evict(ctx, msgs)
	return p.Messages, err
}

// Evict implements Evictor.
func (t Tokens) Evict(_ context.Context, msgs []conversation.Record) (Pruned, error) {
	if t.Count == nil {
		return Pruned{}, errors.New("tokens strategy: no token counter")
	}
	us := units(msgs)
	if len(us) == 0 {
		return Pruned{}, nil
	}
	// The last exchange starts at the unit holding the last user message.
	first := len(us) - 1
	for k := len(us) - 1; k >= 0; k-- {
		if hasRole(msgs, us[k], conversation.RoleUser) {
			first = k
			break
		}
	}
	costs := make([]int, len(us))
	for j, u := range us {
		costs[j] = t.unitTokens(msgs, u)
	}
	high := max(t.Budget, 0)
	cut, epoch := evict(costs, high, lowOrSlide(high, t.Low))
	cut = min(cut, first)
	return Pruned{Messages: collect(msgs, us[cut:]), Settled: settled(msgs, us, epoch, t.Low, high)}, nil
}

func (t Tokens) unitTokens(msgs []conversation.Record, u unit) int {
	n := 0
	for i := u.lo; i < u.hi; i++ {
		if !isOrphan(msgs, u, i) {
			n += MessageTokens(msgs[i], t.Count)
		}
	}
	return n
}

// MessageTokens counts the tokens of a message's content and tool calls
// (name and arguments) with count.
func MessageTokens(m conversation.Record, count func(string) int) int {
	n := count(m.Content)
	for _, c := range m.ToolCalls {
		n += count(c.Name) + count(c.Arguments)
	}
	return n
}

func hasRole(msgs []conversation.Record, u unit, role string) bool {
	return slices.ContainsFunc(msgs[u.lo:u.hi], func(m conversation.Record) bool { return m.Role == role })
}

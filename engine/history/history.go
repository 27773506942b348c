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

// lastUnits returns the longest suffix of us whose message count stays
// within n; when even the last unit is larger, it returns that unit alone
// (a unit is never split).
func lastUnits(msgs []conversation.Record, us []unit, n int) []unit {
	total := 0
	k := len(us)
	for k > 0 {
		s := size(msgs, us[k-1])
		if total+s > n && k < len(us) {
			break
		}
		total += s
		k--
		if total >= n {
			break
		}
	}
	return us[k:]
}

// DefaultWindow is the window size when none is configured: the last 20
// messages (docs/formats.md#history-pruning).
const DefaultWindow = 20

// Window keeps the last N messages (DefaultWindow when N ≤ 0). The cut
// moves forward to a unit boundary, so fewer than N messages may be kept;
// if the last unit alone is larger than N it is kept whole.
type Window struct {
	N int
}

// Prune implements Strategy.
func (w Window) Prune(_ context.Context, msgs []conversation.Record) ([]conversation.Record, error) {
	n := w.N
	if n <= 0 {
		n = DefaultWindow
	}
	return collect(msgs, lastUnits(msgs, units(msgs), n)), nil
}

// Tokens keeps the newest units whose tokens fit Budget, counted by Count
// (e.g. a BPE counter from engine/budget) over each message's content and
// tool call names and arguments. The last exchange (from the last user
// message to the end) is always kept, even over budget.
type Tokens struct {
	// Budget is the token budget.
	Budget int
	// Count returns the tokens of a text. Required.
	Count func(string) int
}

// Prune implements Strategy.
func (t Tokens) Prune(_ context.Context, msgs []conversation.Record) ([]conversation.Record, error) {
	if t.Count == nil {
		return nil, errors.New("tokens strategy: no token counter")
	}
	us := units(msgs)
	if len(us) == 0 {
		return nil, nil
	}
	// The last exchange starts at the unit holding the last user message.
	first := len(us) - 1
	for k := len(us) - 1; k >= 0; k-- {
		if hasRole(msgs, us[k], conversation.RoleUser) {
			first = k
			break
		}
	}
	used := 0
	for k := first; k < len(us); k++ {
		used += t.unitTokens(msgs, us[k])
	}
	for first > 0 {
		c := t.unitTokens(msgs, us[first-1])
		if used+c > t.Budget {
			break
		}
		used += c
		first--
	}
	return collect(msgs, us[first:]), nil
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

package history

import (
	"context"
	"slices"

	"github.com/recite-dev/recite/planning/conversation"
)

// Cache-aware eviction (docs/formats.md#cache-aware-eviction). A provider's
// prompt cache serves only the bytes a request shares with the one before
// it, so a history that slides by one message per turn changes everything
// after the system prompt on every turn. Every strategy therefore prunes in
// steps: between two evictions the kept messages only grow at their end,
// and when they pass the strategy's high-water mark (its window, its token
// budget, its keep) they are cut, in one step, down to the low-water mark.
// The cache is written again once per eviction instead of on every message.
//
// The marks are kept without state: the cut is a function of the messages
// alone, so the same log always prunes to the same messages, and a log that
// grows prunes to a list that grows too, until the next eviction. With the
// unit costs c(0), c(1), … (messages, or tokens) and C(j) their sum before
// unit j, a list whose total C(n) passes the high-water mark H has had
// k = ⌈(C(n) − H) / D⌉ evictions, D = H − L, and keeps the units from the
// first j with C(j) ≥ k·D: at most H, and about L right after the k-th
// eviction, which happened when C first passed H + (k−1)·D. A low-water
// mark of H − 1 (D = 1) is the sliding window of old, which the zero value
// of every strategy's Low still means.

// DefaultLowWater is the share of a strategy's high-water mark that an
// eviction keeps when recite.yaml names none (history.low_water).
const DefaultLowWater = 0.5

// LowMark returns the low-water mark, in the units of high, for a share
// lowWater of it: lowWater·high rounded down, at most high − 1 and at
// least 0. A share outside (0, 1] gives DefaultLowWater; a share of 1
// gives high − 1, the sliding window.
func LowMark(high int, lowWater float64) int {
	if lowWater <= 0 || lowWater > 1 {
		lowWater = DefaultLowWater
	}
	return max(0, min(int(float64(high)*lowWater), high-1))
}

// lowOrSlide is the low-water mark a strategy uses for high: low, or
// high − 1 (the sliding window) when low is not in [0, high).
func lowOrSlide(high, low int) int {
	if low <= 0 || low >= high {
		return max(0, high-1)
	}
	return low
}

// evict returns, for units of the given costs and the marks high and low
// (low < high), the first unit kept (cut) and the number of units the list
// had when the latest eviction happened (epoch; 0 before the first). The
// last unit is always kept.
func evict(costs []int, high, low int) (cut, epoch int) {
	total := 0
	for _, c := range costs {
		total += c
	}
	if total <= high || len(costs) == 0 {
		return 0, 0
	}
	d := max(1, high-low)
	k := (total - high + d - 1) / d
	cut, epoch = -1, -1
	c := 0
	for j := 0; j <= len(costs); j++ {
		if cut < 0 && c >= k*d {
			cut = j
		}
		if epoch < 0 && c > high+(k-1)*d {
			epoch = j
		}
		if j < len(costs) {
			c += costs[j]
		}
	}
	if cut < 0 || cut >= len(costs) {
		cut = len(costs) - 1
	}
	if epoch < 0 {
		epoch = len(costs)
	}
	return cut, epoch
}

// Pruned is what a strategy keeps of a list of messages, and how much of
// the list is settled.
type Pruned struct {
	// Messages are the kept messages, oldest first.
	Messages []conversation.Record
	// Settled is how many of the input's messages, from its start, the
	// list held at the latest eviction (0 before the first, and for the
	// sliding strategies of old). What is settled is fixed until the next
	// eviction: the tools block is built from the tools the settled
	// messages called (SettledTools), so it changes only at an eviction.
	Settled int
}

// Evictor is a Strategy that also says how much of its input is settled.
// Every strategy of this package is one.
type Evictor interface {
	Strategy
	Evict(ctx context.Context, msgs []conversation.Record) (Pruned, error)
}

// Run prunes msgs with s: s.Evict when s is an Evictor, else s.Prune with
// nothing settled.
func Run(ctx context.Context, s Strategy, msgs []conversation.Record) (Pruned, error) {
	if e, ok := s.(Evictor); ok {
		return e.Evict(ctx, msgs)
	}
	kept, err := s.Prune(ctx, msgs)
	return Pruned{Messages: kept}, err
}

// settledAt is the message index where unit epoch of us starts (len(msgs)
// past the last unit).
func settledAt(msgs []conversation.Record, us []unit, epoch int) int {
	if epoch <= 0 {
		return 0
	}
	if epoch >= len(us) {
		return len(msgs)
	}
	return us[epoch].lo
}

// SettledTools returns the names of the tools the messages call, once each
// and sorted, as recorded (the renderers make them valid function names).
// Given the settled messages of a Pruned, it is the tool set of a tools
// block that changes only at an eviction (docs/providers.md#a-stable-tools-block).
func SettledTools(msgs []conversation.Record) []string {
	var out []string
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			if !slices.Contains(out, c.Name) {
				out = append(out, c.Name)
			}
		}
	}
	slices.Sort(out)
	return out
}

// unitSizes returns the message count of each unit of us.
func unitSizes(msgs []conversation.Record, us []unit) []int {
	out := make([]int, len(us))
	for j, u := range us {
		out[j] = size(msgs, u)
	}
	return out
}

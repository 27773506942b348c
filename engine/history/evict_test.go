package history

import (
	"context"
	"fmt"

	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/recite-dev/recite/planning/conversation"
)

// TestEvictMarks: evict keeps the list growing between evictions and cuts
// it to about the low-water mark when it passes the high-water mark.
func TestEvictMarks(t *testing.T) {
	costs := []int{}
	prevCut, evictions := 0, 0
	for n := 1; n <= 100; n++ {
		costs = append(costs, 1)
		cut, epoch := evict(costs, 10, 5)
		kept := n - cut
		if kept > 10 {
			t.Fatalf("n=%d: kept %d, over the high-water mark 10", n, kept)
		}
		if cut != prevCut {
			evictions++
			if kept != 6 {
				t.Errorf("n=%d: an eviction kept %d, want the low-water mark 5 and the message that passed the high-water mark", n, kept)
			}
			if epoch != n {
				t.Errorf("n=%d: epoch %d, want the eviction's length %d", n, epoch, n)
			}
		}
		prevCut = cut
	}
	// 100 messages, evicting at 11 and every 5 after it: 18 evictions, not
	// 90 as a sliding window would.
	if evictions != 18 {
		t.Errorf("%d evictions over 100 messages, want 18", evictions)
	}
}

func TestLowMark(t *testing.T) {
	for _, tt := range []struct {
		high int
		lw   float64
		want int
	}{{20, 0.5, 10}, {20, 1, 19}, {20, 0, 10}, {1, 0.5, 0}, {7, 0.5, 3}, {20, 2, 10}} {
		if got := LowMark(tt.high, tt.lw); got != tt.want {
			t.Errorf("LowMark(%d, %v) = %d, want %d", tt.high, tt.lw, got, tt.want)
		}
	}
}

// grow replays msgs one message at a time through s and returns, for each
// step, the kept messages' ids.
func grow(t *testing.T, s Strategy, msgs []conversation.Record) [][]string {
	t.Helper()
	var out [][]string
	for n := 1; n <= len(msgs); n++ {
		p, err := Run(context.Background(), s, msgs[:n])
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, m := range p.Messages {
			ids = append(ids, m.ID)
		}
		out = append(out, ids)
	}
	return out
}

// TestEveryStrategyAppendsBetweenEvictions: for each strategy with marks,
// the kept list of step n+1 starts with the kept list of step n (it only
// grows at its end) except at evictions, which are rare, and the summary
// message is the same between evictions.
func TestEveryStrategyAppendsBetweenEvictions(t *testing.T) {
	var script []string
	for i := range 120 {
		switch i % 6 {
		case 0:
			script = append(script, "u")
		case 1, 4:
			script = append(script, "c:"+string(rune('a'+i%26))+strings.Repeat("x", i%3))
		case 2, 5:
			script = append(script, "r:"+string(rune('a'+(i-1)%26))+strings.Repeat("x", (i-1)%3))
		default:
			script = append(script, "a")
		}
	}
	msgs := conv(strings.Join(script, " "))
	count := func(s string) int { return len(s) }
	for name, s := range map[string]Strategy{
		"window":     Window{N: 20, Low: 10},
		"tokens":     Tokens{Budget: 200, Low: 100, Count: count},
		"summary":    Summary{Keep: 20, Low: 10},
		"importance": Importance{K: 20, Low: 10},
	} {
		t.Run(name, func(t *testing.T) {
			steps := grow(t, s, msgs)
			evictions := 0
			for n := 1; n < len(steps); n++ {
				prev, next := steps[n-1], steps[n]
				if len(next) >= len(prev) && slices.Equal(next[:len(prev)], prev) {
					continue
				}
				evictions++
			}
			if evictions == 0 || evictions > len(msgs)/8 {
				t.Errorf("%d evictions over %d messages", evictions, len(msgs))
			}
		})
	}
	// The sliding form (no Low) changes the start on almost every step.
	steps := grow(t, Window{N: 20}, msgs)
	slides := 0
	for n := 1; n < len(steps); n++ {
		if steps[n][0] != steps[n-1][0] {
			slides++
		}
	}
	if slides < len(msgs)/2 {
		t.Errorf("the sliding window moved its start %d times over %d messages", slides, len(msgs))
	}
}

// TestSettledTools: the tools of the settled part change only at an
// eviction, and never shrink between two.
func TestSettledTools(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	var msgs []conversation.Record
	names := []string{"Read", "Bash", "Edit", "Grep", "Write", "Glob"}
	for i := range 300 {
		id := fmt.Sprintf("m%03d", i)
		if i%2 == 0 {
			msgs = append(msgs, conversation.Record{ID: id, Kind: conversation.KindMessage, Role: conversation.RoleAssistant,
				ToolCalls: []conversation.ToolCall{{ID: "t" + id, Name: names[rng.IntN(len(names))], Arguments: "{}"}}})
		} else {
			msgs = append(msgs, conversation.Record{ID: id, Kind: conversation.KindMessage, Role: conversation.RoleTool, ToolCallID: "t" + msgs[i-1].ID, Content: "ok"})
		}
	}
	w := Window{N: 40, Low: 20}
	var prev []string
	changes := 0
	for n := 1; n <= len(msgs); n++ {
		p, _ := w.Evict(context.Background(), msgs[:n])
		tools := SettledTools(msgs[:p.Settled])
		if !slices.Equal(tools, prev) {
			changes++
			for _, old := range prev {
				if !slices.Contains(tools, old) {
					t.Fatalf("n=%d: tool %s left the block", n, old)
				}
			}
		}
		prev = tools
	}
	if changes == 0 || changes > 15 {
		t.Errorf("the tools block changed %d times over 300 messages", changes)
	}
}

// TestAnchor: the history's start moves only every AnchorStep messages of
// the log.
func TestAnchor(t *testing.T) {
	for _, tt := range []struct{ earlier, want int }{{0, 0}, {1, 255}, {255, 1}, {256, 0}, {257, 255}} {
		if got := Anchor(tt.earlier); got != tt.want {
			t.Errorf("Anchor(%d) = %d, want %d", tt.earlier, got, tt.want)
		}
	}
	starts := map[int]bool{}
	for e := 1; e <= 1024; e++ {
		starts[e+Anchor(e)] = true
	}
	if len(starts) != 4 {
		t.Errorf("1024 horizon positions gave %d history starts, want 4", len(starts))
	}
}

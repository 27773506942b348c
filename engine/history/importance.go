package history

import (
	"cmp"
	"context"
	"regexp"
	"slices"
	"strings"

	"github.com/recite-dev/recite/planning/conversation"
)

// DefaultTopK is how many messages Importance keeps when K is 0
// (docs/formats.md#history-pruning): the window's size, so that its
// evictions, at most one every (K − Low) messages, stay rare
// (docs/formats.md#cache-aware-eviction).
const DefaultTopK = 200

// Scores of the importance rule (docs/formats.md#history-pruning). The first
// three come from the conversation coordinator design recite started from;
// CorrectionScore is recite's own.
const (
	FilesScore      = 10 // the message created or modified files
	ConfidenceScore = 5  // confidence > 0.9
	ErrorScore      = 8  // "error" or "bug" in the content, or a failed tool result
	// CorrectionScore scores a user message that corrects the assistant: a
	// user message right after an assistant message that opens with "no",
	// "wrong", "stop", "don't", "not that", "actually", "that's not",
	// "instead" or "revert". Corrections score as high as errors because the
	// latest correction is what compaction most often drops
	// (docs/providers.md#what-compaction-loses;
	// https://github.com/anthropics/claude-code/issues/22376,
	// https://github.com/anthropics/claude-code/issues/36068).
	CorrectionScore = 8
)

var correction = regexp.MustCompile(`(?i)^\W*(no\b|nope\b|wrong\b|stop\b|don'?t\b|do not\b|not that\b|actually\b|that'?s not\b|that is not\b|instead\b|revert\b|undo\b)`)

// Score is the importance of message i of msgs by the rule above.
func Score(msgs []conversation.Record, i int) int {
	m := msgs[i]
	s := 0
	if len(m.FilesModified) > 0 {
		s += FilesScore
	}
	if m.Confidence != nil && *m.Confidence > 0.9 {
		s += ConfidenceScore
	}
	lc := strings.ToLower(m.Content)
	if m.IsError || strings.Contains(lc, "error") || strings.Contains(lc, "bug") {
		s += ErrorScore
	}
	if m.Role == conversation.RoleUser && i > 0 && msgs[i-1].Role == conversation.RoleAssistant && correction.MatchString(m.Content) {
		s += CorrectionScore
	}
	return s
}

// Importance keeps the K most important messages (DefaultTopK when ≤ 0) in
// their original order. A unit's score is the highest score of its
// messages; units are taken by score, ties to the newer, while their
// messages fit in K (a unit that does not fit is passed over for smaller
// ones). When even the best unit is larger than K it is kept alone.
//
// With Low, the kept set is fixed between evictions
// (docs/formats.md#cache-aware-eviction): at the latest eviction (when the
// messages passed K, then K + (K − Low), …) the Low most important
// messages of the list as it was then are chosen, and every message after
// that point is kept as it comes, until the next eviction; Low 0, or K − 1
// and more (an eviction on every message: low_water 1), ranks the whole
// list on every call.
type Importance struct {
	K int
	// Low is the low-water mark in messages (LowMark).
	Low int
	// Score overrides the scoring rule; nil means [Score].
	Score func(msgs []conversation.Record, i int) int
}

// Prune implements Strategy.
func (p Importance) Prune(ctx context.Context, msgs []conversation.Record) ([]conversation.Record, error) {
	r, err := p.Evict(ctx, msgs)
	return r.Messages, err
}

// Evict implements Evictor.
func (p Importance) Evict(_ context.Context, msgs []conversation.Record) (Pruned, error) {
	k := p.K
	if k <= 0 {
		k = DefaultTopK
	}
	us := units(msgs)
	if p.Low <= 0 || p.Low >= k-1 {
		return Pruned{Messages: collect(msgs, p.top(msgs, us, k))}, nil
	}
	_, epoch := evict(unitSizes(msgs, us), k, p.Low)
	if epoch == 0 {
		return Pruned{Messages: collect(msgs, us)}, nil
	}
	keep := append(p.top(msgs, us[:epoch], p.Low), us[epoch:]...)
	return Pruned{Messages: collect(msgs, keep), Settled: settledAt(msgs, us, epoch)}, nil
}

// top returns the units of us (in order) that the importance rule keeps
// within k messages.
func (p Importance) top(msgs []conversation.Record, us []unit, k int) []unit {
	score := p.Score
	if score == nil {
		score = Score
	}
	type ranked struct{ idx, score, size int }
	rs := make([]ranked, len(us))
	for j, u := range us {
		best := 0
		for i := u.lo; i < u.hi; i++ {
			best = max(best, score(msgs, i))
		}
		rs[j] = ranked{j, best, size(msgs, u)}
	}
	slices.SortStableFunc(rs, func(a, b ranked) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(b.idx, a.idx)
	})
	var chosen []int
	total := 0
	for _, r := range rs {
		if total+r.size > k {
			continue
		}
		total += r.size
		chosen = append(chosen, r.idx)
	}
	if len(chosen) == 0 && len(rs) > 0 {
		chosen = []int{rs[0].idx}
	}
	slices.Sort(chosen)
	keep := make([]unit, len(chosen))
	for j, c := range chosen {
		keep[j] = us[c]
	}
	return keep
}

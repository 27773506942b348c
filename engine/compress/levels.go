package compress

import "fmt"

// Level is a budget level, the share of the budget a prompt uses
// (docs/formats.md#budget-levels).
type Level int

// The budget levels.
const (
	// Green is below 50%: nothing to do.
	Green Level = iota
	// Yellow is 50–70%: WARM segments are compressed to 50%.
	Yellow
	// Orange is 70–85%: COLD segments are evicted and WARM ones compressed
	// to 30%.
	Orange
	// Red is 85% and over: only HOT and pinned segments are kept, and a
	// handoff is recommended.
	Red
)

// String returns GREEN, YELLOW, ORANGE or RED.
func (l Level) String() string { return [...]string{"GREEN", "YELLOW", "ORANGE", "RED"}[l] }

// MarshalText makes a Level read as its name in JSON.
func (l Level) MarshalText() ([]byte, error) { return []byte(l.String()), nil }

// Level bounds, in percent of the budget.
const (
	yellowAt = 50
	orangeAt = 70
	redAt    = 85
)

// LevelOf returns the level of tokens against budget (tokens); a budget of
// 0 or less is Green.
func LevelOf(tokens, budget int) Level {
	if budget <= 0 {
		return Green
	}
	pct := tokens * 100 / budget
	switch {
	case pct >= redAt:
		return Red
	case pct >= orangeAt:
		return Orange
	case pct >= yellowAt:
		return Yellow
	}
	return Green
}

// floorOf is the share a level's actions aim to bring the prompt under:
// the level's lower bound.
func floorOf(l Level) int {
	switch l {
	case Yellow:
		return yellowAt
	case Orange:
		return orangeAt
	case Red:
		return redAt
	}
	return 100
}

// Applied is what a budget level did.
type Applied struct {
	Level Level `json:"level"`
	// Budget is the token budget the level was measured against: the
	// target's budget, else the context window.
	Budget int `json:"budget"`
	// Before and After are the segment totals in tokens.
	Before int `json:"before"`
	After  int `json:"after"`
	// Actions say what was done, in order: "msg:ID: WARM to 50% (812 → 390
	// tokens)".
	Actions []string `json:"actions,omitempty"`
	// Handoff is set at RED: the context should be handed to a fresh
	// session.
	Handoff bool `json:"handoff,omitempty"`
}

// ApplyLevel applies the actions of the level that total (the whole
// prompt's tokens) reaches against budget to the outcomes of a pass:
// YELLOW compresses WARM segments to 50%; ORANGE evicts COLD segments (one
// line each) and compresses WARM ones to 30%; RED evicts everything that is
// not HOT. Pinned segments (LevelPinned: the stable tier, the recitation,
// the preserved block and stop signals) are never touched, whatever the
// level, so the prompt can stay over budget when they alone exceed it; the
// caller reports that. The other segments are visited from the dynamic end
// backwards (dynamic tier, then semi, each from its last segment), and the
// actions stop as soon as the prompt is below the level's lower bound.
// segs and outs are parallel (Compress's input and output); outs is
// changed in place.
func ApplyLevel(segs []Segment, outs []Outcome, total, budget int, count Counter) Applied {
	lvl := LevelOf(total, budget)
	a := Applied{Level: lvl, Budget: budget, Before: total, After: total, Handoff: lvl == Red}
	if lvl == Green {
		return a
	}
	floor := budget * floorOf(lvl) / 100
	order := visitOrder(segs)
	// ORANGE and RED evict COLD first, over the whole prompt, then act on
	// WARM; YELLOW only compresses WARM.
	var steps []step
	switch lvl {
	case Yellow:
		steps = []step{{Warm, 0.5}}
	case Orange:
		steps = []step{{Cold, 0}, {Warm, 0.3}}
	case Red:
		steps = []step{{Cold, 0}, {Warm, 0}}
	}
	for _, st := range steps {
		for _, i := range order {
			if a.After < floor {
				return a
			}
			o := &outs[i]
			if LevelPinned(segs[i]) || o.Heat != st.heat || o.Text == "" {
				continue
			}
			var text, what string
			if st.keep == 0 {
				text = OneLine("[evicted at "+lvl.String()+"]", o.Text)
				what = "evicted"
			} else {
				text = Extract(o.Text, st.keep, segs[i].Code, count)
				what = fmt.Sprintf("%s to %d%%", st.heat, int(st.keep*100))
			}
			after := count(text)
			if after >= o.After {
				continue
			}
			a.Actions = append(a.Actions, fmt.Sprintf("%s: %s (%d → %d tokens)", o.Key, what, o.After, after))
			a.After -= o.After - after
			o.Text, o.After, o.Action = text, after, what+" at "+lvl.String()
		}
	}
	return a
}

// step is one level action: segments of a heat kept to a share of their
// tokens (0 evicts them to one line).
type step struct {
	heat Heat
	keep float64
}

// visitOrder lists segment indexes from the dynamic end backwards: tier 2,
// then 1, then 0, each from its last segment to its first. (ApplyLevel
// skips the stable tier's, which are pinned.)
func visitOrder(segs []Segment) []int {
	var out []int
	for tier := 2; tier >= 0; tier-- {
		for i := len(segs) - 1; i >= 0; i-- {
			if segs[i].Tier == tier {
				out = append(out, i)
			}
		}
	}
	return out
}

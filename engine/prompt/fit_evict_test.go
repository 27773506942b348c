package prompt

import (
	"fmt"
	"strings"
	"testing"
)

// TestFitEvictsInSteps: when the messages pass the room the budget leaves
// them, Fit drops the oldest down to LowWater of it in one step and then
// keeps its cut while the messages grow, so the bytes before the last
// message stay the same until the next cut; every fitted prompt is within
// the budget.
func TestFitEvictsInSteps(t *testing.T) {
	stepped, sliding := fitCuts(t, 0.5), fitCuts(t, 1)
	// About 3,750 tokens of room and 40 tokens a message: a cut every
	// ~45 messages; a sliding cut (low water 1) moves with every 64th of
	// the budget the messages grow.
	if stepped == 0 || stepped > 15 || sliding < 50 {
		t.Errorf("%d cuts over 400 messages (sliding: %d)", stepped, sliding)
	}
}

// fitCuts grows a conversation to 400 messages, fits each step to a
// budget with lowWater, and counts the steps whose first kept message
// changed.
func fitCuts(t *testing.T, lowWater float64) int {
	count := func(s string) int { return len(s) / 4 }
	const budget = 4000
	var msgs []Message
	prevFirst, cuts := "", 0
	for i := range 400 {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs = append(msgs, Message{ID: fmt.Sprintf("m%03d", i), Role: role, Content: strings.Repeat(fmt.Sprintf("word%d ", i), 5+i%13)})
		p := &Prompt{Target: "t", LowWater: lowWater}
		p.Add(Section{ID: IDSystem, Heading: "System prompt", Body: strings.Repeat("rule ", 200)})
		p.Messages = append([]Message(nil), msgs...)
		p.Add(Section{ID: IDConversation, Heading: "Conversation"})
		p.Add(Section{ID: IDRecitation, Heading: "Recitation", Body: "- the task"})
		if total := p.Fit(count, budget); total > budget {
			t.Fatalf("%d messages: %d tokens over the budget of %d", i+1, total, budget)
		}
		first := p.Messages[0].ID
		if first != prevFirst && prevFirst != "" {
			cuts++
		}
		prevFirst = first
	}
	return cuts
}

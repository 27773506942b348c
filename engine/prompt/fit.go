package prompt

import (
	"fmt"
)

// Counter counts tokens in a text (engine/budget.Counter.Count).
type Counter func(string) int

// Count sets every section's Tokens and returns the prompt's total in
// tokens: the sum over sections of their markdown text, the conversation
// counted as its transcript.
func (p *Prompt) Count(count Counter) int {
	total := 0
	for i := range p.Sections {
		s := &p.Sections[i]
		if s.ID == IDConversation {
			s.Tokens = count("## "+s.Heading+"\n\n") + messagesTokens(p.Messages, count)
		} else {
			s.Tokens = count(s.Text())
		}
		total += s.Tokens
	}
	return total
}

// messagesTokens returns the tokens of msgs, each counted as its
// transcript, and sets each message's Tokens.
func messagesTokens(msgs []Message, count Counter) int {
	n := 0
	for i := range msgs {
		msgs[i].Tokens = count(transcript([]Message{msgs[i]}, "%s"))
		n += msgs[i].Tokens
	}
	return n
}

// Fit shortens p until its token total is at most budget, by these rules, in
// order, stopping as soon as the prompt fits, and records each cut in
// p.Cuts:
//
//  1. the conversation loses its oldest messages, a tool call always
//     together with its results
//     (docs/architecture.md#tool-calls-keep-their-results), keeping at
//     least the last message group; it loses them in steps, as the
//     history strategies evict (docs/formats.md#cache-aware-eviction):
//     down to LowWater of the room the other sections leave, at a cut that
//     stays where it is while the messages grow, until they pass the room
//     again (conversationCut);
//  2. dynamic sections that are not pinned (recent errors; their shorter
//     forms keep every stop signal), then semi-stable sections from the
//     last one back (health, state, files: the files keep their head and
//     tail), take their shorter forms; a shorter form that is not shorter
//     than the current body (a compression pass already shrank it) is
//     skipped;
//  3. only when every shorter form was not enough, semi-stable sections
//     are dropped, last first, until the prompt fits.
//
// The stable prefix, the recitation and the preservation block are pinned
// and never cut. Fit returns the final total; it can stay above budget
// when the pinned sections alone exceed it.
func (p *Prompt) Fit(count Counter, budget int) int {
	total := p.Count(count)
	if total <= budget {
		return total
	}
	// 1. Conversation.
	if conv := p.Section(IDConversation); conv != nil {
		msgTokens := 0
		for _, m := range p.Messages {
			msgTokens += m.Tokens
		}
		dropped, droppedTokens := p.conversationCut(budget-(total-msgTokens), budget)
		if dropped > 0 {
			p.Cuts = append(p.Cuts, fmt.Sprintf("conversation: dropped the %d oldest messages (%d tokens)", dropped, droppedTokens))
			total = p.Count(count)
		}
	}
	// 2. Shorter forms of unpinned sections, dynamic first, then semi from
	// the last one back.
	var candidates []string
	for i := len(p.Sections) - 1; i >= 0; i-- {
		if s := p.Sections[i]; !s.Pinned && s.ID != IDConversation && s.Tier == Dynamic {
			candidates = append(candidates, s.ID)
		}
	}
	for i := len(p.Sections) - 1; i >= 0; i-- {
		if s := p.Sections[i]; !s.Pinned && s.Tier == Semi {
			candidates = append(candidates, s.ID)
		}
	}
	for _, id := range candidates {
		s := p.Section(id)
		orig, note := s.Tokens, ""
		for k := 0; total > budget && k < len(s.Shorter); k++ {
			before := s.Tokens
			body := s.Body
			s.Body = s.Shorter[k]
			after := count(s.Text())
			if after >= before {
				s.Body = body
				continue
			}
			s.Tokens = after
			total += after - before
			note = "shortened"
			if k < len(s.ShorterNotes) {
				note = s.ShorterNotes[k]
			}
		}
		// One cut per section: the form kept and the saving against the
		// body Fit started from.
		if note != "" {
			p.Cuts = append(p.Cuts, fmt.Sprintf("%s: %s (%d tokens saved)", s.ID, note, orig-s.Tokens))
		}
	}
	// 3. Drop semi-stable sections, last first.
	for _, id := range candidates {
		if total <= budget {
			break
		}
		s := p.Section(id)
		if s.Tier != Semi {
			continue
		}
		total -= s.Tokens
		p.Cuts = append(p.Cuts, fmt.Sprintf("%s: dropped (%d tokens)", s.ID, s.Tokens))
		for i := range p.Sections {
			if p.Sections[i].ID == id {
				p.Sections = append(p.Sections[:i], p.Sections[i+1:]...)
				break
			}
		}
	}
	return total
}

// conversationCut drops the oldest message groups of p so that its
// messages fit room tokens, as an eviction (docs/formats.md#cache-aware-eviction):
// with the groups' tokens G(0), G(1), … and C(j) their sum before group j,
// messages of C(n) tokens over the room have been cut k = ⌈(C(n) − room) /
// D⌉ times, D the room less its LowWater share rounded down to a 64th of
// budget (so that a room that changes by a few tokens keeps the same step),
// and keep the groups from the first j with C(j) ≥ k·D. The cut moves only
// when the messages pass the room again, so the bytes before the last
// message stay the same from one cut to the next. The last group is always
// kept. It returns how many messages and tokens it dropped.
func (p *Prompt) conversationCut(room, budget int) (dropped, droppedTokens int) {
	groups := messageGroups(p.Messages)
	if len(groups) < 2 {
		return 0, 0
	}
	costs := make([]int, len(groups))
	total, at := 0, 0
	for j, g := range groups {
		for _, m := range p.Messages[at : at+g] {
			costs[j] += m.Tokens
		}
		at += g
		total += costs[j]
	}
	if total <= room {
		return 0, 0
	}
	lw := p.LowWater
	if lw <= 0 || lw > 1 {
		lw = 0.5
	}
	q := max(1, budget/64)
	d := max(q, int(float64(max(room, 0))*(1-lw))/q*q)
	k := (total - max(room, 0) + d - 1) / d
	cut, c := len(groups)-1, 0
	for j := range groups {
		if c >= k*d {
			cut = j
			break
		}
		c += costs[j]
	}
	for _, g := range groups[:cut] {
		dropped += g
	}
	for _, m := range p.Messages[:dropped] {
		droppedTokens += m.Tokens
	}
	p.Messages = p.Messages[dropped:]
	return dropped, droppedTokens
}

// messageGroups splits msgs into units that must stay together: an
// assistant message with tool calls, the assistant messages with more calls
// right after it (parallel calls recorded one per message) and the tool
// results that follow them, or a single message. It returns the size of
// each group.
func messageGroups(msgs []Message) []int {
	var groups []int
	for i := 0; i < len(msgs); {
		j := i + 1
		if msgs[i].Role == "assistant" && len(msgs[i].ToolCalls) > 0 {
			for j < len(msgs) && (msgs[j].Role == "tool" || msgs[j].Role == "assistant" && len(msgs[j].ToolCalls) > 0 && msgs[j].Content == "" && msgs[j-1].Role == "assistant") {
				j++
			}
		}
		groups = append(groups, j-i)
		i = j
	}
	return groups
}

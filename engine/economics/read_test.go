package economics

import (
	"fmt"
	"testing"

	"github.com/recite-dev/recite/engine/prompt"
)

// turn renders an anthropic body of a conversation of n messages, with
// the renderer's breakpoints (stable tier and the last stable block), and
// the token offsets of those breakpoints.
func turn(t *testing.T, n int, system string) ([]byte, []int, int) {
	t.Helper()
	p := &prompt.Prompt{Target: "t"}
	p.Add(prompt.Section{ID: prompt.IDSystem, Heading: "System prompt", Body: system})
	for i := range n {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		p.Messages = append(p.Messages, prompt.Message{ID: fmt.Sprint(i), Role: role, Content: fmt.Sprintf("message %d of the conversation, long enough to count", i)})
	}
	p.Add(prompt.Section{ID: prompt.IDConversation, Heading: "Conversation"})
	p.Add(prompt.Section{ID: prompt.IDRecitation, Heading: "Recitation", Body: "- the task"})
	words := func(s string) int { return len(s) / 4 }
	total := p.Count(words)
	opts := prompt.RenderOptions{Override: prompt.LimitOverride{MinCacheable: new(int)}}
	body, err := prompt.Render(p, prompt.Anthropic, opts)
	if err != nil {
		t.Fatal(err)
	}
	return body, prompt.AnthropicBreakpoints(p, opts), total
}

// TestAnthropicReadMovingBreakpoint: the conversation's breakpoint moves
// to the new last block on every turn, so the read is what the previous
// request's breakpoint wrote (the whole previous conversation), not a
// breakpoint of the new body; a change of the system prompt reads
// nothing; a turn that adds more blocks than the lookback reads only up to
// the system prompt's breakpoint.
func TestAnthropicReadMovingBreakpoint(t *testing.T) {
	prev, _, _ := turn(t, 10, "You are the implementer.")
	next, at, tokens := turn(t, 11, "You are the implementer.")
	r := AnthropicRead(prev, next, tokens, at)
	if r.Breakpoints != 2 || r.Tokens == 0 || r.Tokens <= at[0] || r.Tokens >= at[1] {
		t.Fatalf("read %+v with breakpoints at %v tokens: want a read past the system prompt, before the new last block", r, at)
	}
	nb, newMarks := StripMarkers(next)
	ob, oldMarks := StripMarkers(prev)
	if string(nb[:oldMarks[1]]) != string(ob[:oldMarks[1]]) || r.Bytes != oldMarks[1] || newMarks[1] <= oldMarks[1] {
		t.Errorf("read %d bytes, want the previous conversation's %d", r.Bytes, oldMarks[1])
	}
	// Outlook: cached when the read reaches the minimum.
	if ce := Outlook(prompt.CacheBreakpoints, 1, prev, next, 0, tokens, at); ce.CachedTokens != r.Tokens || ce.Caching != "breakpoints" {
		t.Errorf("outlook %+v, want the read of %d tokens", ce, r.Tokens)
	}
	if ce := Outlook(prompt.CacheBreakpoints, r.Tokens+1, prev, next, 0, tokens, at); ce.CachedTokens != 0 {
		t.Errorf("a read under the minimum predicted %d", ce.CachedTokens)
	}
	other, oat, otokens := turn(t, 11, "You are the reviewer.")
	if r := AnthropicRead(prev, other, otokens, oat); r.Tokens != 0 {
		t.Errorf("a new system prompt still reads %+v", r)
	}
	far, fat, ftokens := turn(t, 40, "You are the implementer.")
	if r := AnthropicRead(prev, far, ftokens, fat); r.Tokens != fat[0] {
		t.Errorf("30 new blocks: read %d tokens, want only the system prompt's %d (the lookback is %d blocks)", r.Tokens, fat[0], AnthropicLookback)
	}
}

// TestTokensAt: exact at the known points, proportional between them.
func TestTokensAt(t *testing.T) {
	for _, tt := range []struct{ b, want int }{{0, 0}, {50, 5}, {100, 10}, {150, 55}, {200, 100}, {300, 200}, {400, 200}} {
		if got := TokensAt(tt.b, 300, 200, []int{100, 200}, []int{10, 100}); got != tt.want {
			t.Errorf("TokensAt(%d) = %d, want %d", tt.b, got, tt.want)
		}
	}
}

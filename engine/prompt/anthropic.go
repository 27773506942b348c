package prompt

import (
	"encoding/json"
	"strings"
)

// Anthropic Messages API bodies, https://docs.anthropic.com/en/api/messages.

type cacheControl struct {
	Type string `json:"type"`
}

type anthropicBlock struct {
	// unstable marks a block the next request will change (a placeholder
	// result): no cache breakpoint goes on it.
	unstable     bool
	Type         string           `json:"type"`
	Text         string           `json:"text,omitempty"`
	ID           string           `json:"id,omitempty"`
	Name         string           `json:"name,omitempty"`
	Input        json.RawMessage  `json:"input,omitempty"`
	ToolUseID    string           `json:"tool_use_id,omitempty"`
	Content      []anthropicBlock `json:"content,omitempty"`
	IsError      bool             `json:"is_error,omitempty"`
	CacheControl *cacheControl    `json:"cache_control,omitempty"`
}

type anthropicMessage struct {
	Role    string           `json:"role"`
	Content []anthropicBlock `json:"content"`
}

type anthropicTool struct {
	Name        string          `json:"name"`
	InputSchema json.RawMessage `json:"input_schema"`
}

type anthropicRequest struct {
	Model     string             `json:"model"`
	MaxTokens int                `json:"max_tokens"`
	Tools     []anthropicTool    `json:"tools,omitempty"`
	System    []anthropicBlock   `json:"system,omitempty"`
	Messages  []anthropicMessage `json:"messages"`
}

// AnthropicMaxBreakpoints is the most cache_control markers one Messages
// API request may carry
// (https://docs.anthropic.com/en/docs/build-with-claude/prompt-caching).
const AnthropicMaxBreakpoints = 4

// permissiveSchema is the input_schema written for a tool the
// conversation replays: recite records calls, not tool definitions, and
// the Messages API rejects a tool_use block whose tool is not in "tools".
// An object schema with no properties accepts any recorded input.
var permissiveSchema = json.RawMessage(`{"type":"object"}`)

// continueText is the user turn that follows a final assistant turn when
// prefill is not configured, and the only turn of an empty prompt.
const continueText = "Continue with the next task."

// anthropicBody renders p as a Messages API body: "model" and "max_tokens"
// first (both required); "tools" with one permissive definition
// (permissiveSchema) per tool of the prompt's fixed tools block
// (toolBlock; a call to another tool is written as text, flattenCalls),
// or without one per tool name the conversation replays, in order of first
// use, whenever there is a tool_use block; a top-level "system" of text blocks,
// one per non-empty stable and semi tier (left out when both are empty);
// messages starting with a user turn, consecutive same-role turns merged,
// tool_result blocks first in their turn, the dynamic sections as the last
// user text block. Cache breakpoints (AnthropicBreakpoints) go on the last
// block of the stable tier, of the semi tier and on the last stable block
// of the conversation (lastStableBlock), each
// only when the prefix it closes reaches the model's minimum cacheable
// length; the dynamic sections change on every build and are never marked.
// The body ends on a user turn unless opts.Prefill.
func anthropicBody(p *Prompt, opts RenderOptions) anthropicRequest {
	req := anthropicRequest{Model: opts.model(Anthropic), MaxTokens: opts.maxTokens(), Messages: []anthropicMessage{}}
	marks := breakpointTiers(p, opts.limit(Anthropic).MinCacheable)
	eph := func(on bool) *cacheControl {
		if on {
			return &cacheControl{Type: "ephemeral"}
		}
		return nil
	}
	if s := p.TierText(Stable); s != "" {
		req.System = append(req.System, anthropicBlock{Type: "text", Text: s, CacheControl: eph(marks[Stable])})
	}
	if s := p.TierText(Semi); s != "" {
		req.System = append(req.System, anthropicBlock{Type: "text", Text: s, CacheControl: eph(marks[Semi])})
	}
	var msgs []anthropicMessage
	add := func(role string, blocks ...anthropicBlock) {
		if n := len(msgs); n > 0 && msgs[n-1].Role == role {
			last := &msgs[n-1]
			// tool_result blocks must come first in a user turn.
			var results, rest []anthropicBlock
			for _, b := range append(last.Content, blocks...) {
				if b.Type == "tool_result" {
					results = append(results, b)
				} else {
					rest = append(rest, b)
				}
			}
			last.Content = append(results, rest...)
			return
		}
		msgs = append(msgs, anthropicMessage{Role: role, Content: blocks})
	}
	block, inBlock := toolBlock(p)
	for _, name := range block {
		req.Tools = append(req.Tools, anthropicTool{Name: name, InputSchema: permissiveSchema})
	}
	seen := map[string]bool{}
	for _, m := range pairTools(flattenCalls(p.Messages, inBlock)) {
		switch m.Role {
		case "assistant":
			var blocks []anthropicBlock
			// The Messages API rejects a text block of white space alone.
			if strings.TrimSpace(m.Content) != "" {
				blocks = append(blocks, anthropicBlock{Type: "text", Text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				name := toolName(tc.Name)
				if !seen[name] && inBlock == nil {
					seen[name] = true
					req.Tools = append(req.Tools, anthropicTool{Name: name, InputSchema: permissiveSchema})
				}
				blocks = append(blocks, anthropicBlock{Type: "tool_use", ID: toolID(tc.ID), Name: name, Input: argsObject(tc.Arguments)})
			}
			if len(blocks) == 0 {
				blocks = append(blocks, anthropicBlock{Type: "text", Text: "(empty)"})
			}
			add("assistant", blocks...)
		case "tool":
			// The result's text goes in a text block (the SDK types take no
			// string content); an empty result has no content.
			b := anthropicBlock{Type: "tool_result", ToolUseID: toolID(m.ToolCallID), IsError: m.IsError, unstable: m.placeholder}
			if strings.TrimSpace(m.Content) != "" {
				b.Content = []anthropicBlock{{Type: "text", Text: m.Content}}
			}
			add("user", b)
		default: // user, and system messages inside a conversation
			text := m.Content
			if m.Role == "system" {
				text = "[system] " + text
			}
			add("user", anthropicBlock{Type: "text", Text: nonEmpty(text)})
		}
	}
	if b := lastStableBlock(msgs); b != nil && marks[Dynamic] {
		b.CacheControl = eph(true)
	}
	if dyn := p.DynamicContext(); dyn != "" {
		add("user", anthropicBlock{Type: "text", Text: dyn})
	}
	if len(msgs) > 0 && msgs[0].Role != "user" {
		msgs = append([]anthropicMessage{{Role: "user", Content: []anthropicBlock{{Type: "text", Text: "(conversation continues)"}}}}, msgs...)
	}
	if n := len(msgs); n == 0 || msgs[n-1].Role == "assistant" && !opts.Prefill {
		msgs = append(msgs, anthropicMessage{Role: "user", Content: []anthropicBlock{{Type: "text", Text: continueText}}})
	} else if msgs[n-1].Role == "assistant" {
		// A prefill may not end in white space (Messages API).
		last := &msgs[n-1].Content[len(msgs[n-1].Content)-1]
		if last.Type == "text" {
			last.Text = nonEmpty(strings.TrimRight(last.Text, " \t\n"))
		}
	}
	req.Messages = msgs
	return req
}

// lastStableBlock returns the last block of msgs that the next request
// will still hold as it is: the last block of the conversation that is not
// a placeholder result (a tool call's result not recorded yet changes when
// it comes). nil when there is none.
func lastStableBlock(msgs []anthropicMessage) *anthropicBlock {
	for i := len(msgs) - 1; i >= 0; i-- {
		for j := len(msgs[i].Content) - 1; j >= 0; j-- {
			if !msgs[i].Content[j].unstable {
				return &msgs[i].Content[j]
			}
		}
	}
	return nil
}

// breakpointTiers says which tiers' last block carries a cache breakpoint
// for a model whose minimum cacheable prefix is minCacheable tokens: the
// stable and semi tiers when not empty, and the conversation (marked as
// Dynamic) when there is one, each when the prefix it closes counts at
// least minCacheable tokens (Section.Tokens, set by Count or Fit). A
// prompt that was never counted (every section 0 tokens) is marked
// everywhere: its lengths are unknown.
func breakpointTiers(p *Prompt, minCacheable int) map[Tier]bool {
	var tokens [3]int
	counted := false
	for _, s := range p.Sections {
		if s.ID == IDConversation {
			tokens[Dynamic] += s.Tokens
		} else if s.Tier != Dynamic {
			tokens[s.Tier] += s.Tokens
		}
		counted = counted || s.Tokens > 0
	}
	out := map[Tier]bool{}
	prefix := 0
	for _, t := range []Tier{Stable, Semi, Dynamic} {
		prefix += tokens[t]
		present := p.TierText(t) != ""
		if t == Dynamic {
			present = len(p.Messages) > 0
		}
		out[t] = present && (!counted || prefix >= minCacheable)
	}
	return out
}

// AnthropicBreakpoints returns the prefix length in tokens (Section.Tokens)
// at each cache breakpoint of p's anthropic body rendered with opts, in
// body order. A prompt never counted has its breakpoints at 0 tokens.
func AnthropicBreakpoints(p *Prompt, opts RenderOptions) []int {
	marks := breakpointTiers(p, opts.limit(Anthropic).MinCacheable)
	var out []int
	prefix := 0
	for _, t := range []Tier{Stable, Semi, Dynamic} {
		for _, s := range p.Sections {
			if s.Tier == t && (t != Dynamic || s.ID == IDConversation) {
				prefix += s.Tokens
			}
		}
		if marks[t] {
			out = append(out, prefix)
		}
	}
	return out
}

// nonEmpty replaces an empty text, which the Messages API and
// generateContent reject in a text block, by "(empty)".
func nonEmpty(s string) string {
	if strings.TrimSpace(s) == "" {
		return "(empty)"
	}
	return s
}

// toolName makes a recorded tool name a valid function name for every
// provider (^[a-zA-Z0-9_-]{1,64}$: the Messages API, OpenAI function
// names): other characters become "_", the name is cut to 64 bytes, and an
// empty name becomes "tool".
func toolName(name string) string {
	b := []byte(name)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) > 64 {
		b = b[:64]
	}
	if len(b) == 0 {
		return "tool"
	}
	return string(b)
}

// toolID makes a recorded tool call id valid for the Messages API
// (^[a-zA-Z0-9_-]+$): other characters become "_", and an empty id becomes
// "call".
func toolID(id string) string {
	b := []byte(id)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	if len(b) == 0 {
		return "call"
	}
	return string(b)
}

package prompt

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// functionName is the name rule of the Messages API and OpenAI function
// tools.
var functionName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// ---- Anthropic ----

type checkAnthropicBlock struct {
	Type         string                `json:"type"`
	Text         *string               `json:"text"`
	ID           string                `json:"id"`
	Name         string                `json:"name"`
	Input        json.RawMessage       `json:"input"`
	ToolUseID    string                `json:"tool_use_id"`
	Content      []checkAnthropicBlock `json:"content"`
	IsError      bool                  `json:"is_error"`
	CacheControl *struct {
		Type string `json:"type"`
		TTL  string `json:"ttl"`
	} `json:"cache_control"`
}

func (c *checker) anthropic(body []byte) {
	var req struct {
		Model     string `json:"model"`
		MaxTokens *int   `json:"max_tokens"`
		Tools     []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
		System   []checkAnthropicBlock   `json:"system"`
		Messages []checkAnthropicMessage `json:"messages"`
	}
	if !c.decode(body, &req) {
		return
	}
	l := c.checkModel(req.Model)
	switch {
	case req.MaxTokens == nil:
		c.fail("max_tokens", "missing: the Messages API requires it")
	case *req.MaxTokens < 1:
		c.fail("max_tokens", "%d: must be at least 1", *req.MaxTokens)
	case l.MaxOutput > 0 && *req.MaxTokens > l.MaxOutput:
		c.fail("max_tokens", "%d: over %s's max output of %d tokens", *req.MaxTokens, l.Model, l.MaxOutput)
	}
	tools := map[string]bool{}
	for i, t := range req.Tools {
		at := fmt.Sprintf("tools[%d]", i)
		if !functionName.MatchString(t.Name) {
			c.fail(at, "tool name %q must match %s", t.Name, functionName)
		}
		var schema map[string]any
		if json.Unmarshal(t.InputSchema, &schema) != nil || schema["type"] != "object" {
			c.fail(at, "input_schema must be a JSON schema of type object")
		}
		tools[t.Name] = true
	}
	breakpoints := 0
	mark := func(b checkAnthropicBlock) {
		if b.CacheControl != nil {
			breakpoints++
		}
	}
	for i, b := range req.System {
		at := fmt.Sprintf("system[%d]", i)
		mark(b)
		if b.Type != "text" {
			c.fail(at, "system block of type %q (want text)", b.Type)
		}
		c.anthropicText(at, b)
	}
	breakpoints += c.anthropicMessages(req.Messages, tools)
	if breakpoints > AnthropicMaxBreakpoints {
		c.fail("", "%d cache_control breakpoints, at most %d", breakpoints, AnthropicMaxBreakpoints)
	}
	if req.MaxTokens != nil {
		c.window(bodyText(body), l.ContextWindow-*req.MaxTokens, fmt.Sprintf("%s's context window less max_tokens", l.Model))
	}
}

type checkAnthropicMessage struct {
	Role    string                `json:"role"`
	Content []checkAnthropicBlock `json:"content"`
}

// anthropicMessages checks the turns of a Messages API body: a user turn
// first, roles alternating, every tool_use defined in tools and answered
// first thing in the next turn, no trailing white space in a prefill. It
// returns how many cache breakpoints the turns carry.
func (c *checker) anthropicMessages(msgs []checkAnthropicMessage, tools map[string]bool) int {
	breakpoints := 0
	mark := func(b checkAnthropicBlock) {
		if b.CacheControl != nil {
			breakpoints++
		}
	}
	if len(msgs) == 0 {
		c.fail("messages", "empty: a request needs at least one message")
	} else if msgs[0].Role != "user" {
		c.fail("messages[0]", "the first message must be a user turn, not %q", msgs[0].Role)
	}
	var pending pendingCalls
	for i, m := range msgs {
		at := fmt.Sprintf("messages[%d]", i)
		if m.Role != "user" && m.Role != "assistant" {
			c.fail(at, "role %q (want user or assistant)", m.Role)
		}
		if i > 0 && msgs[i-1].Role == m.Role {
			c.fail(at, "two %s turns in a row", m.Role)
		}
		if len(m.Content) == 0 {
			c.fail(at, "empty content")
		}
		if m.Role == "user" && i > 0 {
			c.anthropicResults(at, m.Content, &pending)
		}
		pending.unanswered(c)
		for j, b := range m.Content {
			bat := fmt.Sprintf("%s.content[%d]", at, j)
			mark(b)
			switch b.Type {
			case "text":
				c.anthropicText(bat, b)
			case "tool_use":
				if m.Role != "assistant" {
					c.fail(bat, "tool_use in a %s turn", m.Role)
				}
				var obj map[string]any
				if json.Unmarshal(b.Input, &obj) != nil {
					c.fail(bat, "tool_use input must be a JSON object")
				}
				if !tools[b.Name] {
					c.fail(bat, "tool_use of %q, which \"tools\" does not define", b.Name)
				}
				if b.ID == "" {
					c.fail(bat, "tool_use without an id")
				}
				pending.add(b.ID, bat)
			case "tool_result":
				if i == 0 || m.Role != "user" {
					c.fail(bat, "tool_result outside the user turn that follows its tool_use")
				}
			default:
				c.fail(bat, "block type %q is not one recite writes", b.Type)
			}
		}
	}
	pending.unanswered(c)
	if n := len(msgs); n > 0 && msgs[n-1].Role == "assistant" {
		last := msgs[n-1].Content
		if k := len(last); k > 0 && last[k-1].Text != nil && strings.TrimRight(*last[k-1].Text, " \t\n") != *last[k-1].Text {
			c.fail(fmt.Sprintf("messages[%d]", n-1), "a final assistant turn (prefill) may not end in white space")
		}
	}
	return breakpoints
}

func (c *checker) anthropicText(at string, b checkAnthropicBlock) {
	if b.Type == "text" && (b.Text == nil || strings.TrimSpace(*b.Text) == "") {
		c.fail(at, "empty text block")
	}
}

// anthropicResults checks the tool_result blocks of a user turn: they come
// first and each answers a tool_use of the assistant turn before it.
func (c *checker) anthropicResults(at string, blocks []checkAnthropicBlock, pending *pendingCalls) {
	other := false
	for j, b := range blocks {
		bat := fmt.Sprintf("%s.content[%d]", at, j)
		if b.Type != "tool_result" {
			other = true
			continue
		}
		if other {
			c.fail(bat, "tool_result after other content: results come first in their turn")
		}
		if !pending.answer(b.ToolUseID) {
			c.fail(bat, "tool_result for %q, which the turn before did not call", b.ToolUseID)
		}
		for k, n := range b.Content {
			if n.Type != "text" {
				c.fail(fmt.Sprintf("%s.content[%d]", bat, k), "tool_result content of type %q", n.Type)
			}
			c.anthropicText(fmt.Sprintf("%s.content[%d]", bat, k), n)
		}
	}
}

// ---- OpenAI ----

func (c *checker) openAI(body []byte) {
	var probe map[string]json.RawMessage
	if json.Unmarshal(body, &probe) == nil && probe["input"] != nil {
		c.responses(body)
		return
	}
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role      string  `json:"role"`
			Content   *string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
		PromptCacheKey string `json:"prompt_cache_key"`
	}
	if !c.decode(body, &req) {
		return
	}
	l := c.checkModel(req.Model)
	if len(req.Messages) == 0 {
		c.fail("messages", "empty: a request needs at least one message")
	}
	var pending pendingCalls
	for i, m := range req.Messages {
		at := fmt.Sprintf("messages[%d]", i)
		if m.Role != "tool" {
			pending.unanswered(c)
		}
		switch m.Role {
		case "system", "developer", "user":
			if m.Content == nil {
				c.fail(at, "%s message without content", m.Role)
			}
		case "assistant":
			if m.Content == nil && len(m.ToolCalls) == 0 {
				c.fail(at, "assistant message with neither content nor tool_calls")
			}
		case "tool":
			if m.Content == nil {
				c.fail(at, "tool message without content")
			}
			if !pending.answer(m.ToolCallID) {
				c.fail(at, "tool message for %q, which no assistant message right before it called", m.ToolCallID)
			}
		default:
			c.fail(at, "role %q", m.Role)
		}
		for j, tc := range m.ToolCalls {
			cat := fmt.Sprintf("%s.tool_calls[%d]", at, j)
			var s string
			if json.Unmarshal(tc.Function.Arguments, &s) != nil {
				c.fail(cat, "function.arguments must be a JSON string")
			}
			if tc.Type != "function" || tc.ID == "" || !functionName.MatchString(tc.Function.Name) {
				c.fail(cat, "a tool call needs an id, type function and a name matching %s", functionName)
			}
			pending.add(tc.ID, cat)
		}
	}
	pending.unanswered(c)
	c.window(bodyText(body), l.PromptLimit(0), l.Model+"'s input limit")
}

func (c *checker) responses(body []byte) {
	var req struct {
		Model          string `json:"model"`
		Instructions   string `json:"instructions"`
		PromptCacheKey string `json:"prompt_cache_key"`
		Input          []struct {
			Type      string  `json:"type"`
			Role      string  `json:"role"`
			Content   *string `json:"content"`
			CallID    string  `json:"call_id"`
			Name      string  `json:"name"`
			Arguments *string `json:"arguments"`
			Output    *string `json:"output"`
		} `json:"input"`
	}
	if !c.decode(body, &req) {
		return
	}
	l := c.checkModel(req.Model)
	if len(req.PromptCacheKey) > 64 {
		c.fail("prompt_cache_key", "longer than 64 characters")
	}
	var pending pendingCalls
	for i, it := range req.Input {
		at := fmt.Sprintf("input[%d]", i)
		switch it.Type {
		case "message":
			switch it.Role {
			case "user", "assistant", "system", "developer":
			default:
				c.fail(at, "message role %q", it.Role)
			}
			if it.Content == nil {
				c.fail(at, "message without content")
			}
		case "function_call":
			if it.CallID == "" || !functionName.MatchString(it.Name) || it.Arguments == nil {
				c.fail(at, "a function_call needs call_id, a name matching %s and arguments", functionName)
			}
			pending.add(it.CallID, at)
		case "function_call_output":
			if it.Output == nil {
				c.fail(at, "function_call_output without output")
			}
			if !pending.answer(it.CallID) {
				c.fail(at, "function_call_output for %q, which no earlier function_call made", it.CallID)
			}
		default:
			c.fail(at, "input item type %q is not one recite writes", it.Type)
		}
	}
	pending.unanswered(c)
	c.window(bodyText(body), l.PromptLimit(0), l.Model+"'s input limit")
}

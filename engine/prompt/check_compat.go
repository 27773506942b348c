package prompt

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ---- OpenAI-compatible chat (DeepSeek, OpenRouter, Hugging Face, custom) ----

// compatChat checks an OpenAI-compatible chat body as the compatible APIs
// do: Chat Completions' messages (content a string, or text parts with an
// optional cache_control for OpenRouter), each tool call answered right
// after it, max_tokens positive, a tools entry for every call when the body
// declares tools, at most 4 cache_control markers, and the prompt within
// the model's window less the reply.
func (c *checker) compatChat(body []byte) {
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role      string          `json:"role"`
			Content   json.RawMessage `json:"content"`
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
		Tools []struct {
			Type     string `json:"type"`
			Function struct {
				Name       string          `json:"name"`
				Parameters json.RawMessage `json:"parameters"`
			} `json:"function"`
		} `json:"tools"`
		MaxTokens *int   `json:"max_tokens"`
		SessionID string `json:"session_id"`
	}
	if !c.decode(body, &req) {
		return
	}
	l := c.checkModel(req.Model)
	if c.provider == OpenRouter && !strings.Contains(req.Model, "/") {
		c.fail("model", "%q: OpenRouter names a model vendor/model", req.Model)
	}
	if len(req.SessionID) > 256 {
		c.fail("session_id", "longer than 256 characters")
	}
	if req.MaxTokens == nil || *req.MaxTokens < 1 {
		c.fail("max_tokens", "missing or below 1")
	}
	if len(req.Messages) == 0 {
		c.fail("messages", "empty: a request needs at least one message")
	}
	tools := map[string]bool{}
	for i, t := range req.Tools {
		if t.Type != "function" || !functionName.MatchString(t.Function.Name) {
			c.fail(fmt.Sprintf("tools[%d]", i), "a tool needs type function and a name matching %s", functionName)
		}
		tools[t.Function.Name] = true
	}
	marks := 0
	var pending pendingCalls
	for i, m := range req.Messages {
		at := fmt.Sprintf("messages[%d]", i)
		if m.Role != "tool" {
			pending.unanswered(c)
		}
		has, n := c.compatContent(at, m.Content)
		marks += n
		switch m.Role {
		case "system", "user":
			if !has {
				c.fail(at, "%s message without content", m.Role)
			}
		case "assistant":
			if !has && len(m.ToolCalls) == 0 {
				c.fail(at, "assistant message with neither content nor tool_calls")
			}
		case "tool":
			if !has {
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
			if len(req.Tools) > 0 && !tools[tc.Function.Name] {
				c.fail(cat, "a call of %q, which \"tools\" does not define", tc.Function.Name)
			}
			pending.add(tc.ID, cat)
		}
	}
	pending.unanswered(c)
	if marks > AnthropicMaxBreakpoints {
		c.fail("", "%d cache_control markers, over the %d a request may carry", marks, AnthropicMaxBreakpoints)
	}
	reply := 0
	if req.MaxTokens != nil {
		reply = *req.MaxTokens
	}
	c.window(bodyText(body), l.PromptLimit(reply), l.Model+"'s window less the reply")
}

// compatContent checks a message's content: null, a string, or text
// parts. It reports whether there is content and how many parts carry a
// cache_control marker.
func (c *checker) compatContent(at string, raw json.RawMessage) (has bool, marks int) {
	if len(raw) == 0 || string(raw) == "null" {
		return false, 0
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return true, 0
	}
	var parts []struct {
		Type         string  `json:"type"`
		Text         *string `json:"text"`
		CacheControl *struct {
			Type string `json:"type"`
		} `json:"cache_control"`
	}
	if err := json.Unmarshal(raw, &parts); err != nil {
		c.fail(at+".content", "neither a string nor text parts: %v", err)
		return false, 0
	}
	for k, p := range parts {
		if p.Type != "text" || p.Text == nil {
			c.fail(fmt.Sprintf("%s.content[%d]", at, k), "a part of type %q: recite writes text parts", p.Type)
		}
		if p.CacheControl != nil {
			if p.CacheControl.Type != "ephemeral" {
				c.fail(fmt.Sprintf("%s.content[%d].cache_control", at, k), "type %q, want ephemeral", p.CacheControl.Type)
			}
			marks++
		}
	}
	return len(parts) > 0, marks
}

// ---- simple-prompt bodies ----

// textGeneration checks a Hugging Face text-generation body: inputs a
// non-empty string, parameters.max_new_tokens positive, no other field,
// and inputs within the model's window less the reply.
func (c *checker) textGeneration(body []byte) {
	var req struct {
		Inputs     *string `json:"inputs"`
		Parameters struct {
			MaxNewTokens   *int `json:"max_new_tokens"`
			ReturnFullText bool `json:"return_full_text"`
		} `json:"parameters"`
	}
	if !c.decode(body, &req) {
		return
	}
	if req.Inputs == nil || strings.TrimSpace(*req.Inputs) == "" {
		c.fail("inputs", "missing or empty")
		return
	}
	reply := 0
	if n := req.Parameters.MaxNewTokens; n == nil || *n < 1 {
		c.fail("parameters.max_new_tokens", "missing or below 1")
	} else {
		reply = *n
	}
	l := Limits(HuggingFace, c.opts.Model, c.opts.Override)
	c.window(*req.Inputs, l.PromptLimit(reply), l.Model+"'s window less the reply")
}

// replicate checks a Replicate prediction body: input.prompt a non-empty
// string, input.max_tokens positive, no other field, and the prompt and
// system prompt within the model's window less the reply.
func (c *checker) replicate(body []byte) {
	var req struct {
		Input *struct {
			Prompt       *string `json:"prompt"`
			SystemPrompt string  `json:"system_prompt"`
			MaxTokens    *int    `json:"max_tokens"`
		} `json:"input"`
	}
	if !c.decode(body, &req) {
		return
	}
	if req.Input == nil {
		c.fail("input", "missing: a prediction needs its input")
		return
	}
	if req.Input.Prompt == nil || strings.TrimSpace(*req.Input.Prompt) == "" {
		c.fail("input.prompt", "missing or empty")
		return
	}
	reply := 0
	if n := req.Input.MaxTokens; n == nil || *n < 1 {
		c.fail("input.max_tokens", "missing or below 1")
	} else {
		reply = *n
	}
	l := Limits(Replicate, c.opts.Model, c.opts.Override)
	c.window(req.Input.SystemPrompt+*req.Input.Prompt, l.PromptLimit(reply), l.Model+"'s window less the reply")
}

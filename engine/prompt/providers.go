package prompt

import (
	"encoding/json"
)

// ---- Anthropic Messages API ----

type cacheControl struct {
	Type string `json:"type"`
}

type anthropicBlock struct {
	Type         string          `json:"type"`
	Text         string          `json:"text,omitempty"`
	ID           string          `json:"id,omitempty"`
	Name         string          `json:"name,omitempty"`
	Input        json.RawMessage `json:"input,omitempty"`
	ToolUseID    string          `json:"tool_use_id,omitempty"`
	Content      string          `json:"content,omitempty"`
	IsError      bool            `json:"is_error,omitempty"`
	CacheControl *cacheControl   `json:"cache_control,omitempty"`
}

type anthropicMessage struct {
	Role    string           `json:"role"`
	Content []anthropicBlock `json:"content"`
}

type anthropicRequest struct {
	Model     string             `json:"model,omitempty"`
	MaxTokens int                `json:"max_tokens,omitempty"`
	System    []anthropicBlock   `json:"system,omitempty"`
	Messages  []anthropicMessage `json:"messages"`
}

// anthropicBody follows the Messages API rules of PROVIDERS.md §4–§5: a
// top-level system of text blocks with cache_control at the end of the
// stable tier and of the semi tier, one more breakpoint on the final block
// when there is a conversation (3 of the 4 allowed), messages starting with a user
// turn, consecutive same-role turns merged, tool_result blocks first in
// their turn. "system" is left out when the stable and semi tiers are
// empty (a bare conversation, `recite conversation show`). With opts.Model
// the body opens with "model" and
// "max_tokens" (required by the API; opts.MaxTokens, default
// DefaultMaxTokens); without it both are left out.
func anthropicBody(p *Prompt, opts RenderOptions) anthropicRequest {
	eph := &cacheControl{Type: "ephemeral"}
	req := anthropicRequest{System: []anthropicBlock{}, Messages: []anthropicMessage{}}
	if opts.Model != "" {
		req.Model, req.MaxTokens = opts.Model, opts.MaxTokens
		if req.MaxTokens <= 0 {
			req.MaxTokens = DefaultMaxTokens
		}
	}
	if s := p.TierText(Stable); s != "" {
		req.System = append(req.System, anthropicBlock{Type: "text", Text: s, CacheControl: eph})
	}
	if s := p.TierText(Semi); s != "" {
		req.System = append(req.System, anthropicBlock{Type: "text", Text: s, CacheControl: eph})
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
	for _, m := range pairTools(p.Messages) {
		switch m.Role {
		case "assistant":
			var blocks []anthropicBlock
			if m.Content != "" {
				blocks = append(blocks, anthropicBlock{Type: "text", Text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				blocks = append(blocks, anthropicBlock{Type: "tool_use", ID: tc.ID, Name: tc.Name, Input: argsObject(tc.Arguments)})
			}
			if len(blocks) == 0 {
				blocks = append(blocks, anthropicBlock{Type: "text", Text: "(empty)"})
			}
			add("assistant", blocks...)
		case "tool":
			add("user", anthropicBlock{Type: "tool_result", ToolUseID: m.ToolCallID, Content: m.Content, IsError: m.IsError})
		default: // user, and system messages inside a conversation
			text := m.Content
			if m.Role == "system" {
				text = "[system] " + text
			}
			add("user", anthropicBlock{Type: "text", Text: text})
		}
	}
	if dyn := p.DynamicContext(); dyn != "" {
		add("user", anthropicBlock{Type: "text", Text: dyn})
	}
	if len(msgs) > 0 && msgs[0].Role != "user" {
		msgs = append([]anthropicMessage{{Role: "user", Content: []anthropicBlock{{Type: "text", Text: "(conversation continues)"}}}}, msgs...)
	}
	if len(msgs) == 0 {
		msgs = append(msgs, anthropicMessage{Role: "user", Content: []anthropicBlock{{Type: "text", Text: "Continue with the next task."}}})
	}
	// The third breakpoint sits on the final block, after the conversation:
	// the provider writes the whole prompt and reads back the longest
	// earlier prefix, and no byte before the previous last message moves
	// when a message is appended (DESIGN.md invariant 8).
	if len(p.Messages) > 0 {
		last := &msgs[len(msgs)-1]
		last.Content[len(last.Content)-1].CacheControl = eph
	}
	req.Messages = msgs
	return req
}

// ---- OpenAI Chat Completions ----

type openAIFunction struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type openAIToolCall struct {
	ID       string         `json:"id"`
	Type     string         `json:"type"`
	Function openAIFunction `json:"function"`
}

type openAIMessage struct {
	Role       string           `json:"role"`
	Content    *string          `json:"content"`
	ToolCalls  []openAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

type openAIRequest struct {
	Model    string          `json:"model,omitempty"`
	Messages []openAIMessage `json:"messages"`
}

func strp(s string) *string { return &s }

// openAIBody: one system (or developer) message with the stable and semi
// tiers (none when both are empty), the conversation, then a user message with the dynamic context.
// Tool-call arguments stay a JSON string; every tool_call_id is answered by
// a tool message (PROVIDERS.md §5), an unanswered one gets a placeholder
// result so the body is valid. With opts.Model the body opens with
// "model".
func openAIBody(p *Prompt, opts RenderOptions) openAIRequest {
	role := opts.OpenAISystemRole
	if role == "" {
		role = "system"
	}
	req := openAIRequest{Model: opts.Model, Messages: []openAIMessage{}}
	if sys := systemText(p); sys != "" {
		req.Messages = append(req.Messages, openAIMessage{Role: role, Content: strp(sys)})
	}
	msgs := pairTools(p.Messages)
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		switch m.Role {
		case "assistant":
			om := openAIMessage{Role: "assistant"}
			if m.Content != "" || len(m.ToolCalls) == 0 {
				om.Content = strp(m.Content)
			}
			calls := m.ToolCalls
			// A run of parallel calls recorded one per message (Claude Code
			// transcripts) is one assistant message: the tool messages
			// must answer the message right before them.
			j := i + 1
			for len(calls) > 0 && j < len(msgs) && msgs[j].Role == "assistant" && len(msgs[j].ToolCalls) > 0 && msgs[j].Content == "" {
				calls = append(calls[:len(calls):len(calls)], msgs[j].ToolCalls...)
				j++
			}
			for _, tc := range calls {
				om.ToolCalls = append(om.ToolCalls, openAIToolCall{ID: tc.ID, Type: "function", Function: openAIFunction{Name: tc.Name, Arguments: tc.Arguments}})
			}
			req.Messages = append(req.Messages, om)
			// Answer every call: the results that follow, in call order.
			answered := map[string]bool{}
			for ; j < len(msgs) && msgs[j].Role == "tool"; j++ {
				answered[msgs[j].ToolCallID] = true
				req.Messages = append(req.Messages, openAIMessage{Role: "tool", Content: strp(msgs[j].Content), ToolCallID: msgs[j].ToolCallID})
			}
			for _, tc := range calls {
				if !answered[tc.ID] {
					req.Messages = append(req.Messages, openAIMessage{Role: "tool", Content: strp(noResult), ToolCallID: tc.ID})
				}
			}
			i = j - 1
		case "tool":
			// A result without its call (pruned elsewhere) is carried as text.
			req.Messages = append(req.Messages, openAIMessage{Role: "user", Content: strp("Tool result (" + m.ToolName + "): " + m.Content)})
		default:
			req.Messages = append(req.Messages, openAIMessage{Role: m.Role, Content: strp(m.Content)})
		}
	}
	if dyn := p.DynamicContext(); dyn != "" {
		req.Messages = append(req.Messages, openAIMessage{Role: "user", Content: strp(dyn)})
	}
	return req
}

// ---- Gemini generateContent ----

type geminiFunctionCall struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}

type geminiFunctionResponse struct {
	Name     string          `json:"name"`
	Response json.RawMessage `json:"response"`
}

type geminiPart struct {
	Text             string                  `json:"text,omitempty"`
	FunctionCall     *geminiFunctionCall     `json:"functionCall,omitempty"`
	FunctionResponse *geminiFunctionResponse `json:"functionResponse,omitempty"`
}

type geminiContent struct {
	Role  string       `json:"role,omitempty"`
	Parts []geminiPart `json:"parts"`
}

type geminiRequest struct {
	SystemInstruction *geminiContent  `json:"systemInstruction,omitempty"`
	Contents          []geminiContent `json:"contents"`
}

// geminiBody: systemInstruction with one part per non-empty tier (left out
// when there is none), contents with user
// and model roles starting with a user turn, consecutive same-role turns
// merged, a functionCall turn followed directly by its functionResponse
// turn (PROVIDERS.md §5; tool results paired by pairTools). The body has
// no model field, whatever RenderOptions.Model says: generateContent takes
// the model in the URL (models/MODEL:generateContent).
func geminiBody(p *Prompt) geminiRequest {
	req := geminiRequest{Contents: []geminiContent{}}
	var sys []geminiPart
	for _, t := range []Tier{Stable, Semi} {
		if s := p.TierText(t); s != "" {
			sys = append(sys, geminiPart{Text: s})
		}
	}
	if len(sys) > 0 {
		req.SystemInstruction = &geminiContent{Parts: sys}
	}
	names := map[string]string{}
	add := func(role string, parts ...geminiPart) {
		if n := len(req.Contents); n > 0 && req.Contents[n-1].Role == role {
			req.Contents[n-1].Parts = append(req.Contents[n-1].Parts, parts...)
			return
		}
		req.Contents = append(req.Contents, geminiContent{Role: role, Parts: parts})
	}
	for _, m := range pairTools(p.Messages) {
		switch m.Role {
		case "assistant":
			var parts []geminiPart
			if m.Content != "" {
				parts = append(parts, geminiPart{Text: m.Content})
			}
			for _, tc := range m.ToolCalls {
				names[tc.ID] = tc.Name
				parts = append(parts, geminiPart{FunctionCall: &geminiFunctionCall{Name: tc.Name, Args: argsObject(tc.Arguments)}})
			}
			if len(parts) == 0 {
				parts = append(parts, geminiPart{Text: "(empty)"})
			}
			add("model", parts...)
		case "tool":
			name := m.ToolName
			if name == "" {
				name = names[m.ToolCallID]
			}
			key := "content"
			if m.IsError {
				key = "error"
			}
			resp, _ := json.Marshal(map[string]string{key: m.Content})
			add("user", geminiPart{FunctionResponse: &geminiFunctionResponse{Name: name, Response: resp}})
		default:
			add("user", geminiPart{Text: m.Content})
		}
	}
	if dyn := p.DynamicContext(); dyn != "" {
		add("user", geminiPart{Text: dyn})
	}
	// The first content must be a user turn, and a functionCall must follow
	// a user turn (PROVIDERS.md §5): a tail that opens with a model turn
	// gets the same opening user turn as the anthropic body.
	if len(req.Contents) > 0 && req.Contents[0].Role != "user" {
		req.Contents = append([]geminiContent{{Role: "user", Parts: []geminiPart{{Text: "(conversation continues)"}}}}, req.Contents...)
	}
	if len(req.Contents) == 0 {
		req.Contents = append(req.Contents, geminiContent{Role: "user", Parts: []geminiPart{{Text: "Continue with the next task."}}})
	}
	return req
}

// ---- Ollama /api/chat ----

type ollamaFunction struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type ollamaToolCall struct {
	Function ollamaFunction `json:"function"`
}

type ollamaMessage struct {
	Role      string           `json:"role"`
	Content   string           `json:"content"`
	ToolCalls []ollamaToolCall `json:"tool_calls,omitempty"`
	ToolName  string           `json:"tool_name,omitempty"`
}

type ollamaRequest struct {
	Model    string          `json:"model,omitempty"`
	Messages []ollamaMessage `json:"messages"`
	Stream   bool            `json:"stream"`
}

// ollamaBody is an /api/chat body: a system message with the stable and
// semi tiers (none when both are empty), tool-call arguments are an object
// (PROVIDERS.md §5), tool results paired with their calls (pairTools),
// streaming off.
func ollamaBody(p *Prompt, opts RenderOptions) ollamaRequest {
	req := ollamaRequest{Model: opts.Model, Messages: []ollamaMessage{}}
	if sys := systemText(p); sys != "" {
		req.Messages = append(req.Messages, ollamaMessage{Role: "system", Content: sys})
	}
	for _, m := range pairTools(p.Messages) {
		om := ollamaMessage{Role: m.Role, Content: m.Content}
		for _, tc := range m.ToolCalls {
			om.ToolCalls = append(om.ToolCalls, ollamaToolCall{Function: ollamaFunction{Name: tc.Name, Arguments: argsObject(tc.Arguments)}})
		}
		if m.Role == "tool" {
			om.ToolName = m.ToolName
		}
		req.Messages = append(req.Messages, om)
	}
	if dyn := p.DynamicContext(); dyn != "" {
		req.Messages = append(req.Messages, ollamaMessage{Role: "user", Content: dyn})
	}
	return req
}

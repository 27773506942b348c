package prompt

import (
	"crypto/sha256"
	"encoding/hex"
)

// OpenAI bodies: Chat Completions
// (https://developers.openai.com/api/reference/resources/chat/subresources/completions/methods/create)
// and the Responses API
// (https://developers.openai.com/api/reference/resources/responses/methods/create).

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
	Model          string          `json:"model"`
	Messages       []openAIMessage `json:"messages"`
	PromptCacheKey string          `json:"prompt_cache_key,omitempty"`
}

func strp(s string) *string { return &s }

// systemRole is the role of the message carrying the stable and semi
// tiers: opts.OpenAISystemRole, else "developer" for the models that take
// it (Limit.DeveloperRole), else "system".
func systemRole(opts RenderOptions) string {
	if opts.OpenAISystemRole != "" {
		return opts.OpenAISystemRole
	}
	if opts.limit(OpenAI).DeveloperRole {
		return "developer"
	}
	return "system"
}

// PromptCacheKey is the OpenAI prompt_cache_key of p: "recite-" and the
// first 16 hex digits of the SHA-256 of the target's name and its
// conversation's log, so every turn of one conversation is routed to the
// same cache whatever changes in the prompt
// (https://developers.openai.com/api/docs/guides/prompt-caching). A target
// without a conversation is keyed by its name alone.
func PromptCacheKey(p *Prompt) string {
	sum := sha256.Sum256([]byte("recite\x00" + p.Target + "\x00" + p.Conversation))
	return "recite-" + hex.EncodeToString(sum[:8])
}

// openAIBody: "model", one system (or developer, systemRole) message with
// the stable and semi tiers (none when both are empty), the conversation,
// then a user message with the dynamic context, and prompt_cache_key.
// Tool-call arguments stay a JSON string; every tool_call_id is answered
// by a tool message right after its assistant message (pairTools).
func openAIBody(p *Prompt, opts RenderOptions) openAIRequest {
	req := openAIRequest{Model: opts.model(OpenAI), Messages: []openAIMessage{}, PromptCacheKey: PromptCacheKey(p)}
	if sys := systemText(p); sys != "" {
		req.Messages = append(req.Messages, openAIMessage{Role: systemRole(opts), Content: strp(sys)})
	}
	for _, st := range toolSteps(pairTools(p.Messages)) {
		if len(st.calls) == 0 {
			req.Messages = append(req.Messages, openAIMessage{Role: st.msg.Role, Content: strp(st.msg.Content)})
			continue
		}
		om := openAIMessage{Role: "assistant"}
		if st.msg.Content != "" {
			om.Content = strp(st.msg.Content)
		}
		for _, tc := range st.calls {
			om.ToolCalls = append(om.ToolCalls, openAIToolCall{ID: tc.ID, Type: "function", Function: openAIFunction{Name: toolName(tc.Name), Arguments: argsString(tc.Arguments)}})
		}
		req.Messages = append(req.Messages, om)
		for _, r := range st.results {
			req.Messages = append(req.Messages, openAIMessage{Role: "tool", Content: strp(r.Content), ToolCallID: r.ToolCallID})
		}
	}
	if dyn := p.DynamicContext(); dyn != "" {
		req.Messages = append(req.Messages, openAIMessage{Role: "user", Content: strp(dyn)})
	}
	if len(req.Messages) == 0 {
		req.Messages = append(req.Messages, openAIMessage{Role: "user", Content: strp(continueText)})
	}
	return req
}

// toolStep is one message of a paired conversation (pairTools), with a run
// of parallel calls recorded one per message gathered into one step with
// all their results: the tool messages must answer the assistant message
// right before them.
type toolStep struct {
	msg     Message
	calls   []ToolCall
	results []Message
}

// toolSteps groups the output of pairTools into steps.
func toolSteps(msgs []Message) []toolStep {
	var out []toolStep
	for i := 0; i < len(msgs); i++ {
		m := msgs[i]
		if m.Role != "assistant" || len(m.ToolCalls) == 0 {
			out = append(out, toolStep{msg: m})
			continue
		}
		st := toolStep{msg: m, calls: append([]ToolCall(nil), m.ToolCalls...)}
		j := i + 1
		for ; j < len(msgs) && msgs[j].Role == "assistant" && len(msgs[j].ToolCalls) > 0 && msgs[j].Content == ""; j++ {
			st.calls = append(st.calls, msgs[j].ToolCalls...)
		}
		for ; j < len(msgs) && msgs[j].Role == "tool"; j++ {
			st.results = append(st.results, msgs[j])
		}
		out = append(out, st)
		i = j - 1
	}
	return out
}

// argsString is a call's arguments as the JSON string OpenAI takes:
// verbatim, or "{}" when none were recorded (an empty string is not JSON).
func argsString(args string) string {
	if args == "" {
		return "{}"
	}
	return args
}

// ---- Responses API ----

type responsesMessage struct {
	Type    string `json:"type"`
	Role    string `json:"role"`
	Content string `json:"content"`
}

type responsesCall struct {
	Type      string `json:"type"`
	CallID    string `json:"call_id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type responsesOutput struct {
	Type   string `json:"type"`
	CallID string `json:"call_id"`
	Output string `json:"output"`
}

type responsesRequest struct {
	Model          string `json:"model"`
	Instructions   string `json:"instructions,omitempty"`
	Input          []any  `json:"input"`
	PromptCacheKey string `json:"prompt_cache_key,omitempty"`
}

// responsesBody renders p for the Responses API: "model", the stable and
// semi tiers as "instructions", the conversation as "input" items
// (messages, function_call items with the arguments as a JSON string,
// each answered by a function_call_output item), the dynamic context as a
// last user message, and prompt_cache_key (PromptCacheKey).
func responsesBody(p *Prompt, opts RenderOptions) responsesRequest {
	req := responsesRequest{Model: opts.model(OpenAI), Instructions: systemText(p), Input: []any{}, PromptCacheKey: PromptCacheKey(p)}
	msg := func(role, text string) {
		req.Input = append(req.Input, responsesMessage{Type: "message", Role: role, Content: text})
	}
	for _, st := range toolSteps(pairTools(p.Messages)) {
		if st.msg.Content != "" || len(st.calls) == 0 {
			role := st.msg.Role
			if role == "system" {
				role = systemRole(opts)
			}
			msg(role, st.msg.Content)
		}
		for _, tc := range st.calls {
			req.Input = append(req.Input, responsesCall{Type: "function_call", CallID: tc.ID, Name: toolName(tc.Name), Arguments: argsString(tc.Arguments)})
		}
		for _, r := range st.results {
			req.Input = append(req.Input, responsesOutput{Type: "function_call_output", CallID: r.ToolCallID, Output: r.Content})
		}
	}
	if dyn := p.DynamicContext(); dyn != "" {
		msg("user", dyn)
	}
	if len(req.Input) == 0 {
		msg("user", continueText)
	}
	return req
}

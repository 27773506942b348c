package prompt

import (
	"encoding/json"
	"strings"
)

// Bodies of the OpenAI-compatible chat APIs (docs/providers.md#openai-compatible-chat):
// DeepSeek (https://api-docs.deepseek.com/api/create-chat-completion),
// OpenRouter (https://openrouter.ai/docs/api/reference/overview), the
// Hugging Face router (https://huggingface.co/docs/inference-providers/tasks/chat-completion)
// and the providers recite.yaml defines. They take Chat Completions'
// messages; each adds what its documentation names.

// compatPart is a text part of a message's content array (OpenRouter,
// which passes cache_control through to Anthropic and Gemini models).
type compatPart struct {
	Type         string        `json:"type"`
	Text         string        `json:"text"`
	CacheControl *cacheControl `json:"cache_control,omitempty"`
}

type compatMessage struct {
	Role string `json:"role"`
	// Content is a *string (null for an assistant turn of calls only) or
	// a []compatPart.
	Content    any              `json:"content"`
	ToolCalls  []openAIToolCall `json:"tool_calls,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

type compatFunction struct {
	Name       string          `json:"name"`
	Parameters json.RawMessage `json:"parameters"`
}

type compatTool struct {
	Type     string         `json:"type"`
	Function compatFunction `json:"function"`
}

type compatRequest struct {
	Model     string          `json:"model"`
	Messages  []compatMessage `json:"messages"`
	Tools     []compatTool    `json:"tools,omitempty"`
	MaxTokens int             `json:"max_tokens"`
	// SessionID is OpenRouter's sticky-routing key: the requests of one
	// conversation go to the provider that holds their cache.
	SessionID string `json:"session_id,omitempty"`
}

// OpenRouterBreakpoints reports whether OpenRouter passes cache_control
// markers to the model a body names: Anthropic and Gemini models
// ("anthropic/…", "google/…"), which need them
// (https://openrouter.ai/docs/guides/best-practices/prompt-caching); the
// other vendors cache automatically.
func OpenRouterBreakpoints(model string) bool {
	return strings.HasPrefix(model, "anthropic/") || strings.HasPrefix(model, "google/")
}

// compatBody renders p for an OpenAI-compatible chat API: "model", a
// system message with the stable and semi tiers, the conversation as in
// the openai body (arguments as JSON strings, every call answered right
// after it), the dynamic sections as a last user message, and
// "max_tokens". For OpenRouter it adds "session_id" (PromptCacheKey) and,
// for models that take cache_control (OpenRouterBreakpoints), every
// content as text parts, with the breakpoints of the anthropic body on the
// system tiers and the last stable message, and the fixed tools block (toolBlock; calls to
// other tools written as text). DeepSeek's reasoning content is never
// sent back: recite records it as internal, which is not replayed.
func compatBody(p *Prompt, provider string, opts RenderOptions) compatRequest {
	req := compatRequest{Model: opts.model(provider), Messages: []compatMessage{}, MaxTokens: opts.maxTokens()}
	marked := provider == OpenRouter && OpenRouterBreakpoints(req.Model)
	var marks map[Tier]bool
	msgs := p.Messages
	if provider == OpenRouter {
		req.SessionID = PromptCacheKey(p)
		block, inBlock := toolBlock(p)
		msgs = flattenCalls(msgs, inBlock)
		for _, name := range block {
			req.Tools = append(req.Tools, compatTool{Type: "function", Function: compatFunction{Name: name, Parameters: permissiveSchema}})
		}
	}
	if marked {
		marks = breakpointTiers(p, opts.limit(provider).MinCacheable)
	}
	eph := func(on bool) *cacheControl {
		if on {
			return &cacheControl{Type: "ephemeral"}
		}
		return nil
	}
	if marked {
		var parts []compatPart
		for _, t := range []Tier{Stable, Semi} {
			if s := p.TierText(t); s != "" {
				parts = append(parts, compatPart{Type: "text", Text: s, CacheControl: eph(marks[t])})
			}
		}
		if len(parts) > 0 {
			req.Messages = append(req.Messages, compatMessage{Role: "system", Content: parts})
		}
	} else if sys := systemText(p); sys != "" {
		req.Messages = append(req.Messages, compatMessage{Role: "system", Content: strp(sys)})
	}
	// With breakpoints every content is written as text parts, so that
	// moving the last breakpoint changes no other byte of a message.
	content := func(s string) any {
		if marked {
			return []compatPart{{Type: "text", Text: s}}
		}
		return strp(s)
	}
	stable := -1 // the last message the next request holds as it is
	seen := map[string]bool{}
	for _, st := range toolSteps(pairTools(msgs)) {
		if len(st.calls) == 0 {
			req.Messages = append(req.Messages, compatMessage{Role: st.msg.Role, Content: content(st.msg.Content)})
			stable = len(req.Messages) - 1
			continue
		}
		om := compatMessage{Role: "assistant", Content: (*string)(nil)}
		if st.msg.Content != "" {
			om.Content = content(st.msg.Content)
		}
		for _, tc := range st.calls {
			name := toolName(tc.Name)
			om.ToolCalls = append(om.ToolCalls, openAIToolCall{ID: tc.ID, Type: "function", Function: openAIFunction{Name: name, Arguments: argsString(tc.Arguments)}})
			if provider == OpenRouter && !p.FixedTools && !seen[name] {
				seen[name] = true
				req.Tools = append(req.Tools, compatTool{Type: "function", Function: compatFunction{Name: name, Parameters: permissiveSchema}})
			}
		}
		req.Messages = append(req.Messages, om)
		if st.msg.Content != "" {
			stable = len(req.Messages) - 1
		}
		for _, r := range st.results {
			req.Messages = append(req.Messages, compatMessage{Role: "tool", Content: content(r.Content), ToolCallID: r.ToolCallID})
			if !r.placeholder {
				stable = len(req.Messages) - 1
			}
		}
	}
	if marked && marks[Dynamic] && stable >= 0 {
		if parts, ok := req.Messages[stable].Content.([]compatPart); ok && len(parts) > 0 {
			parts[len(parts)-1].CacheControl = eph(true)
		}
	}
	if dyn := p.DynamicContext(); dyn != "" {
		req.Messages = append(req.Messages, compatMessage{Role: "user", Content: content(dyn)})
	}
	if len(req.Messages) == 0 {
		req.Messages = append(req.Messages, compatMessage{Role: "user", Content: content(continueText)})
	}
	return req
}

// ---- simple-prompt bodies ----

// textGenerationRequest is the body of a Hugging Face text-generation
// endpoint (the TGI generate API,
// https://huggingface.co/docs/inference-providers/tasks/text-generation):
// one prompt string and its parameters.
type textGenerationRequest struct {
	Inputs     string                   `json:"inputs"`
	Parameters textGenerationParameters `json:"parameters"`
}

type textGenerationParameters struct {
	MaxNewTokens   int  `json:"max_new_tokens"`
	ReturnFullText bool `json:"return_full_text"`
}

// textGenerationBody is p's simple-prompt text (renderText: "System: …",
// the conversation, "Human: …", "Assistant:") as inputs, with
// max_new_tokens the reply limit and return_full_text false, so the reply
// does not repeat the prompt.
func textGenerationBody(p *Prompt, opts RenderOptions) textGenerationRequest {
	return textGenerationRequest{Inputs: string(renderText(p)), Parameters: textGenerationParameters{MaxNewTokens: opts.maxTokens()}}
}

// replicateRequest is a Replicate prediction body
// (https://replicate.com/docs/reference/http#models.predictions.create):
// the model's input; the model goes in the URL
// (/v1/models/OWNER/NAME/predictions).
type replicateRequest struct {
	Input replicateInput `json:"input"`
}

// replicateInput puts the system prompt first, so the body keeps the
// prompt's order: what changes least comes first.
type replicateInput struct {
	SystemPrompt string `json:"system_prompt,omitempty"`
	Prompt       string `json:"prompt"`
	MaxTokens    int    `json:"max_tokens"`
}

// replicateBody puts the simple-prompt text in the input of the language
// models Replicate serves (prompt, system_prompt, max_tokens, as
// meta/meta-llama-3.1-405b-instruct takes them): the stable and semi tiers
// as system_prompt (left out when both are empty), the conversation and
// "Human: <dynamic sections>" with the closing "Assistant:" cue as prompt.
func replicateBody(p *Prompt, opts RenderOptions) replicateRequest {
	q := *p
	q.Sections = nil
	for _, s := range p.Sections {
		if s.Tier == Dynamic {
			q.Sections = append(q.Sections, s)
		}
	}
	return replicateRequest{Input: replicateInput{Prompt: string(renderText(&q)), SystemPrompt: systemText(p), MaxTokens: opts.maxTokens()}}
}

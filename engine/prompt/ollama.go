package prompt

import "encoding/json"

// Ollama /api/chat bodies, https://docs.ollama.com/api/chat.

type ollamaFunction struct {
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments"`
}

type ollamaToolCall struct {
	ID       string         `json:"id,omitempty"`
	Function ollamaFunction `json:"function"`
}

type ollamaMessage struct {
	Role       string           `json:"role"`
	Content    string           `json:"content"`
	ToolCalls  []ollamaToolCall `json:"tool_calls,omitempty"`
	ToolName   string           `json:"tool_name,omitempty"`
	ToolCallID string           `json:"tool_call_id,omitempty"`
}

type ollamaOptions struct {
	NumCtx     int `json:"num_ctx"`
	NumPredict int `json:"num_predict"`
}

type ollamaRequest struct {
	Model    string          `json:"model"`
	Messages []ollamaMessage `json:"messages"`
	Stream   bool            `json:"stream"`
	Options  ollamaOptions   `json:"options"`
}

// ollamaBody is an /api/chat body: "model", a system message with the
// stable and semi tiers (none when both are empty), the conversation with
// tool-call arguments as objects, a run of parallel calls in one assistant
// message, and each result naming its call right after it (pairTools), the dynamic context as a last user message; "stream" as
// configured (false by default), and options.num_ctx (opts.NumCtx, else
// the model's window) and options.num_predict (the reply limit), so Ollama
// never cuts the prompt's start to fit its default context length
// (https://docs.ollama.com/context-length).
func ollamaBody(p *Prompt, opts RenderOptions) ollamaRequest {
	numCtx := opts.NumCtx
	if numCtx <= 0 {
		numCtx = opts.limit(Ollama).ContextWindow
	}
	req := ollamaRequest{Model: opts.model(Ollama), Messages: []ollamaMessage{}, Stream: opts.Stream,
		Options: ollamaOptions{NumCtx: numCtx, NumPredict: opts.maxTokens()}}
	if sys := systemText(p); sys != "" {
		req.Messages = append(req.Messages, ollamaMessage{Role: "system", Content: sys})
	}
	for _, st := range toolSteps(pairTools(p.Messages)) {
		om := ollamaMessage{Role: st.msg.Role, Content: st.msg.Content}
		for _, tc := range st.calls {
			om.ToolCalls = append(om.ToolCalls, ollamaToolCall{ID: tc.ID, Function: ollamaFunction{Name: toolName(tc.Name), Arguments: argsObject(tc.Arguments)}})
		}
		req.Messages = append(req.Messages, om)
		for _, r := range st.results {
			req.Messages = append(req.Messages, ollamaMessage{Role: "tool", Content: r.Content, ToolName: toolName(r.ToolName), ToolCallID: r.ToolCallID})
		}
	}
	if dyn := p.DynamicContext(); dyn != "" {
		req.Messages = append(req.Messages, ollamaMessage{Role: "user", Content: dyn})
	}
	if len(req.Messages) == 0 {
		req.Messages = append(req.Messages, ollamaMessage{Role: "user", Content: continueText})
	}
	return req
}

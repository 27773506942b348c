package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine/prompt"
)

// fakeAPI is an httptest server per provider that checks a request body as
// the real API does before answering, and answers in the API's shape: 200
// with a reply, or 400 with the API's error shape and the reason. Its
// rules are written here, over the SDK's decoding of the body, apart from
// prompt.Check, so the two can disagree.
type fakeAPI struct {
	count func(string) int
	// window returns the model's limits the server enforces.
	window func(provider, model string) prompt.Limit
}

// start returns a server for provider; close it with t.Cleanup.
func (f *fakeAPI) start(t *testing.T, provider string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		model := ""
		if m, ok := urlModel(provider, r.URL.Path); ok {
			model = m
		} else if provider == prompt.Gemini {
			// POST /v1beta/models/MODEL:generateContent
			p := strings.TrimPrefix(r.URL.Path, "/v1beta/models/")
			model = strings.TrimSuffix(p, ":generateContent")
			if p == r.URL.Path || model == p {
				http.Error(w, `{"error":{"code":404,"message":"not found","status":"NOT_FOUND"}}`, http.StatusNotFound)
				return
			}
		}
		if err := f.check(provider, model, r.URL.Path, body); err != nil {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			_ = json.NewEncoder(w).Encode(apiError(provider, err.Error()))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, reply(provider))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// endpoint is the path a provider's body is sent to.
func endpoint(provider, model string, body []byte) string {
	switch provider {
	case prompt.Anthropic:
		return "/v1/messages"
	case prompt.OpenAI:
		if strings.Contains(string(body), `"input":`) {
			return "/v1/responses"
		}
		return "/v1/chat/completions"
	case prompt.Gemini:
		return "/v1beta/models/" + model + ":generateContent"
	case prompt.DeepSeek:
		return "/chat/completions"
	case prompt.OpenRouter:
		return "/api/v1/chat/completions"
	case prompt.HuggingFace:
		if strings.Contains(string(body), `"inputs":`) {
			return "/hf-inference/models/" + model
		}
		return "/v1/chat/completions"
	case prompt.Replicate:
		return "/v1/models/" + model + "/predictions"
	}
	return "/api/chat"
}

// urlModel returns the model of a request whose URL carries it
// (Replicate, a Hugging Face text-generation endpoint).
func urlModel(provider, path string) (string, bool) {
	switch provider {
	case prompt.Replicate:
		m, ok := strings.CutPrefix(path, "/v1/models/")
		m, ok2 := strings.CutSuffix(m, "/predictions")
		return m, ok && ok2 && strings.Count(m, "/") == 1
	case prompt.HuggingFace:
		m, ok := strings.CutPrefix(path, "/hf-inference/models/")
		return m, ok && m != ""
	}
	return "", false
}

func apiError(provider, msg string) any {
	switch provider {
	case prompt.Anthropic:
		return map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}}
	case prompt.Gemini:
		return map[string]any{"error": map[string]any{"code": 400, "message": msg, "status": "INVALID_ARGUMENT"}}
	case prompt.Ollama:
		return map[string]any{"error": msg}
	}
	return map[string]any{"error": map[string]any{"message": msg, "type": "invalid_request_error"}}
}

func reply(provider string) string {
	switch provider {
	case prompt.Anthropic:
		return `{"id":"msg_1","type":"message","role":"assistant","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`
	case prompt.Gemini:
		return `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}]}`
	case prompt.Ollama:
		return `{"model":"m","message":{"role":"assistant","content":"ok"},"done":true}`
	}
	return `{"id":"x","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}]}`
}

// check decodes body with the provider's SDK and applies the API's rules
// to the SDK's serialization of it.
func (f *fakeAPI) check(provider, model, path string, body []byte) error {
	if want := endpoint(provider, model, body); path != want {
		return fmt.Errorf("%s body sent to %s, want %s", provider, path, want)
	}
	out, err := sdkDecode(provider, body)
	if err != nil {
		return err
	}
	var req map[string]any
	if err := json.Unmarshal(out, &req); err != nil {
		return err
	}
	if model == "" {
		model, _ = req["model"].(string)
	}
	l := f.window(provider, model)
	var text strings.Builder
	collectText(req, &text)
	tokens := f.count(text.String())
	switch provider {
	case prompt.Anthropic:
		return f.anthropic(req, l, tokens)
	case prompt.OpenAI:
		if req["input"] != nil {
			return callsAnswered(items(req["input"]), "function_call", "function_call_output", "call_id", tokensWithin(tokens, l.PromptLimit(0)))
		}
		return f.openAIChat(req, l, tokens)
	case prompt.Gemini:
		return f.gemini(req, l, tokens)
	case prompt.DeepSeek, prompt.OpenRouter:
		return f.compatChat(provider, body, req, l, tokens)
	case prompt.HuggingFace:
		if req["inputs"] != nil {
			return f.textGeneration(req, l)
		}
		return f.compatChat(provider, body, req, l, tokens)
	case prompt.Replicate:
		return f.replicate(req, l)
	}
	return f.ollama(req, l, tokens)
}

// compatChat applies what the OpenAI-compatible APIs check on top of
// Chat Completions' rules (openAIChat): DeepSeek refuses reasoning_content
// in the input (https://api-docs.deepseek.com/guides/reasoning_model) and a
// max_tokens over the model's; OpenRouter wants a vendor/model name, a
// tools entry for every call an Anthropic model replays, and at most 4
// cache_control markers; every provider counts max_tokens against the
// window. raw is the body as sent (the SDK's form drops the extensions).
func (f *fakeAPI) compatChat(provider string, raw []byte, req map[string]any, l prompt.Limit, tokens int) error {
	model, _ := req["model"].(string)
	maxTokens, _ := req["max_tokens"].(float64)
	if maxTokens < 1 || l.MaxOutput > 0 && int(maxTokens) > l.MaxOutput {
		return fmt.Errorf("invalid max_tokens value, the valid range of max_tokens is [1, %d]", l.MaxOutput)
	}
	if bytes.Contains(raw, []byte(`"reasoning_content"`)) {
		return fmt.Errorf("the reasoning_content of earlier turns must not be in the input messages")
	}
	if provider == prompt.OpenRouter {
		if !strings.Contains(model, "/") {
			return fmt.Errorf("%q is not a valid model ID", model)
		}
		tools := map[string]bool{}
		for _, t := range items(req["tools"]) {
			fn, _ := t["function"].(map[string]any)
			tools[fmt.Sprint(fn["name"])] = true
		}
		for i, m := range items(req["messages"]) {
			for _, c := range items(m["tool_calls"]) {
				fn, _ := c["function"].(map[string]any)
				if prompt.OpenRouterBreakpoints(model) && !tools[fmt.Sprint(fn["name"])] {
					return fmt.Errorf("messages.%d: tool_use %v requires a tool definition in tools", i, fn["name"])
				}
			}
		}
		if n := bytes.Count(raw, []byte(`"cache_control"`)); n > prompt.AnthropicMaxBreakpoints {
			return fmt.Errorf("a maximum of 4 blocks with cache_control may be provided. Found %d", n)
		}
	}
	l.MaxInput = 0
	if err := f.openAIChat(req, l, 0); err != nil {
		return err
	}
	return tokensWithin(tokens+int(maxTokens), l.ContextWindow)
}

// textGeneration checks a text-generation request as TGI does: inputs
// and max_new_tokens within the model's window.
func (f *fakeAPI) textGeneration(req map[string]any, l prompt.Limit) error {
	in, _ := req["inputs"].(string)
	params, _ := req["parameters"].(map[string]any)
	n, _ := params["max_new_tokens"].(float64)
	if n < 1 {
		return fmt.Errorf("max_new_tokens must be strictly positive")
	}
	if t := f.count(in); t+int(n) > l.ContextWindow {
		return fmt.Errorf("inputs tokens + max_new_tokens must be <= %d. Given: %d inputs tokens and %d max_new_tokens", l.ContextWindow, t, int(n))
	}
	return nil
}

// replicate checks a prediction's input as the language models on
// Replicate do: a prompt, max_tokens at least 1, and the prompt, system
// prompt and reply within the model's window.
func (f *fakeAPI) replicate(req map[string]any, l prompt.Limit) error {
	in, _ := req["input"].(map[string]any)
	p, _ := in["prompt"].(string)
	sys, _ := in["system_prompt"].(string)
	n, _ := in["max_tokens"].(float64)
	if p == "" {
		return fmt.Errorf("input.prompt is required")
	}
	if n < 1 {
		return fmt.Errorf("input.max_tokens: must be greater than or equal to 1")
	}
	return tokensWithin(f.count(sys+p)+int(n), l.ContextWindow)
}

func tokensWithin(tokens, limit int) error {
	if tokens > limit {
		return fmt.Errorf("prompt is too long: %d tokens > %d maximum", tokens, limit)
	}
	return nil
}

func items(v any) []map[string]any {
	var out []map[string]any
	if a, ok := v.([]any); ok {
		for _, e := range a {
			if m, ok := e.(map[string]any); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

// collectText gathers the prompt text of a decoded body: every "text",
// "content", "instructions", "output", "arguments" string and the
// functionCall/functionResponse payloads.
func collectText(v any, b *strings.Builder) {
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			switch s := t[k].(type) {
			case string:
				if k == "text" || k == "content" || k == "instructions" || k == "output" || k == "arguments" || k == "name" {
					b.WriteString(s + "\n")
				}
			default:
				collectText(s, b)
			}
		}
	case []any:
		for _, e := range t {
			collectText(e, b)
		}
	}
}

// callsAnswered checks that every call item of kind call is answered by a
// later item of kind result with the same id key, and that every result
// answers an earlier call; then returns also.
func callsAnswered(its []map[string]any, call, result, key string, also error) error {
	open := map[string]bool{}
	for i, it := range its {
		switch it["type"] {
		case call:
			open[fmt.Sprint(it[key])] = true
		case result:
			id := fmt.Sprint(it[key])
			if !open[id] {
				return fmt.Errorf("input[%d]: no call found for %s output with %s %s", i, result, key, id)
			}
			delete(open, id)
		}
	}
	for id := range open {
		return fmt.Errorf("no tool output found for function call %s", id)
	}
	return also
}

func (f *fakeAPI) anthropic(req map[string]any, l prompt.Limit, tokens int) error {
	msgs := items(req["messages"])
	if len(msgs) == 0 || msgs[0]["role"] != "user" {
		return fmt.Errorf("messages: the first message must use the user role")
	}
	tools := map[string]bool{}
	for _, t := range items(req["tools"]) {
		tools[fmt.Sprint(t["name"])] = true
	}
	breakpoints := 0
	for _, b := range items(req["system"]) {
		if b["cache_control"] != nil {
			breakpoints++
		}
	}
	var pending map[string]bool
	for i, m := range msgs {
		if i > 0 && msgs[i-1]["role"] == m["role"] {
			return fmt.Errorf("messages: roles must alternate between user and assistant (message %d)", i)
		}
		blocks := items(m["content"])
		if len(blocks) == 0 {
			return fmt.Errorf("messages.%d: content must be non-empty", i)
		}
		if m["role"] == "user" {
			for j, b := range blocks {
				if b["type"] != "tool_result" {
					break
				}
				if !pending[fmt.Sprint(b["tool_use_id"])] {
					return fmt.Errorf("messages.%d.content.%d: unexpected tool_use_id found in tool_result blocks", i, j)
				}
				delete(pending, fmt.Sprint(b["tool_use_id"]))
			}
			if len(pending) > 0 {
				return fmt.Errorf("messages.%d: tool_use ids were found without tool_result blocks immediately after", i)
			}
		}
		pending = map[string]bool{}
		for _, b := range blocks {
			if b["cache_control"] != nil {
				breakpoints++
			}
			if b["type"] == "text" && strings.TrimSpace(fmt.Sprint(b["text"])) == "" {
				return fmt.Errorf("messages.%d: text content blocks must be non-empty", i)
			}
			if b["type"] == "tool_use" {
				if !tools[fmt.Sprint(b["name"])] {
					return fmt.Errorf("messages.%d: tool_use %v requires a tool definition in tools", i, b["name"])
				}
				pending[fmt.Sprint(b["id"])] = true
			}
		}
	}
	if len(pending) > 0 {
		return fmt.Errorf("the last message has tool_use blocks without results")
	}
	if breakpoints > 4 {
		return fmt.Errorf("a maximum of 4 blocks with cache_control may be provided. Found %d", breakpoints)
	}
	maxTokens := int(req["max_tokens"].(float64))
	if l.MaxOutput > 0 && maxTokens > l.MaxOutput {
		return fmt.Errorf("max_tokens: %d > %d, which is the maximum allowed", maxTokens, l.MaxOutput)
	}
	return tokensWithin(tokens+maxTokens, l.ContextWindow)
}

func (f *fakeAPI) openAIChat(req map[string]any, l prompt.Limit, tokens int) error {
	msgs := items(req["messages"])
	open := map[string]bool{}
	for i, m := range msgs {
		role := m["role"]
		if role != "tool" && len(open) > 0 {
			return fmt.Errorf("an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id' (message %d)", i)
		}
		switch role {
		case "tool":
			id := fmt.Sprint(m["tool_call_id"])
			if !open[id] {
				return fmt.Errorf("messages with role 'tool' must be a response to a preceding message with 'tool_calls' (message %d)", i)
			}
			delete(open, id)
		case "developer":
			if !l.DeveloperRole {
				return fmt.Errorf("the developer role is not supported with model %s", l.Model)
			}
		}
		for _, c := range items(m["tool_calls"]) {
			fn, _ := c["function"].(map[string]any)
			if _, ok := fn["arguments"].(string); !ok {
				return fmt.Errorf("messages.%d: tool call arguments must be a string", i)
			}
			open[fmt.Sprint(c["id"])] = true
		}
	}
	if len(open) > 0 {
		return fmt.Errorf("an assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'")
	}
	return tokensWithin(tokens, l.PromptLimit(0))
}

func (f *fakeAPI) gemini(req map[string]any, l prompt.Limit, tokens int) error {
	cts := items(req["contents"])
	current := 0
	for i, c := range cts {
		for _, p := range items(c["parts"]) {
			if c["role"] == "user" && p["text"] != nil {
				current = i + 1
			}
		}
	}
	for i, c := range cts {
		if c["role"] != "user" && c["role"] != "model" {
			return fmt.Errorf("please use a valid role: user, model (content %d)", i)
		}
		var calls []string
		for j, p := range items(c["parts"]) {
			if fc, ok := p["functionCall"].(map[string]any); ok {
				if j == 0 || len(calls) == 0 {
					if i >= current && l.ThoughtSignatures && p["thoughtSignature"] == nil {
						return fmt.Errorf("function call %v in the %d. content block is missing a thought_signature", fc["name"], i)
					}
				}
				calls = append(calls, fmt.Sprint(fc["name"]))
			}
		}
		if len(calls) == 0 {
			continue
		}
		if i == 0 || cts[i-1]["role"] != "user" {
			return fmt.Errorf("please ensure that function call turn comes immediately after a user turn or after a function response turn")
		}
		if i+1 == len(cts) {
			return fmt.Errorf("please ensure that function response turn comes immediately after a function call turn")
		}
		want := map[string]int{}
		for _, n := range calls {
			want[n]++
		}
		for _, p := range items(cts[i+1]["parts"]) {
			if fr, ok := p["functionResponse"].(map[string]any); ok {
				want[fmt.Sprint(fr["name"])]--
			}
		}
		for n, k := range want {
			if k != 0 {
				return fmt.Errorf("please ensure that the number of function response parts is equal to the number of function call parts of the function call turn (%s)", n)
			}
		}
	}
	return tokensWithin(tokens, l.PromptLimit(0))
}

func (f *fakeAPI) ollama(req map[string]any, l prompt.Limit, tokens int) error {
	opts, _ := req["options"].(map[string]any)
	numCtx, _ := opts["num_ctx"].(float64)
	if numCtx <= 0 {
		// Ollama would answer 200 and silently drop the prompt's start: a
		// body without num_ctx is refused here.
		return fmt.Errorf("options.num_ctx is not set: the prompt would be cut to the default context length")
	}
	if int(numCtx) > l.ContextWindow {
		return fmt.Errorf("requested context size %d is too large for model %s (%d)", int(numCtx), l.Model, l.ContextWindow)
	}
	open := map[string]bool{}
	for i, m := range items(req["messages"]) {
		if m["role"] != "tool" && len(open) > 0 {
			return fmt.Errorf("message %d: tool calls without results", i)
		}
		if m["role"] == "tool" {
			id := fmt.Sprint(m["tool_call_id"])
			if !open[id] {
				return fmt.Errorf("message %d: tool result for an unknown call %s", i, id)
			}
			delete(open, id)
		}
		for _, c := range items(m["tool_calls"]) {
			fn, _ := c["function"].(map[string]any)
			if _, ok := fn["arguments"].(map[string]any); !ok {
				return fmt.Errorf("message %d: tool call arguments must be an object", i)
			}
			open[fmt.Sprint(c["id"])] = true
		}
	}
	predict, _ := opts["num_predict"].(float64)
	return tokensWithin(tokens+int(predict), int(numCtx))
}

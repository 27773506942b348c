package prompt

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// words counts whitespace-separated words: a deterministic stand-in for a
// tokenizer in tests that only compare counts with thresholds.
func words(s string) int { return len(strings.Fields(s)) }

// countedPrompt is the fixture prompt with section counts, its stable
// tier padded to stable words.
func countedPrompt(stable int) *Prompt {
	in := fixtureInput()
	in.RoleTemplate = strings.TrimSpace(strings.Repeat("rule ", stable))
	p := Assemble(in)
	p.Count(words)
	return p
}

func decodeAnthropic(t *testing.T, body []byte) anthropicRequest {
	t.Helper()
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	return req
}

// TestAnthropicBreakpointsClearTheMinimum: a breakpoint goes on the last
// block of a tier only when the prefix it closes reaches the model's
// minimum cacheable length, never more than 4, and AnthropicBreakpoints
// (the cache outlook) names the same prefixes as the body's markers.
func TestAnthropicBreakpointsClearTheMinimum(t *testing.T) {
	for _, tc := range []struct {
		name   string
		stable int
		min    int
		want   []bool // stable block, semi block, last conversation block
	}{
		{"all long enough", 3000, 1024, []bool{true, true, true}},
		{"short stable", 10, -1, []bool{false, false, true}}, // -1: just past the semi tier
		{"nothing reaches", 10, 1 << 20, []bool{false, false, false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := countedPrompt(tc.stable)
			if tc.min < 0 {
				for _, s := range p.Sections {
					if s.Tier != Dynamic {
						tc.min += s.Tokens
					}
				}
				tc.min += 2
			}
			opts := RenderOptions{Override: LimitOverride{MinCacheable: &tc.min}}
			body, err := Render(p, Anthropic, opts)
			if err != nil {
				t.Fatal(err)
			}
			if err := validateBody(Anthropic, body); err != nil {
				t.Fatal(err)
			}
			req := decodeAnthropic(t, body)
			var got []bool
			for _, b := range req.System {
				got = append(got, b.CacheControl != nil)
			}
			// The last conversation block is the one before the dynamic
			// context block, which is never marked.
			last := req.Messages[len(req.Messages)-1].Content
			if last[len(last)-1].CacheControl != nil {
				t.Error("the dynamic context carries a breakpoint")
			}
			got = append(got, last[len(last)-2].CacheControl != nil)
			if strings.Join(boolStrings(got), ",") != strings.Join(boolStrings(tc.want), ",") {
				t.Errorf("breakpoints %v, want %v", got, tc.want)
			}
			marks := bytes.Count(body, []byte(`"cache_control"`))
			at := AnthropicBreakpoints(p, opts)
			if len(at) != marks || marks > AnthropicMaxBreakpoints {
				t.Errorf("%d markers, AnthropicBreakpoints %v", marks, at)
			}
			for _, n := range at {
				if n < tc.min {
					t.Errorf("breakpoint at %d tokens, under the minimum %d", n, tc.min)
				}
			}
		})
	}
}

func boolStrings(bs []bool) []string {
	var out []string
	for _, b := range bs {
		if b {
			out = append(out, "y")
		} else {
			out = append(out, "n")
		}
	}
	return out
}

// TestAnthropicEndsOnUser: a conversation ending on an assistant turn with
// no dynamic context gets a user turn after it, unless prefill is
// configured; a prefill does not end in white space. tools lists every
// tool the conversation replays.
func TestAnthropicEndsOnUser(t *testing.T) {
	p := &Prompt{Target: "c", Messages: []Message{
		{ID: "1", Role: "user", Content: "go"},
		{ID: "2", Role: "assistant", Content: "", ToolCalls: []ToolCall{{ID: "a", Name: "mcp.server/read", Arguments: `{"p":1}`}}},
		{ID: "3", Role: "tool", ToolCallID: "a", Content: ""},
		{ID: "4", Role: "assistant", Content: "Done so far.\n"},
	}}
	p.Add(Section{ID: IDConversation, Heading: "Conversation"})
	body, _ := Render(p, Anthropic, RenderOptions{})
	if err := validateBody(Anthropic, body); err != nil {
		t.Fatal(err)
	}
	req := decodeAnthropic(t, body)
	if last := req.Messages[len(req.Messages)-1]; last.Role != "user" || last.Content[0].Text != continueText {
		t.Errorf("last turn %+v, want a user turn asking to continue", last)
	}
	if len(req.Tools) != 1 || req.Tools[0].Name != "mcp_server_read" || strings.Join(strings.Fields(string(req.Tools[0].InputSchema)), "") != `{"type":"object"}` {
		t.Errorf("tools %+v", req.Tools)
	}
	body, _ = Render(p, Anthropic, RenderOptions{Prefill: true})
	if err := validateBody(Anthropic, body); err != nil {
		t.Fatal(err)
	}
	req = decodeAnthropic(t, body)
	if last := req.Messages[len(req.Messages)-1]; last.Role != "assistant" || last.Content[0].Text != "Done so far." {
		t.Errorf("prefill turn %+v", last)
	}
}

// geminiCalls is a conversation whose current turn (after the last user
// message) replays a tool call, signed or not.
func geminiCalls(sig string) *Prompt {
	p := &Prompt{Target: "c", Messages: []Message{
		{ID: "1", Role: "user", Content: "run the tests"},
		{ID: "2", Role: "assistant", ToolCalls: []ToolCall{{ID: "a", Name: "bash", Arguments: `{"cmd":"go test"}`, Signature: sig}}},
		{ID: "3", Role: "tool", ToolCallID: "a", ToolName: "bash", Content: "FAIL"},
	}}
	p.Add(Section{ID: IDConversation, Heading: "Conversation"})
	return p
}

func TestGeminiThoughtSignatures(t *testing.T) {
	// Signed: the call keeps its signature, byte for byte.
	body, _ := Render(geminiCalls("c2lnbmVk"), Gemini, RenderOptions{})
	if !bytes.Contains(body, []byte(`"thoughtSignature": "c2lnbmVk"`)) || !bytes.Contains(body, []byte(`"functionCall"`)) {
		t.Errorf("signed call lost its signature:\n%s", body)
	}
	if n := Notes(geminiCalls("c2lnbmVk"), Gemini, RenderOptions{}); n != nil {
		t.Errorf("notes for a signed call: %v", n)
	}
	// Unsigned, Gemini 3: sent as text, and Notes says so.
	p := geminiCalls("")
	body, _ = Render(p, Gemini, RenderOptions{})
	if bytes.Contains(body, []byte(`"functionCall"`)) || !bytes.Contains(body, []byte("[tool call bash]")) || !bytes.Contains(body, []byte("Tool result (bash): FAIL")) {
		t.Errorf("unsigned Gemini 3 call not carried as text:\n%s", body)
	}
	if err := validateBody(Gemini, body); err != nil {
		t.Error(err)
	}
	notes := Notes(p, Gemini, RenderOptions{})
	if len(notes) != 1 || !strings.Contains(notes[0].Message, "no thoughtSignature") || !strings.Contains(notes[0].Message, DefaultGeminiModel) {
		t.Errorf("notes %v", notes)
	}
	// The same calls as functionCall parts would be rejected by Check.
	raw := `{"contents":[{"role":"user","parts":[{"text":"run the tests"}]},{"role":"model","parts":[{"functionCall":{"name":"bash","args":{}}}]},{"role":"user","parts":[{"functionResponse":{"name":"bash","response":{"content":"FAIL"}}}]}]}`
	if probs := Check(Gemini, []byte(raw), CheckOptions{}); len(probs) == 0 {
		t.Error("Check accepted an unsigned current-turn call for Gemini 3")
	}
	// Gemini 2.5 does not validate signatures: the call stays structured.
	body, _ = Render(p, Gemini, RenderOptions{Model: "gemini-2.5-pro"})
	if !bytes.Contains(body, []byte(`"functionCall"`)) || Notes(p, Gemini, RenderOptions{Model: "gemini-2.5-pro"}) != nil {
		t.Errorf("gemini-2.5-pro body:\n%s", body)
	}
}

func TestResponsesBody(t *testing.T) {
	p := Assemble(fixtureInput())
	body, err := Render(p, OpenAI, RenderOptions{OpenAIAPI: OpenAIResponses})
	if err != nil {
		t.Fatal(err)
	}
	if err := validateBody(OpenAI, body); err != nil {
		t.Fatal(err)
	}
	var req struct {
		Model, Instructions, PromptCacheKey string           `json:"-"`
		Input                               []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		t.Fatal(err)
	}
	types := map[string]int{}
	for _, it := range req.Input {
		types[it["type"].(string)]++
		if it["type"] == "function_call" {
			if _, ok := it["arguments"].(string); !ok {
				t.Errorf("arguments %v not a string", it["arguments"])
			}
		}
	}
	if types["function_call"] != 2 || types["function_call_output"] != 2 {
		t.Errorf("input item types %v", types)
	}
	var head map[string]any
	_ = json.Unmarshal(body, &head)
	if head["instructions"] == "" || head["prompt_cache_key"] != PromptCacheKey(p) || !strings.HasPrefix(PromptCacheKey(p), "recite-") {
		t.Errorf("instructions or prompt_cache_key missing: %v", head["prompt_cache_key"])
	}
	// The key follows the target and its conversation, never the prompt's
	// text: every turn of a conversation goes to the same cache.
	q := Assemble(fixtureInput())
	q.Section(IDState).Body += "\nchanged"
	q.Section(IDSystem).Body += "\nchanged"
	q.Messages = q.Messages[:1]
	if PromptCacheKey(q) != PromptCacheKey(p) {
		t.Error("an edit of the prompt changed prompt_cache_key")
	}
	q.Conversation = "other.jsonl"
	if PromptCacheKey(q) == PromptCacheKey(p) {
		t.Error("another conversation kept prompt_cache_key")
	}
	q.Conversation, q.Target = p.Conversation, "other"
	if PromptCacheKey(q) == PromptCacheKey(p) {
		t.Error("another target kept prompt_cache_key")
	}
}

func TestOpenAIDeveloperRoleByModel(t *testing.T) {
	p := Assemble(fixtureInput())
	for model, want := range map[string]string{"gpt-6.1-sol": "developer", "o3-mini": "developer", "gpt-4o": "system", "some-proxy-model": "system"} {
		body, _ := Render(p, OpenAI, RenderOptions{Model: model})
		var req openAIRequest
		_ = json.Unmarshal(body, &req)
		if req.Messages[0].Role != want {
			t.Errorf("%s: role %s, want %s", model, req.Messages[0].Role, want)
		}
	}
	body, _ := Render(p, OpenAI, RenderOptions{Model: "gpt-6.1-sol", OpenAISystemRole: "system"})
	if !bytes.Contains(body, []byte(`"role": "system"`)) {
		t.Error("openai_system_role: system not honoured")
	}
}

func TestOllamaNumCtx(t *testing.T) {
	p := Assemble(fixtureInput())
	var req ollamaRequest
	body, _ := Render(p, Ollama, RenderOptions{})
	_ = json.Unmarshal(body, &req)
	if req.Options.NumCtx != 131_072 || req.Options.NumPredict != DefaultMaxTokens || req.Stream || req.Model != DefaultOllamaModel {
		t.Errorf("default ollama body: %+v", req.Options)
	}
	body, _ = Render(p, Ollama, RenderOptions{NumCtx: NumCtx(9000, 1000, 131_072), Stream: true})
	_ = json.Unmarshal(body, &req)
	if req.Options.NumCtx != 16_384 || !req.Stream {
		t.Errorf("num_ctx %d stream %v: want 16384 (the 9000 tokens of the prompt plus the 1000 of the reply, to the next 2048·2^k), streaming", req.Options.NumCtx, req.Stream)
	}
}

// TestNumCtx: num_ctx holds the prompt and the reply, is a multiple of
// 2048, stays the same while the prompt grows inside it (a new num_ctx
// reloads the model) and never passes the window.
func TestNumCtx(t *testing.T) {
	for _, tt := range []struct{ tokens, reply, window, want int }{
		{0, 0, 131_072, 2048},
		{6000, 4096, 131_072, 16_384}, // a 6k prompt: not the whole window
		{2048 - 100, 100, 131_072, 2048},
		{2048 - 99, 100, 131_072, 4096},
		{120_000, 4096, 131_072, 131_072},
		{200_000, 4096, 131_072, 131_072},
		{5000, 1000, 3000, 3000}, // a window below the step is the window
	} {
		if got := NumCtx(tt.tokens, tt.reply, tt.window); got != tt.want || got%NumCtxStep != 0 && got != tt.window {
			t.Errorf("NumCtx(%d, %d, %d) = %d, want %d", tt.tokens, tt.reply, tt.window, got, tt.want)
		}
	}
	prev, changes := NumCtx(6000, 4096, 131_072), 0
	for tokens := 6000; tokens < 100_000; tokens += 300 {
		if n := NumCtx(tokens, 4096, 131_072); n != prev {
			changes++
			if n < tokens+4096 {
				t.Fatalf("num_ctx %d below the prompt of %d tokens and the reply", n, tokens)
			}
			prev = n
		}
	}
	if changes > 3 {
		t.Errorf("num_ctx changed %d times while the prompt grew from 6k to 100k tokens; a change reloads the model", changes)
	}
}

func TestLimits(t *testing.T) {
	l := Limits(Anthropic, "", LimitOverride{})
	if l.Model != DefaultAnthropicModel || !l.Known || l.ContextWindow != 1_000_000 || l.MinCacheable != 1024 {
		t.Errorf("default anthropic %+v", l)
	}
	if got := l.PromptLimit(4096); got != 1_000_000-4096 {
		t.Errorf("prompt limit %d", got)
	}
	o := Limits(OpenAI, "gpt-6.1-sol", LimitOverride{})
	if o.PromptLimit(4096) != 922_000 || !o.DeveloperRole {
		t.Errorf("gpt-6.1-sol %+v", o)
	}
	unknown := Limits(Ollama, "my-finetune", LimitOverride{})
	if unknown.Known || unknown.ContextWindow != 32_768 {
		t.Errorf("unknown ollama model %+v", unknown)
	}
	win, minc, dev := 4096, 0, true
	ov := Limits(OpenAI, "gpt-4o", LimitOverride{ContextWindow: &win, MinCacheable: &minc, DeveloperRole: &dev})
	if ov.ContextWindow != 4096 || ov.MaxInput != 0 || ov.MinCacheable != 0 || !ov.DeveloperRole {
		t.Errorf("override %+v", ov)
	}
	if got := ov.PromptLimit(4096); got != 2048 {
		t.Errorf("the reply takes at most half the window: %d", got)
	}
	for model, want := range map[string]int{"claude-opus-5-5": 512, "claude-haiku-4-5": 4096, "claude-opus-4-7": 2048, "claude-sonnet-4-5": 1024} {
		if got := Limits(Anthropic, model, LimitOverride{}).MinCacheable; got != want {
			t.Errorf("%s min cacheable %d, want %d", model, got, want)
		}
	}
	if !Limits(Gemini, "", LimitOverride{}).ThoughtSignatures || Limits(Gemini, "gemini-2.5-pro", LimitOverride{}).ThoughtSignatures {
		t.Error("thought signatures: Gemini 3 only")
	}
}

// TestPromptLimitNoReplyForFiles: markdown and text name no model and keep
// their whole window for the prompt.
func TestPromptLimitNoReplyForFiles(t *testing.T) {
	if got := Limits(Markdown, "", LimitOverride{}).PromptLimit(4096); got != 200_000 {
		t.Errorf("markdown limit %d", got)
	}
	if got := Limits(Text, "", LimitOverride{}).PromptLimit(4096); got != 128_000 {
		t.Errorf("text limit %d", got)
	}
}

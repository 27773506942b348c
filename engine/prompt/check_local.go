package prompt

import (
	"encoding/json"
	"fmt"
	"strings"
)

// ---- Gemini ----

type checkGeminiPart struct {
	Text         *string `json:"text"`
	FunctionCall *struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall"`
	FunctionResponse *struct {
		Name     string          `json:"name"`
		Response json.RawMessage `json:"response"`
	} `json:"functionResponse"`
	ThoughtSignature string `json:"thoughtSignature"`
}

type checkGeminiContent struct {
	Role  string            `json:"role"`
	Parts []checkGeminiPart `json:"parts"`
}

func (c *checker) gemini(body []byte) {
	var req struct {
		SystemInstruction *checkGeminiContent  `json:"systemInstruction"`
		Contents          []checkGeminiContent `json:"contents"`
	}
	if !c.decode(body, &req) {
		return
	}
	l := Limits(Gemini, c.opts.Model, c.opts.Override)
	if si := req.SystemInstruction; si != nil {
		for i, p := range si.Parts {
			if p.Text == nil || strings.TrimSpace(*p.Text) == "" || p.FunctionCall != nil || p.FunctionResponse != nil {
				c.fail(fmt.Sprintf("systemInstruction.parts[%d]", i), "system instruction parts must be non-empty text")
			}
		}
	}
	if len(req.Contents) == 0 {
		c.fail("contents", "empty: a request needs at least one content")
	} else if req.Contents[0].Role != "user" {
		c.fail("contents[0]", "the first content must be a user turn, not %q", req.Contents[0].Role)
	}
	current := 0 // first content of the current turn
	for i, ct := range req.Contents {
		for _, p := range ct.Parts {
			if ct.Role == "user" && p.Text != nil {
				current = i + 1
			}
		}
	}
	for i, ct := range req.Contents {
		at := fmt.Sprintf("contents[%d]", i)
		if ct.Role != "user" && ct.Role != "model" {
			c.fail(at, "role %q (want user or model)", ct.Role)
		}
		if len(ct.Parts) == 0 {
			c.fail(at, "no parts")
		}
		var calls []string
		for j, p := range ct.Parts {
			pat := fmt.Sprintf("%s.parts[%d]", at, j)
			kinds := 0
			if p.Text != nil {
				kinds++
				if strings.TrimSpace(*p.Text) == "" {
					c.fail(pat, "empty text part")
				}
			}
			if p.FunctionCall != nil {
				kinds++
				var obj map[string]any
				if ct.Role != "model" || json.Unmarshal(p.FunctionCall.Args, &obj) != nil {
					c.fail(pat, "a functionCall belongs to a model turn and takes args as an object")
				}
				if len(calls) == 0 && i >= current && l.ThoughtSignatures && p.ThoughtSignature == "" {
					c.fail(pat, "functionCall of the current turn without its thoughtSignature: %s rejects it", l.Model)
				}
				calls = append(calls, p.FunctionCall.Name)
			}
			if p.FunctionResponse != nil {
				kinds++
				var obj map[string]any
				if ct.Role != "user" || json.Unmarshal(p.FunctionResponse.Response, &obj) != nil {
					c.fail(pat, "a functionResponse belongs to a user turn and takes response as an object")
				}
			}
			if kinds != 1 {
				c.fail(pat, "a part holds exactly one of text, functionCall, functionResponse")
			}
		}
		if len(calls) > 0 {
			c.geminiAdjacent(i, req.Contents, calls)
		}
	}
	c.window(bodyText(body), l.PromptLimit(0), l.Model+"'s input limit")
}

// geminiAdjacent checks that the functionCall content i follows a user
// turn and is followed by a content answering each call, by name.
func (c *checker) geminiAdjacent(i int, cts []checkGeminiContent, calls []string) {
	at := fmt.Sprintf("contents[%d]", i)
	if i == 0 || cts[i-1].Role != "user" {
		c.fail(at, "a functionCall turn must follow a user turn or a functionResponse turn")
	}
	if i+1 >= len(cts) {
		c.fail(at, "functionCall never answered")
		return
	}
	want := map[string]int{}
	for _, n := range calls {
		want[n]++
	}
	for _, p := range cts[i+1].Parts {
		if p.FunctionResponse != nil {
			want[p.FunctionResponse.Name]--
		}
	}
	for n, k := range want {
		if k > 0 {
			c.fail(at, "functionCall %q not answered by a functionResponse in the next turn", n)
		}
	}
}

// ---- Ollama ----

func (c *checker) ollama(body []byte) {
	var req struct {
		Model    string `json:"model"`
		Stream   *bool  `json:"stream"`
		Messages []struct {
			Role      string `json:"role"`
			Content   string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Function struct {
					Name      string          `json:"name"`
					Arguments json.RawMessage `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
			ToolName   string `json:"tool_name"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
		Options struct {
			NumCtx     int `json:"num_ctx"`
			NumPredict int `json:"num_predict"`
		} `json:"options"`
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
		case "system", "user", "assistant":
		case "tool":
			if !pending.answer(m.ToolCallID) {
				c.fail(at, "tool result for %q, which no assistant message right before it called", m.ToolCallID)
			}
		default:
			c.fail(at, "role %q", m.Role)
		}
		for j, tc := range m.ToolCalls {
			cat := fmt.Sprintf("%s.tool_calls[%d]", at, j)
			var obj map[string]any
			if json.Unmarshal(tc.Function.Arguments, &obj) != nil {
				c.fail(cat, "function.arguments must be a JSON object")
			}
			pending.add(tc.ID, cat)
		}
	}
	pending.unanswered(c)
	switch {
	case req.Options.NumCtx <= 0:
		c.fail("options.num_ctx", "missing: Ollama then uses its default context length and silently cuts the prompt's start")
	case req.Options.NumCtx > l.ContextWindow:
		c.fail("options.num_ctx", "%d is over %s's context length of %d: Ollama caps it and cuts the prompt's start", req.Options.NumCtx, l.Model, l.ContextWindow)
	}
	if req.Options.NumCtx > 0 {
		c.window(bodyText(body), req.Options.NumCtx-req.Options.NumPredict, "options.num_ctx less options.num_predict")
	}
}

package prompt

import (
	"encoding/json"
	"fmt"
)

// validateBody checks the provider rules of PROVIDERS.md §5 on a rendered
// JSON body, offline. It is the validator every rendered body in the tests
// goes through.
func validateBody(provider string, body []byte) error {
	switch provider {
	case Anthropic:
		return validateAnthropic(body)
	case OpenAI:
		return validateOpenAI(body)
	case Gemini:
		return validateGemini(body)
	case Ollama:
		return validateOllama(body)
	}
	return nil
}

func validateAnthropic(body []byte) error {
	var req struct {
		System []struct {
			Type         string          `json:"type"`
			CacheControl json.RawMessage `json:"cache_control"`
		} `json:"system"`
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type         string          `json:"type"`
				ID           string          `json:"id"`
				ToolUseID    string          `json:"tool_use_id"`
				Input        json.RawMessage `json:"input"`
				CacheControl json.RawMessage `json:"cache_control"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err
	}
	breakpoints := 0
	for _, s := range req.System {
		if s.Type != "text" {
			return fmt.Errorf("system block of type %q", s.Type)
		}
		if s.CacheControl != nil {
			breakpoints++
		}
	}
	if len(req.Messages) == 0 || req.Messages[0].Role != "user" {
		return fmt.Errorf("messages must start with a user turn")
	}
	pending := map[string]bool{}
	for i, m := range req.Messages {
		if m.Role != "user" && m.Role != "assistant" {
			return fmt.Errorf("message %d: role %q", i, m.Role)
		}
		if i > 0 && req.Messages[i-1].Role == m.Role {
			return fmt.Errorf("message %d: consecutive %s turns not merged", i, m.Role)
		}
		if len(m.Content) == 0 {
			return fmt.Errorf("message %d: empty content", i)
		}
		seenOther := false
		for _, c := range m.Content {
			if c.CacheControl != nil {
				breakpoints++
			}
			switch c.Type {
			case "tool_use":
				if m.Role != "assistant" {
					return fmt.Errorf("message %d: tool_use in a %s turn", i, m.Role)
				}
				var obj map[string]any
				if json.Unmarshal(c.Input, &obj) != nil {
					return fmt.Errorf("message %d: tool_use input is not an object", i)
				}
				pending[c.ID] = true
			case "tool_result":
				if seenOther {
					return fmt.Errorf("message %d: tool_result after other content", i)
				}
				if !pending[c.ToolUseID] {
					return fmt.Errorf("message %d: tool_result for unknown tool_use %q", i, c.ToolUseID)
				}
				if i == 0 || req.Messages[i-1].Role != "assistant" {
					return fmt.Errorf("message %d: tool_result does not follow its tool_use turn", i)
				}
				delete(pending, c.ToolUseID)
			default:
				seenOther = true
			}
		}
		if m.Role == "user" && len(pending) > 0 && i > 0 {
			return fmt.Errorf("message %d: tool_use ids %v not answered in the next turn", i, pending)
		}
	}
	if breakpoints > 4 {
		return fmt.Errorf("%d cache breakpoints, at most 4", breakpoints)
	}
	return nil
}

func validateOpenAI(body []byte) error {
	var req struct {
		Messages []struct {
			Role      string  `json:"role"`
			Content   *string `json:"content"`
			ToolCalls []struct {
				ID       string `json:"id"`
				Type     string `json:"type"`
				Function struct {
					Name      string `json:"name"`
					Arguments any    `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
			ToolCallID string `json:"tool_call_id"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err
	}
	for i := 0; i < len(req.Messages); i++ {
		m := req.Messages[i]
		switch m.Role {
		case "system", "developer", "user", "assistant", "tool":
		default:
			return fmt.Errorf("message %d: role %q", i, m.Role)
		}
		if m.Role == "tool" {
			return fmt.Errorf("message %d: tool message without a preceding assistant tool call", i)
		}
		if len(m.ToolCalls) == 0 {
			continue
		}
		want := map[string]bool{}
		for _, tc := range m.ToolCalls {
			if _, ok := tc.Function.Arguments.(string); !ok {
				return fmt.Errorf("message %d: arguments must be a JSON string", i)
			}
			want[tc.ID] = true
		}
		j := i + 1
		for ; j < len(req.Messages) && req.Messages[j].Role == "tool"; j++ {
			id := req.Messages[j].ToolCallID
			if !want[id] {
				return fmt.Errorf("message %d: tool_call_id %q answers no open call of message %d", j, id, i)
			}
			delete(want, id)
		}
		if len(want) > 0 {
			return fmt.Errorf("message %d: tool_call_ids %v not answered", i, want)
		}
		i = j - 1
	}
	return nil
}

func validateGemini(body []byte) error {
	var req struct {
		SystemInstruction struct {
			Parts []json.RawMessage `json:"parts"`
		} `json:"systemInstruction"`
		Contents []struct {
			Role  string `json:"role"`
			Parts []struct {
				Text         *string `json:"text"`
				FunctionCall *struct {
					Name string         `json:"name"`
					Args map[string]any `json:"args"`
				} `json:"functionCall"`
				FunctionResponse *struct {
					Name string `json:"name"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err
	}
	if len(req.Contents) > 0 && req.Contents[0].Role != "user" {
		return fmt.Errorf("contents must start with a user turn, not %q", req.Contents[0].Role)
	}
	for i, c := range req.Contents {
		if c.Role != "user" && c.Role != "model" {
			return fmt.Errorf("content %d: role %q", i, c.Role)
		}
		if i > 0 && req.Contents[i-1].Role == c.Role {
			return fmt.Errorf("content %d: consecutive %s turns not merged", i, c.Role)
		}
		calls := 0
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				calls++
			}
			if p.FunctionResponse != nil {
				if i == 0 {
					return fmt.Errorf("content %d: functionResponse without a call", i)
				}
				found := false
				for _, q := range req.Contents[i-1].Parts {
					if q.FunctionCall != nil && q.FunctionCall.Name == p.FunctionResponse.Name {
						found = true
					}
				}
				if !found {
					return fmt.Errorf("content %d: functionResponse %q not directly after its call", i, p.FunctionResponse.Name)
				}
			}
		}
		if calls > 0 {
			if i == 0 || req.Contents[i-1].Role != "user" {
				return fmt.Errorf("content %d: functionCall not right after a user turn or a functionResponse", i)
			}
			if i+1 >= len(req.Contents) {
				return fmt.Errorf("content %d: functionCall never answered", i)
			}
			answered := false
			for _, q := range req.Contents[i+1].Parts {
				if q.FunctionResponse != nil {
					answered = true
				}
			}
			if !answered {
				return fmt.Errorf("content %d: functionCall not followed by a functionResponse", i)
			}
		}
	}
	return nil
}

func validateOllama(body []byte) error {
	var req struct {
		Messages []struct {
			Role      string `json:"role"`
			ToolCalls []struct {
				Function struct {
					Arguments any `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(body, &req); err != nil {
		return err
	}
	for i, m := range req.Messages {
		switch m.Role {
		case "system", "user", "assistant", "tool":
		default:
			return fmt.Errorf("message %d: role %q", i, m.Role)
		}
		if m.Role == "tool" {
			prev := req.Messages[max(i-1, 0)]
			if i == 0 || prev.Role != "tool" && (prev.Role != "assistant" || len(prev.ToolCalls) == 0) {
				return fmt.Errorf("message %d: tool result without a preceding tool call", i)
			}
		}
		for _, tc := range m.ToolCalls {
			if _, ok := tc.Function.Arguments.(map[string]any); !ok {
				return fmt.Errorf("message %d: arguments must be an object", i)
			}
		}
	}
	return nil
}

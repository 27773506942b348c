package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/ollama/ollama/api"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"google.golang.org/genai"

	"github.com/recite-dev/recite/engine/prompt"
)

// geminiRequest is the generateContent request body as the Gemini REST
// API takes it, built from the SDK's own types (the SDK sends the model in
// the URL and has no request-body type of its own).
type geminiRequest struct {
	Contents          []*genai.Content `json:"contents"`
	SystemInstruction *genai.Content   `json:"systemInstruction,omitempty"`
}

// sdkDecode decodes body into the official SDK request type of provider
// (openai: Chat Completions, or the Responses API when the body has
// "input") and returns the SDK's own serialization of it. A body the SDK
// cannot represent is an error: a field of body that the SDK's
// serialization lacks or changes (an unknown field, a union the SDK could
// not decode) fails, as do the SDK's required fields when absent.
func sdkDecode(provider string, body []byte) ([]byte, error) {
	var v any
	var required func() error
	if provider == prompt.HuggingFace && bytes.Contains(body, []byte(`"inputs":`)) || provider == prompt.Replicate {
		return schemaDecode(provider, body)
	}
	if compatible(provider) {
		// The OpenAI-compatible APIs take Chat Completions bodies: openai-go
		// decodes them once their documented extensions are checked and
		// taken out (compatExtensions).
		b, err := compatExtensions(provider, body)
		if err != nil {
			return nil, err
		}
		body, provider = b, prompt.OpenAI
	}
	switch provider {
	case prompt.Anthropic:
		var p anthropic.MessageNewParams
		v, required = &p, func() error {
			if p.Model == "" || p.MaxTokens < 1 || len(p.Messages) == 0 {
				return fmt.Errorf("model, max_tokens and messages are required")
			}
			return nil
		}
	case prompt.OpenAI:
		if bytes.Contains(body, []byte(`"input":`)) {
			var p responses.ResponseNewParams
			v, required = &p, func() error {
				if p.Model == "" || len(p.Input.OfInputItemList) == 0 {
					return fmt.Errorf("model and input items are required")
				}
				return nil
			}
		} else {
			var p openai.ChatCompletionNewParams
			v, required = &p, func() error {
				if p.Model == "" || len(p.Messages) == 0 {
					return fmt.Errorf("model and messages are required")
				}
				return nil
			}
		}
	case prompt.Gemini:
		var p geminiRequest
		v, required = &p, func() error {
			if len(p.Contents) == 0 {
				return fmt.Errorf("contents are required")
			}
			return nil
		}
	case prompt.Ollama:
		var p api.ChatRequest
		v, required = &p, func() error {
			if p.Model == "" || len(p.Messages) == 0 {
				return fmt.Errorf("model and messages are required")
			}
			return nil
		}
	default:
		return nil, fmt.Errorf("no SDK for %s", provider)
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields() // for the SDKs with plain structs (genai, ollama)
	if err := dec.Decode(v); err != nil {
		return nil, fmt.Errorf("%s SDK: %w", provider, err)
	}
	if err := required(); err != nil {
		return nil, fmt.Errorf("%s SDK: %w", provider, err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("%s SDK: re-encode: %w", provider, err)
	}
	var a, b any
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(out, &b); err != nil {
		return nil, err
	}
	if diffs := lost("", a, b); len(diffs) > 0 {
		return nil, fmt.Errorf("%s SDK does not represent the body: %s", provider, strings.Join(diffs, "; "))
	}
	return out, nil
}

// isEmpty reports an empty JSON object or array, which an SDK may leave
// out as it leaves out an absent field.
func isEmpty(v any) bool {
	switch t := v.(type) {
	case map[string]any:
		return len(t) == 0
	case []any:
		return len(t) == 0
	}
	return false
}

// lost lists the values of the body a that the SDK's serialization b does
// not carry: a key missing or a value changed. A JSON null equals an
// absent key (and so does an empty object or array the SDK omits), and
// keys b adds (defaults such as a tool call's index) are
// not counted.
func lost(at string, a, b any) []string {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return []string{at + ": an object became " + fmt.Sprint(b)}
		}
		keys := make([]string, 0, len(av))
		for k := range av {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var out []string
		for _, k := range keys {
			if av[k] == nil || isEmpty(av[k]) && bv[k] == nil {
				continue
			}
			bk, ok := bv[k]
			if !ok {
				out = append(out, at+"."+k+": dropped (unknown to the SDK)")
				continue
			}
			out = append(out, lost(at+"."+k, av[k], bk)...)
		}
		return out
	case []any:
		bv, ok := b.([]any)
		if !ok || len(bv) != len(av) {
			return []string{fmt.Sprintf("%s: %d items became %v", at, len(av), b)}
		}
		var out []string
		for i := range av {
			out = append(out, lost(fmt.Sprintf("%s[%d]", at, i), av[i], bv[i])...)
		}
		return out
	default:
		if !reflect.DeepEqual(a, b) {
			return []string{fmt.Sprintf("%s: %v became %v", at, a, b)}
		}
		return nil
	}
}

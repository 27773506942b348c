package providertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	jsv "github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/recite-dev/recite/engine/prompt"
)

// compatible reports whether provider's body is an OpenAI-compatible chat
// body (the chat form of huggingface included).
func compatible(provider string) bool {
	switch provider {
	case prompt.DeepSeek, prompt.OpenRouter, prompt.HuggingFace:
		return true
	}
	return false
}

// compatExtensions checks the fields an OpenAI-compatible API adds to Chat
// Completions and returns the body without them, for openai-go: OpenRouter's
// session_id (a string of at most 256 characters,
// https://openrouter.ai/docs/guides/best-practices/prompt-caching) and
// cache_control on text parts ({"type": "ephemeral"}, at most 4); no other
// provider takes either.
func compatExtensions(provider string, body []byte) ([]byte, error) {
	var req map[string]any
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, err
	}
	if sid, ok := req["session_id"]; ok {
		s, isString := sid.(string)
		if provider != prompt.OpenRouter || !isString || len(s) > 256 {
			return nil, fmt.Errorf("%s: session_id %v: OpenRouter takes a string of at most 256 characters, the others none", provider, sid)
		}
		delete(req, "session_id")
	}
	marks := 0
	for _, m := range items(req["messages"]) {
		for _, part := range items(m["content"]) {
			cc, ok := part["cache_control"]
			if !ok {
				continue
			}
			if provider != prompt.OpenRouter {
				return nil, fmt.Errorf("%s: cache_control on a content part: only OpenRouter passes it on", provider)
			}
			if c, _ := cc.(map[string]any); c["type"] != "ephemeral" || len(c) != 1 {
				return nil, fmt.Errorf("openrouter: cache_control %v, want {\"type\": \"ephemeral\"}", cc)
			}
			marks++
			delete(part, "cache_control")
		}
	}
	if marks > prompt.AnthropicMaxBreakpoints {
		return nil, fmt.Errorf("openrouter: %d cache_control markers, over %d", marks, prompt.AnthropicMaxBreakpoints)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(req); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// schemaDecode validates a body that no Go SDK types against the JSON
// Schema its provider documents (testdata/schemas): the Hugging Face
// text-generation input and the Replicate prediction request, and returns
// it.
func schemaDecode(provider string, body []byte) ([]byte, error) {
	file := "replicate-prediction.schema.json"
	if provider == prompt.HuggingFace {
		file = "hf-text-generation.schema.json"
	}
	sch, err := compileSchema(file)
	if err != nil {
		return nil, err
	}
	inst, err := jsv.UnmarshalJSON(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", provider, err)
	}
	if err := sch.Validate(inst); err != nil {
		return nil, fmt.Errorf("%s schema: %v", provider, err)
	}
	return body, nil
}

func compileSchema(file string) (*jsv.Schema, error) {
	f, err := os.Open(filepath.Join("testdata", "schemas", file))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	doc, err := jsv.UnmarshalJSON(f)
	if err != nil {
		return nil, err
	}
	c := jsv.NewCompiler()
	if err := c.AddResource(file, doc); err != nil {
		return nil, err
	}
	return c.Compile(file)
}

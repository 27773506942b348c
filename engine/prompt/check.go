package prompt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Problem is one reason a provider would reject a request body.
type Problem struct {
	// Provider is the body's shape.
	Provider string `json:"provider"`
	// At is where in the body: a JSON path such as "messages[3].content[0]",
	// or "" for the body as a whole.
	At string `json:"at,omitempty"`
	// Message says what is wrong.
	Message string `json:"message"`
}

func (p Problem) String() string {
	if p.At == "" {
		return p.Provider + ": " + p.Message
	}
	return p.Provider + ": " + p.At + ": " + p.Message
}

// CheckOptions are what Check needs besides the body.
type CheckOptions struct {
	// Count counts tokens; nil skips the window checks.
	Count Counter
	// Model is the model of a gemini body, which names none (the model is
	// in the request URL); "" means DefaultModel. The other bodies name
	// their model.
	Model string
	// Override replaces entries of the model's limits, as the target's
	// capabilities do when rendering.
	Override LimitOverride
	// Custom is the provider recite.yaml defines, when the body is for
	// one.
	Custom *Custom
}

// Check validates a request body as its provider would before answering:
// the body decodes into the request shape with no unknown field, required
// fields are present, roles are valid and alternate where the API needs
// it, every tool call is answered right after it and every result answers
// a call, Anthropic carries at most 4 cache breakpoints and a "tools"
// entry for every tool_use, and the prompt fits the window of the model
// the body names (the reply limit included where the provider counts it
// against the window; Ollama: options.num_ctx). It returns nil for a body
// the provider accepts. Markdown bodies are not requests and always pass;
// a text body is checked against the text window (Limits).
func Check(provider string, body []byte, opts CheckOptions) []Problem {
	c := &checker{provider: provider, opts: opts}
	switch provider {
	case Markdown:
	case Text:
		c.window(string(body), Limits(Text, "", opts.Override).ContextWindow, "the text window")
	case Anthropic:
		c.anthropic(body)
	case OpenAI:
		c.openAI(body)
	case Gemini:
		c.gemini(body)
	case Ollama:
		c.ollama(body)
	case DeepSeek, OpenRouter:
		c.compatChat(body)
	case HuggingFace:
		if bytes.Contains(body, []byte(`"inputs":`)) {
			c.textGeneration(body)
		} else {
			c.compatChat(body)
		}
	case Replicate:
		c.replicate(body)
	default:
		if opts.Custom != nil && opts.Custom.Name == provider {
			c.compatChat(body)
		} else {
			c.fail("", "unknown provider %q", provider)
		}
	}
	return c.problems
}

type checker struct {
	provider string
	opts     CheckOptions
	problems []Problem
}

func (c *checker) fail(at, format string, args ...any) {
	c.problems = append(c.problems, Problem{Provider: c.provider, At: at, Message: fmt.Sprintf(format, args...)})
}

// decode reads body into v strictly: unknown fields and trailing data are
// problems.
func (c *checker) decode(body []byte, v any) bool {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		c.fail("", "not a valid request body: %v", err)
		return false
	}
	if dec.More() {
		c.fail("", "data after the request body")
		return false
	}
	return true
}

// window checks that the text of a body, counted with opts.Count, is at
// most limit tokens.
func (c *checker) window(text string, limit int, what string) {
	if c.opts.Count == nil {
		return
	}
	if n := c.opts.Count(text); n > limit {
		c.fail("", "the prompt counts %d tokens, over %s of %d", n, what, limit)
	}
}

// bodyText joins every string value of a JSON body except ids, roles,
// types and other fields that carry no prompt text: the text the window
// checks count.
func bodyText(body []byte) string {
	var v any
	if json.Unmarshal(body, &v) != nil {
		return string(body)
	}
	skip := map[string]bool{"model": true, "role": true, "type": true, "id": true, "tool_use_id": true, "call_id": true,
		"tool_call_id": true, "thoughtSignature": true, "prompt_cache_key": true, "session_id": true}
	var b strings.Builder
	var walk func(v any)
	walk = func(v any) {
		switch t := v.(type) {
		case string:
			b.WriteString(t)
			b.WriteByte('\n')
		case []any:
			for _, e := range t {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(t))
			for k := range t {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				if !skip[k] {
					walk(t[k])
				}
			}
		}
	}
	walk(v)
	return b.String()
}

// checkModel reports a missing model and returns the model's limits.
func (c *checker) checkModel(model string) Limit {
	if model == "" {
		c.fail("model", "missing: every request names its model")
	}
	if cu := c.opts.Custom; cu != nil && cu.Name == c.provider {
		return cu.limit()
	}
	return Limits(c.provider, model, c.opts.Override)
}

// pendingCalls tracks tool calls that need an answer.
type pendingCalls struct {
	open map[string]string // id → where the call is
}

func (p *pendingCalls) add(id, at string) {
	if p.open == nil {
		p.open = map[string]string{}
	}
	p.open[id] = at
}

// answer closes id; false when no open call has it.
func (p *pendingCalls) answer(id string) bool {
	if _, ok := p.open[id]; !ok {
		return false
	}
	delete(p.open, id)
	return true
}

// unanswered reports every open call and clears them.
func (p *pendingCalls) unanswered(c *checker) {
	var ats []string
	for id, at := range p.open {
		ats = append(ats, at+" (id "+id+")")
	}
	sort.Strings(ats)
	for _, at := range ats {
		c.fail(at, "tool call not answered right after it")
	}
	p.open = nil
}

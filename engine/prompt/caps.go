package prompt

import "fmt"

// Provider names, as used in recite.yaml and file names: the eight
// providers of the conversation design recite started from (OpenAI,
// Anthropic, DeepSeek, OpenRouter, Google, HuggingFace, Ollama,
// Replicate), and the markdown and text files for agents and endpoints
// that take one document or one string (docs/providers.md#the-capability-table).
const (
	Markdown    = "markdown"
	Anthropic   = "anthropic"
	OpenAI      = "openai"
	Gemini      = "gemini"
	Ollama      = "ollama"
	Text        = "text"
	DeepSeek    = "deepseek"
	OpenRouter  = "openrouter"
	HuggingFace = "huggingface"
	Replicate   = "replicate"
)

// Body shapes (Capabilities.Shape): the request body a provider takes.
const (
	ShapeMarkdown        = "markdown"                // a prompt file for agents that read one
	ShapeText            = "text"                    // one completion prompt string
	ShapeAnthropic       = "anthropic-messages"      // Anthropic Messages API
	ShapeOpenAIChat      = "openai-chat"             // OpenAI Chat Completions and the compatible APIs
	ShapeGemini          = "gemini-generate-content" // Gemini generateContent
	ShapeOllama          = "ollama-chat"             // Ollama /api/chat
	ShapeTextGenerate    = "hf-text-generation"      // a Hugging Face text-generation endpoint: inputs and parameters
	ShapeReplicate       = "replicate-prediction"    // a Replicate prediction: input.prompt, input.system_prompt
	ShapeOpenAIResponses = "openai-responses"        // the OpenAI Responses API (openai_api: responses)
)

// Cache rules (Capabilities.Cache): how a provider reuses the prefix of an
// earlier request (docs/providers.md#prompt-caching).
const (
	// CacheBreakpoints: explicit cache_control markers, at most 4
	// (Anthropic).
	CacheBreakpoints = "breakpoints"
	// CacheAutomatic: a repeated prefix of at least the model's minimum is
	// served from the cache without a marker (OpenAI, DeepSeek).
	CacheAutomatic = "automatic"
	// CacheImplicit: Gemini's implicit caching of a byte-identical prefix.
	CacheImplicit = "implicit"
	// CachePassThrough: OpenRouter passes cache_control markers through to
	// Anthropic and Gemini models and caches automatically for the others.
	CachePassThrough = "pass-through"
	// CacheNone: no prompt-caching contract.
	CacheNone = "none"
)

// Capabilities describe what a provider's request shape supports: the
// fields of the conversation design recite started from (conversation,
// system messages, tool calls, custom format, max context) and the cache
// rule and body shape.
type Capabilities struct {
	// Name is the provider's name in recite.yaml.
	Name string `json:"name"`
	// Conversation: the shape carries messages with roles.
	Conversation bool `json:"conversation"`
	// SystemMessage: the shape has a place for a system prompt.
	SystemMessage bool `json:"system_message"`
	// ToolCalls: tool calls and results can be carried structurally.
	ToolCalls bool `json:"tool_calls"`
	// CacheBreakpoints is how many explicit cache breakpoints the shape
	// takes (Anthropic and OpenRouter: at most 4, AnthropicMaxBreakpoints);
	// 0 for automatic or no caching.
	CacheBreakpoints int `json:"cache_breakpoints"`
	// Cache is the provider's cache rule (CacheBreakpoints, …).
	Cache string `json:"cache"`
	// Shape is the body shape (ShapeAnthropic, …), the design's "custom
	// format".
	Shape string `json:"shape"`
	// Format is the file's format: "json" or "text".
	Format string `json:"format"`
	// MaxContext is the context window in tokens of the provider's
	// default model (Limits with DefaultModel); the window a target's
	// prompt is fitted to comes from Limits for the model it names.
	MaxContext int `json:"max_context"`
	// Endpoint is where the body is sent (MODEL stands for the model when
	// the URL carries it); "" for the files no API takes.
	Endpoint string `json:"endpoint,omitempty"`
	// ModelInURL is true when the body names no model: the URL does.
	ModelInURL bool `json:"model_in_url,omitempty"`
	// Ext is the file name suffix after the target name.
	Ext string `json:"ext"`
	// Custom is true for a provider recite.yaml defines (providers:).
	Custom bool `json:"custom,omitempty"`
}

// capabilityTable is the built-in table, one row per provider
// (docs/providers.md#the-capability-table). MaxContext is the window of
// the provider's default model (Limits); markdown 200,000 and text
// 128,000 tokens.
func capabilityTable(provider string) (Capabilities, bool) {
	window := func(p string) int { return Limits(p, "", LimitOverride{}).ContextWindow }
	c := Capabilities{Name: provider, Format: "json", Ext: "." + provider + ".json"}
	chat := func(cache, endpoint string) Capabilities {
		c.Conversation, c.SystemMessage, c.ToolCalls = true, true, true
		c.Cache, c.Shape, c.Endpoint, c.MaxContext = cache, ShapeOpenAIChat, endpoint, window(provider)
		return c
	}
	switch provider {
	case Markdown:
		return Capabilities{Name: provider, Format: "text", Shape: ShapeMarkdown, Cache: CacheNone, MaxContext: 200000, Ext: ".md"}, true
	case Text:
		return Capabilities{Name: provider, Format: "text", Shape: ShapeText, Cache: CacheNone, MaxContext: window(Text), Ext: ".txt"}, true
	case Anthropic:
		c = chat(CacheBreakpoints, "https://api.anthropic.com/v1/messages")
		c.Shape, c.CacheBreakpoints = ShapeAnthropic, AnthropicMaxBreakpoints
		return c, true
	case OpenAI:
		return chat(CacheAutomatic, "https://api.openai.com/v1/chat/completions"), true
	case Gemini:
		c = chat(CacheImplicit, "https://generativelanguage.googleapis.com/v1beta/models/MODEL:generateContent")
		c.Shape, c.ModelInURL = ShapeGemini, true
		return c, true
	case Ollama:
		c = chat(CacheNone, "http://localhost:11434/api/chat")
		c.Shape = ShapeOllama
		return c, true
	case DeepSeek:
		return chat(CacheAutomatic, "https://api.deepseek.com/chat/completions"), true
	case OpenRouter:
		c = chat(CachePassThrough, "https://openrouter.ai/api/v1/chat/completions")
		c.CacheBreakpoints = AnthropicMaxBreakpoints
		return c, true
	case HuggingFace:
		return chat(CacheNone, "https://router.huggingface.co/v1/chat/completions"), true
	case Replicate:
		c.SystemMessage, c.Cache, c.Shape, c.MaxContext = true, CacheNone, ShapeReplicate, window(Replicate)
		c.Endpoint, c.ModelInURL = "https://api.replicate.com/v1/models/MODEL/predictions", true
		return c, true
	}
	return Capabilities{}, false
}

// CapabilitiesOf returns the built-in capabilities of a provider, or an error
// naming the unknown provider. A provider recite.yaml defines is found
// through a Catalog.
func CapabilitiesOf(provider string) (Capabilities, error) {
	c, ok := capabilityTable(provider)
	if !ok {
		return Capabilities{}, fmt.Errorf("unknown provider %q", provider)
	}
	return c, nil
}

// Providers lists every built-in provider recite renders, in a fixed
// order: the files for agents first, then the design's eight.
func Providers() []string {
	return []string{Markdown, Anthropic, OpenAI, Gemini, Ollama, Text, DeepSeek, OpenRouter, HuggingFace, Replicate}
}

// Table returns the built-in capability table, in Providers order.
func Table() []Capabilities {
	var out []Capabilities
	for _, p := range Providers() {
		c, _ := capabilityTable(p)
		out = append(out, c)
	}
	return out
}

// CleanControls removes the C0 control characters other than tab and line
// feed (NUL, carriage return, escape…) from s: they carry nothing a model
// reads, and a NUL or an escape sequence in a prompt file breaks the tools
// that show it. Every section body and message content goes through it in
// Assemble and Add.
func CleanControls(s string) string {
	i := 0
	for i < len(s) && (s[i] >= 0x20 || s[i] == '\t' || s[i] == '\n') {
		i++
	}
	if i == len(s) {
		return s
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:i]...)
	for ; i < len(s); i++ {
		if c := s[i]; c >= 0x20 || c == '\t' || c == '\n' {
			b = append(b, c)
		}
	}
	return string(b)
}

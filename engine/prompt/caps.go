package prompt

import "fmt"

// Provider names, as used in recite.yaml and file names.
const (
	Markdown  = "markdown"
	Anthropic = "anthropic"
	OpenAI    = "openai"
	Gemini    = "gemini"
	Ollama    = "ollama"
	Text      = "text"
)

// Capabilities describe what a provider's request shape supports.
type Capabilities struct {
	// Conversation: the shape carries messages with roles.
	Conversation bool `json:"conversation"`
	// SystemMessage: the shape has a place for a system prompt.
	SystemMessage bool `json:"system_message"`
	// ToolCalls: tool calls and results can be carried structurally.
	ToolCalls bool `json:"tool_calls"`
	// CacheBreakpoints is how many explicit cache breakpoints the shape
	// takes (Anthropic: at most 4, AnthropicMaxBreakpoints); 0 for
	// automatic or no caching.
	CacheBreakpoints int `json:"cache_breakpoints"`
	// Format is the special format of the body: "json" or "text".
	Format string `json:"format"`
	// MaxContext is the context window in tokens of the provider's
	// default model (Limits with DefaultModel); the window a target's
	// prompt is fitted to comes from Limits for the model it names.
	MaxContext int `json:"max_context"`
	// Ext is the file name suffix after the target name.
	Ext string `json:"ext"`
}

// capabilityTable is the built-in table. MaxContext is the window of the
// provider's default model (Limits), markdown 200,000 and text 8,192
// tokens.
func capabilityTable(provider string) (Capabilities, bool) {
	switch provider {
	case Markdown:
		return Capabilities{Conversation: false, SystemMessage: false, ToolCalls: false, Format: "text", MaxContext: 200000, Ext: ".md"}, true
	case Anthropic:
		return Capabilities{Conversation: true, SystemMessage: true, ToolCalls: true, CacheBreakpoints: 4, Format: "json", MaxContext: Limits(Anthropic, "", LimitOverride{}).ContextWindow, Ext: ".anthropic.json"}, true
	case OpenAI:
		return Capabilities{Conversation: true, SystemMessage: true, ToolCalls: true, Format: "json", MaxContext: Limits(OpenAI, "", LimitOverride{}).ContextWindow, Ext: ".openai.json"}, true
	case Gemini:
		return Capabilities{Conversation: true, SystemMessage: true, ToolCalls: true, Format: "json", MaxContext: Limits(Gemini, "", LimitOverride{}).ContextWindow, Ext: ".gemini.json"}, true
	case Ollama:
		return Capabilities{Conversation: true, SystemMessage: true, ToolCalls: true, Format: "json", MaxContext: Limits(Ollama, "", LimitOverride{}).ContextWindow, Ext: ".ollama.json"}, true
	case Text:
		return Capabilities{Conversation: false, SystemMessage: false, ToolCalls: false, Format: "text", MaxContext: 8192, Ext: ".txt"}, true
	}
	return Capabilities{}, false
}

// CapabilitiesOf returns the built-in capabilities of a provider, or an error
// naming the unknown provider.
func CapabilitiesOf(provider string) (Capabilities, error) {
	c, ok := capabilityTable(provider)
	if !ok {
		return Capabilities{}, fmt.Errorf("unknown provider %q", provider)
	}
	return c, nil
}

// Providers lists every provider recite renders, in a fixed order.
func Providers() []string { return []string{Markdown, Anthropic, OpenAI, Gemini, Ollama, Text} }

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

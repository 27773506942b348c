package prompt

import "strings"

// Limit is what one model accepts in one request: the numbers a body is
// fitted to and checked against, and the shape choices that depend on the
// model. Token counts are in the model's tokens (recite counts with its own
// tokenizer, a close proxy for the providers' own).
type Limit struct {
	// Provider and Model name the limit ("" Model for the shapes that name
	// none: markdown and text).
	Provider, Model string
	// ContextWindow is the model's context window in tokens: the prompt and
	// the reply together.
	ContextWindow int
	// MaxInput is the most prompt tokens the model takes when the provider
	// documents a separate input limit (OpenAI, Gemini); 0 when the prompt
	// may use the whole window less the reply.
	MaxInput int
	// MaxOutput is the longest reply in tokens.
	MaxOutput int
	// MinCacheable is the shortest prefix in tokens the provider caches; a
	// cache breakpoint on a shorter prefix is skipped silently by the
	// provider, so recite places none there. 0 for providers without
	// prompt caching.
	MinCacheable int
	// DeveloperRole is true for OpenAI models whose instructions go in a
	// "developer" message rather than "system" (o1 and newer).
	DeveloperRole bool
	// ThoughtSignatures is true for Gemini models that reject a replayed
	// functionCall of the current turn without its thoughtSignature
	// (Gemini 3).
	ThoughtSignatures bool
	// Known is false when Model is not in recite's table and the numbers
	// are the provider's conservative fallback.
	Known bool
}

// PromptLimit is the most prompt tokens a request may carry when it asks
// for a reply of reply tokens: the context window less the reply (at most
// half the window is reserved for it), and never more than MaxInput. The
// shapes that name no model (markdown, text) reserve nothing.
func (l Limit) PromptLimit(reply int) int {
	if l.Model == "" {
		reply = 0
	}
	reply = max(0, min(reply, l.ContextWindow/2))
	n := l.ContextWindow - reply
	if l.MaxInput > 0 && l.MaxInput < n {
		n = l.MaxInput
	}
	return n
}

// LimitOverride replaces entries of a model's Limit (recite.yaml
// targets[].capabilities.PROVIDER); a nil field keeps the table's value.
type LimitOverride struct {
	// ContextWindow replaces the window in tokens and lifts MaxInput.
	ContextWindow *int
	// MaxOutput replaces the longest reply in tokens.
	MaxOutput *int
	// MinCacheable replaces the minimum cacheable prefix in tokens.
	MinCacheable *int
	// DeveloperRole replaces the OpenAI developer-role choice.
	DeveloperRole *bool
}

// Default models, one per provider, written into a body whose target names
// none. They were current, documented model names on 2026-12-01:
//
//   - anthropic claude-sonnet-5-5: "the best combination of speed and
//     intelligence", https://platform.claude.com/docs/en/models/sonnet-5-5/overview
//   - openai gpt-6.1-sol: https://developers.openai.com/api/docs/models/gpt-6.1-sol
//   - gemini gemini-3.8-flash: https://ai.google.dev/gemini-api/docs/models/gemini-3.8-flash
//   - ollama gemma4: the model the Ollama docs show at its full context,
//     https://docs.ollama.com/context-length
//   - deepseek deepseek-chat: the non-thinking mode of DeepSeek's current
//     model, https://api-docs.deepseek.com/quick_start/pricing
//   - openrouter anthropic/claude-sonnet-5.5: recite's anthropic default
//     as OpenRouter names it (vendor/model), https://openrouter.ai/models
//   - huggingface meta-llama/Llama-3.3-70B-Instruct: a model the router
//     serves for chat, https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct
//   - replicate meta/meta-llama-3.1-405b-instruct: an official Replicate
//     language model taking prompt, system_prompt and max_tokens,
//     https://replicate.com/meta/meta-llama-3.1-405b-instruct
const (
	DefaultAnthropicModel   = "claude-sonnet-5-5"
	DefaultOpenAIModel      = "gpt-6.1-sol"
	DefaultGeminiModel      = "gemini-3.8-flash"
	DefaultOllamaModel      = "gemma4"
	DefaultDeepSeekModel    = "deepseek-chat"
	DefaultOpenRouterModel  = "anthropic/claude-sonnet-5.5"
	DefaultHuggingFaceModel = "meta-llama/Llama-3.3-70B-Instruct"
	DefaultReplicateModel   = "meta/meta-llama-3.1-405b-instruct"
	// ModelsCurrentOn is the date the default models were checked against
	// the providers' documentation.
	ModelsCurrentOn = "2026-12-01"
)

// DefaultModel returns the default model of provider ("" for markdown,
// text and unknown providers).
func DefaultModel(provider string) string {
	switch provider {
	case Anthropic:
		return DefaultAnthropicModel
	case OpenAI:
		return DefaultOpenAIModel
	case Gemini:
		return DefaultGeminiModel
	case Ollama:
		return DefaultOllamaModel
	case DeepSeek:
		return DefaultDeepSeekModel
	case OpenRouter:
		return DefaultOpenRouterModel
	case HuggingFace:
		return DefaultHuggingFaceModel
	case Replicate:
		return DefaultReplicateModel
	}
	return ""
}

// modelTable holds the documented limits of the models recite knows, read
// on 2026-12-01 from each model's page:
//
//   - Anthropic: https://platform.claude.com/docs/en/about-claude/models/overview
//     (context window and max output); minimum cacheable prefix from
//     https://platform.claude.com/docs/en/build-with-claude/prompt-caching#cache-limitations
//     (512 Opus 5 and Fable 5.x, 1024 Sonnet 4.x/5 and Opus 4/4.1/4.8,
//     2048 Opus 4.7, 4096 Opus 4.5/4.6 and Haiku 4.5). The 5.5 models'
//     pages give no minimum of their own; they take their family's
//     (anthropicMinCacheable), and capabilities.anthropic.min_cacheable
//     overrides it.
//   - OpenAI: https://developers.openai.com/api/docs/models/MODEL (window,
//     max input, max output); caching from 1024 tokens,
//     https://developers.openai.com/api/docs/guides/prompt-caching
//   - Gemini: https://ai.google.dev/gemini-api/docs/models/MODEL (input and
//     output token limits; the window here is input + output); implicit
//     caching minimum and thought signatures from
//     https://ai.google.dev/gemini-api/docs/caching and
//     https://ai.google.dev/gemini-api/docs/thought-signatures
//   - Ollama: the context length the model is trained for, as the Ollama
//     library lists it (https://ollama.com/library/MODEL).
var modelTable = map[string]Limit{
	"claude-sonnet-5-5": {Provider: Anthropic, ContextWindow: 1_000_000, MaxOutput: 128_000},
	"claude-opus-5-5":   {Provider: Anthropic, ContextWindow: 1_000_000, MaxOutput: 128_000},
	"claude-haiku-5-5":  {Provider: Anthropic, ContextWindow: 1_000_000, MaxOutput: 128_000},
	"claude-fable-5-2":  {Provider: Anthropic, ContextWindow: 1_000_000, MaxOutput: 128_000},
	"claude-fable-5-1":  {Provider: Anthropic, ContextWindow: 1_000_000, MaxOutput: 128_000},
	"claude-opus-5":     {Provider: Anthropic, ContextWindow: 1_000_000, MaxOutput: 128_000},
	"claude-sonnet-5":   {Provider: Anthropic, ContextWindow: 1_000_000, MaxOutput: 128_000},
	"claude-opus-4-8":   {Provider: Anthropic, ContextWindow: 1_000_000, MaxOutput: 128_000},
	"claude-sonnet-4-6": {Provider: Anthropic, ContextWindow: 1_000_000, MaxOutput: 128_000},
	"claude-haiku-4-5":  {Provider: Anthropic, ContextWindow: 200_000, MaxOutput: 64_000},

	"gpt-6.1-sol":   {Provider: OpenAI, ContextWindow: 1_050_000, MaxInput: 922_000, MaxOutput: 128_000, DeveloperRole: true},
	"gpt-6.1-terra": {Provider: OpenAI, ContextWindow: 1_050_000, MaxInput: 922_000, MaxOutput: 128_000, DeveloperRole: true},
	"gpt-5.5":       {Provider: OpenAI, ContextWindow: 1_050_000, MaxInput: 922_000, MaxOutput: 128_000, DeveloperRole: true},
	"gpt-4o":        {Provider: OpenAI, ContextWindow: 128_000, MaxOutput: 16_384},

	"gemini-3.8-flash": {Provider: Gemini, ContextWindow: 1_048_576 + 65_536, MaxInput: 1_048_576, MaxOutput: 65_536},
	"gemini-2.5-pro":   {Provider: Gemini, ContextWindow: 1_048_576 + 65_536, MaxInput: 1_048_576, MaxOutput: 65_536},

	"gemma4": {Provider: Ollama, ContextWindow: 131_072, MaxOutput: 131_072},

	"deepseek-chat":     {Provider: DeepSeek, ContextWindow: 128_000, MaxOutput: 8_192},
	"deepseek-reasoner": {Provider: DeepSeek, ContextWindow: 128_000, MaxOutput: 65_536},

	"meta-llama/Llama-3.3-70B-Instruct": {Provider: HuggingFace, ContextWindow: 131_072, MaxOutput: 8_192},

	"meta/meta-llama-3.1-405b-instruct": {Provider: Replicate, ContextWindow: 131_072, MaxOutput: 8_192},
}

// Limits returns the limits of model for provider, with o applied. A model
// missing from the table gets its provider's fallback (Known false): a
// family rule where the model's name has one (Anthropic minimum cacheable
// length, OpenAI developer role, Gemini 3 thought signatures), otherwise
// conservative numbers: Anthropic 200,000 tokens, OpenAI 128,000, Gemini
// 1,048,576, Ollama 32,768 (the context Ollama gives a model on a 24–48
// GiB GPU, https://docs.ollama.com/context-length), DeepSeek 128,000,
// Hugging Face and Replicate 32,768; an OpenRouter model takes its
// vendor's (openRouterLimit). Markdown has a 200,000-token window and text
// 128,000 (the window of today's common models; targets[].capabilities.text
// sets another). model "" means DefaultModel(provider).
func Limits(provider, model string, o LimitOverride) Limit {
	if model == "" {
		model = DefaultModel(provider)
	}
	l, ok := modelTable[model]
	switch {
	case ok && l.Provider == provider:
		l.Known = true
	case provider == OpenRouter:
		l = openRouterLimit(model, o)
	default:
		l = fallbackLimit(provider)
	}
	l.Provider, l.Model = provider, model
	switch provider {
	case Anthropic:
		l.MinCacheable = anthropicMinCacheable(model)
	case OpenAI:
		l.MinCacheable = 1024
		l.DeveloperRole = l.DeveloperRole || openAIDeveloperFamily(model)
	case Gemini:
		l.MinCacheable, l.ThoughtSignatures = 2048, false
		if strings.HasPrefix(model, "gemini-3") {
			l.MinCacheable, l.ThoughtSignatures = 4096, true
		}
	case DeepSeek:
		// The disk cache stores prefix units of 64 tokens and more
		// (https://api-docs.deepseek.com/guides/kv_cache).
		l.MinCacheable = 64
	}
	if o.ContextWindow != nil {
		l.ContextWindow, l.MaxInput = *o.ContextWindow, 0
	}
	if o.MaxOutput != nil {
		l.MaxOutput = *o.MaxOutput
	}
	if o.MinCacheable != nil {
		l.MinCacheable = *o.MinCacheable
	}
	if o.DeveloperRole != nil {
		l.DeveloperRole = *o.DeveloperRole
	}
	return l
}

// openRouterLimit is the Limit of an OpenRouter model ("vendor/model"):
// the limits of the vendor's own model when recite knows it (anthropic/,
// openai/, google/ models, with "." read as "-" for Claude names), else
// 128,000 tokens and a 16,384-token reply; Anthropic and Gemini models keep
// their minimum cacheable prefix, since OpenRouter passes their
// breakpoints through (docs/providers.md#openrouter-caching).
func openRouterLimit(model string, o LimitOverride) Limit {
	vendor, name, _ := strings.Cut(model, "/")
	var l Limit
	switch vendor {
	case "anthropic":
		l = Limits(Anthropic, strings.ReplaceAll(name, ".", "-"), LimitOverride{})
	case "openai":
		l = Limits(OpenAI, name, LimitOverride{})
	case "google":
		l = Limits(Gemini, name, LimitOverride{})
	default:
		return Limit{ContextWindow: 128_000, MaxOutput: 16_384, MinCacheable: 1024}
	}
	l.DeveloperRole = false // OpenRouter takes the system role
	return l
}

func fallbackLimit(provider string) Limit {
	switch provider {
	case Anthropic:
		return Limit{ContextWindow: 200_000, MaxOutput: 64_000}
	case OpenAI:
		return Limit{ContextWindow: 128_000, MaxOutput: 16_384}
	case Gemini:
		return Limit{ContextWindow: 1_048_576 + 8_192, MaxInput: 1_048_576, MaxOutput: 8_192}
	case Ollama:
		return Limit{ContextWindow: 32_768, MaxOutput: 32_768}
	case Text:
		return Limit{ContextWindow: 128_000}
	case DeepSeek:
		return Limit{ContextWindow: 128_000, MaxOutput: 8_192}
	case HuggingFace, Replicate:
		return Limit{ContextWindow: 32_768, MaxOutput: 4_096}
	}
	return Limit{ContextWindow: 200_000}
}

// anthropicMinCacheable is the minimum cacheable prefix of a Claude model
// by family (modelTable's Anthropic source): 4096 Haiku 4.5 and Opus
// 4.5/4.6, 2048 Opus 4.7 and the other Haiku models, 512 Opus 5.x, Fable
// and Mythos, 1024 the others (Sonnet, Opus 4/4.1/4.8).
func anthropicMinCacheable(model string) int {
	m := strings.ToLower(strings.ReplaceAll(model, ".", "-"))
	switch {
	case strings.Contains(m, "haiku-4-5"), strings.Contains(m, "opus-4-5"), strings.Contains(m, "opus-4-6"):
		return 4096
	case strings.Contains(m, "haiku"), strings.Contains(m, "opus-4-7"):
		return 2048
	case strings.Contains(m, "opus-5"), strings.Contains(m, "fable"), strings.Contains(m, "mythos"):
		return 512
	}
	return 1024
}

// openAIDeveloperFamily reports whether an OpenAI model takes the
// developer role: o1 and newer reasoning models and GPT-5 and newer, per
// https://developers.openai.com/api/docs/guides/text#message-roles-and-instruction-following.
func openAIDeveloperFamily(model string) bool {
	m := strings.ToLower(model)
	for _, p := range []string{"o1", "o3", "o4", "gpt-5", "gpt-6", "gpt-7"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	return false
}

// NumCtxStep is the granule of the Ollama options.num_ctx recite writes,
// in tokens (NumCtx).
const NumCtxStep = 2048

// NumCtx is the Ollama options.num_ctx of a prompt of tokens tokens that
// asks for a reply of reply tokens from a model with a window of window
// tokens: the smallest NumCtxStep·2^k that holds the prompt and the reply,
// at most the window. It is not the whole window, for which Ollama would
// allocate the whole KV cache, and it changes only when the prompt
// outgrows it, at most once per doubling, since a new num_ctx reloads the
// model (https://docs.ollama.com/context-length). Ollama truncates a
// prompt over num_ctx from its start (the system prompt), so the prompt
// is fitted to the window first.
func NumCtx(tokens, reply, window int) int {
	need := max(tokens, 0) + max(reply, 0)
	n := NumCtxStep
	for n < need {
		n *= 2
	}
	if window > 0 && n > window {
		n = max(window, NumCtxStep)
	}
	return n
}

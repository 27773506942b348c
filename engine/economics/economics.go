// Package economics is the prompt-caching side of a render: each
// provider's minimum cacheable prefix (MinCacheable), the outlook of one
// rendered file against the previous render (Outlook: how much of it is
// unchanged, where Anthropic's cache breakpoints fall, how many tokens the
// provider would read from its cache), and the two history files a build
// keeps under .planning/.recite/ (renders.jsonl and passes.jsonl, rings of
// JSON lines).
//
// It may import engine/prompt, engine/internal/layout and internal/fsutil;
// never engine or its other subpackages.
package economics

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/recite-dev/recite/engine/prompt"
)

// anthropicMaxBreakpoints is the number of cache_control markers Anthropic
// honours (PROVIDERS.md §4); markers past it earn nothing.
const anthropicMaxBreakpoints = 4

// CacheEconomics is the prompt-caching outlook of one rendered file: how
// much of it equals the previous render, and how many tokens the provider
// would read from its cache.
type CacheEconomics struct {
	// Caching is how the provider caches: "breakpoints" (Anthropic),
	// "automatic" (OpenAI), "implicit" (Gemini) or "none".
	Caching string `json:"caching"`
	// MinCacheable is the provider's minimum cacheable prefix for the
	// target's model, in tokens (PROVIDERS.md §4); 0 when not caching.
	MinCacheable int `json:"min_cacheable"`
	// PrefixBytes and PrefixTokens are the part equal to the previous
	// render. PrefixTokens is estimated from the section counts: exact at
	// tier boundaries, proportional to bytes inside a tier.
	PrefixBytes  int `json:"prefix_bytes"`
	PrefixTokens int `json:"prefix_tokens"`
	// Breakpoints is the number of cache_control markers in the body
	// (Anthropic), of which at most 4 count.
	Breakpoints int `json:"breakpoints,omitempty"`
	// CachedTokens is the predicted cache read on the next request: for
	// Anthropic the longest breakpoint prefix inside the unchanged prefix
	// and at least MinCacheable long; for automatic and implicit caching
	// the unchanged prefix when it reaches MinCacheable; otherwise 0.
	CachedTokens int `json:"cached_tokens"`
	// Against names the render the prefix is measured against: "disk"
	// (the prompt file as the last build wrote it, when the render differs
	// from it) or "history" (the render is the file on disk, so the figures
	// are the ones the build that wrote it recorded in RendersFile: that
	// render against the one before it). Comparing a render with itself
	// would always read 100% right after a build.
	Against string `json:"against"`
}

// RenderRecord is one line of RendersFile.
type RenderRecord struct {
	Time         string `json:"time"`
	Target       string `json:"target"`
	Provider     string `json:"provider"`
	Bytes        int    `json:"bytes"`
	Tokens       int    `json:"tokens"`
	PrefixBytes  int    `json:"prefix_bytes"`
	PrefixTokens int    `json:"prefix_tokens"`
	CachedTokens int    `json:"cached_tokens"`
	// Hash identifies the rendered bytes (bodyHash), so `recite status`
	// finds the record of the file on disk.
	Hash string `json:"hash,omitempty"`
}

// BodyHash is the first 16 hex digits of the SHA-256 of a rendered body.
func BodyHash(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:8])
}

// MinCacheable returns a provider's minimum cacheable prefix in tokens for
// a model name ("" for the default model), from PROVIDERS.md §4: Anthropic
// 512 (Opus 5), 1024 (Sonnet, Opus 4/4.1/4.8; the default), 2048 (Opus
// 4.7, Haiku 3.5 and other Haiku), 4096 (Opus 4.5/4.6, Haiku 4.5); OpenAI
// 1024; Gemini 2048 (2.5 Flash and Pro; the default), 4096 (3.x). Other
// providers do not cache: 0.
func MinCacheable(provider, model string) int {
	m := strings.ToLower(strings.ReplaceAll(model, ".", "-"))
	switch provider {
	case prompt.Anthropic:
		switch {
		case strings.Contains(m, "haiku-4-5"), strings.Contains(m, "opus-4-5"), strings.Contains(m, "opus-4-6"):
			return 4096
		case strings.Contains(m, "haiku"), strings.Contains(m, "opus-4-7"):
			return 2048
		case strings.Contains(m, "opus-5"), strings.Contains(m, "fable"), strings.Contains(m, "mythos"):
			return 512
		}
		return 1024
	case prompt.OpenAI:
		return 1024
	case prompt.Gemini:
		if strings.Contains(m, "gemini-3") {
			return 4096
		}
		return 2048
	}
	return 0
}

// Outlook computes the cache outlook of a rendered body for provider and
// model: prefixBytes of it equal the previous render, tokens are the
// body's section tokens, stable and semi the tokens of the stable and semi
// tiers (where Anthropic's first two breakpoints fall). Against is left
// for the caller to set.
func Outlook(provider, model string, body []byte, prefixBytes, tokens, stable, semi int) *CacheEconomics {
	ce := &CacheEconomics{MinCacheable: MinCacheable(provider, model), PrefixBytes: prefixBytes}
	ce.PrefixTokens = prefixTokens(prefixBytes, len(body), tokens)
	switch provider {
	case prompt.Anthropic:
		ce.Caching = "breakpoints"
		marks := markerOffsets(body)
		ce.Breakpoints = len(marks)
		// Breakpoints follow the render: end of the stable tier, end of the
		// semi tier, then the final block when there is a conversation.
		var at []int
		if stable > 0 {
			at = append(at, stable)
		}
		if semi > 0 {
			at = append(at, stable+semi)
		}
		for len(at) < len(marks) {
			at = append(at, tokens)
		}
		for i, off := range marks {
			if i == anthropicMaxBreakpoints {
				break
			}
			if off <= prefixBytes && at[i] >= ce.MinCacheable {
				ce.CachedTokens = at[i]
			}
		}
		if ce.CachedTokens > 0 && ce.PrefixTokens < ce.CachedTokens {
			ce.PrefixTokens = ce.CachedTokens
		}
	case prompt.OpenAI:
		ce.Caching = "automatic"
	case prompt.Gemini:
		ce.Caching = "implicit"
	default:
		ce.Caching = "none"
	}
	if ce.Caching == "automatic" || ce.Caching == "implicit" {
		if ce.PrefixTokens >= ce.MinCacheable {
			ce.CachedTokens = ce.PrefixTokens
		}
	}
	return ce
}

// prefixTokens estimates the tokens of the first prefix bytes of a body of
// n bytes and tokens tokens.
func prefixTokens(prefix, n, tokens int) int {
	if n == 0 || prefix >= n {
		return tokens
	}
	return int(int64(tokens) * int64(prefix) / int64(n))
}

// markerOffsets returns the byte offsets of the `"cache_control"` keys in
// an Anthropic body. Inside JSON strings a quote is escaped, so the quoted
// key only occurs as a key.
func markerOffsets(body []byte) []int {
	var out []int
	key := []byte(`"cache_control"`)
	for off := 0; ; {
		i := bytes.Index(body[off:], key)
		if i < 0 {
			return out
		}
		out = append(out, off+i)
		off += i + len(key)
	}
}

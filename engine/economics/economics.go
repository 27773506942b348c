// Package economics is the prompt-caching side of a render: each
// provider's minimum cacheable prefix (MinCacheable), the outlook of one
// rendered file against the previous render (Outlook: how much of it is
// unchanged, where Anthropic's cache breakpoints fall, how many tokens the
// provider would read from its cache; Assess: which previous render that
// is, the file on disk or the one the render history recorded, and the
// record a build adds), and the two history files a build keeps under
// .planning/.recite/ (renders.jsonl and passes.jsonl, rings of JSON lines;
// TargetHistory for a status).
//
// It may import engine/prompt, engine/internal/layout and internal/fsutil;
// never engine or its other subpackages.
package economics

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"slices"

	"github.com/recite-dev/recite/engine/prompt"
)

// CacheEconomics is the prompt-caching outlook of one rendered file: how
// much of it equals the previous render, and how many tokens the provider
// would read from its cache.
type CacheEconomics struct {
	// Caching is how the provider caches: "breakpoints" (Anthropic),
	// "automatic" (OpenAI), "implicit" (Gemini) or "none".
	Caching string `json:"caching"`
	// MinCacheable is the provider's minimum cacheable prefix for the
	// target's model, in tokens (prompt.Limit.MinCacheable); 0 when not
	// caching.
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
	// FirstRender is true when no earlier render exists to compare with:
	// no prompt file on disk yet, or the build that wrote the file on disk
	// found none (RenderRecord.First). Nothing is cached before the first
	// request sends it.
	FirstRender bool `json:"first_render,omitempty"`
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
	// First is true when the build found no earlier file to replace.
	First bool `json:"first,omitempty"`
}

// BodyHash is the first 16 hex digits of the SHA-256 of a rendered body.
func BodyHash(body []byte) string {
	sum := sha256.Sum256(body)
	return hex.EncodeToString(sum[:8])
}

// MinCacheable returns a provider's minimum cacheable prefix in tokens for
// a model name ("" for the provider's default model), from the model table
// of prompt.Limits; 0 for providers that do not cache.
func MinCacheable(provider, model string) int {
	return prompt.Limits(provider, model, prompt.LimitOverride{}).MinCacheable
}

// Outlook computes the cache outlook of a rendered body for provider:
// minCacheable is the minimum cacheable prefix of the body's model in
// tokens (prompt.Limit.MinCacheable), prefixBytes of the body equal the
// previous render, tokens are the body's section tokens, and breakpoints
// are the token offsets of Anthropic's cache breakpoints in body order, as
// the render placed them (prompt.AnthropicBreakpoints; a marker past them
// counts the whole body). Against is left for the caller to set.
func Outlook(provider string, minCacheable int, body []byte, prefixBytes, tokens int, breakpoints []int) *CacheEconomics {
	ce := &CacheEconomics{MinCacheable: minCacheable, PrefixBytes: prefixBytes}
	ce.PrefixTokens = prefixTokens(prefixBytes, len(body), tokens)
	switch provider {
	case prompt.Anthropic:
		ce.Caching = "breakpoints"
		marks := markerOffsets(body)
		ce.Breakpoints = len(marks)
		at := slices.Clone(breakpoints)
		for len(at) < len(marks) {
			at = append(at, tokens)
		}
		for i, off := range marks {
			if i == prompt.AnthropicMaxBreakpoints {
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

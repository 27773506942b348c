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
	// Caching is how the provider caches: "breakpoints" (Anthropic, and
	// OpenRouter for Anthropic and Gemini models), "automatic" (OpenAI,
	// DeepSeek, OpenRouter's other models), "implicit" (Gemini) or "none".
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
	// Points are the token offsets of the body's breakpoints, in body
	// order (prompt.AnthropicBreakpoints): where the next request's reads
	// can end, and the known points of the bytes-to-tokens estimate
	// (TokensAt).
	Points []int `json:"breakpoint_tokens,omitempty"`
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

// Outlook computes the cache outlook of a rendered body for a provider of
// cache rule rule (prompt.Capabilities.Cache) against old, the body of the
// previous request (nil when there is none):
// minCacheable is the minimum cacheable prefix of the body's model in
// tokens (prompt.Limit.MinCacheable), prefixBytes of body equal old,
// tokens are the body's section tokens, and breakpoints are the token
// offsets of Anthropic's cache breakpoints in body order, as the render
// placed them (prompt.AnthropicBreakpoints; a marker past them counts the
// whole body). Against is left for the caller to set.
//
// For Anthropic the read is what the previous request wrote
// (docs/providers.md#anthropic-caching): the longest prefix that ends at
// one of old's breakpoints, lies inside the part of body equal to old
// (compared without the cache_control markers, which are not part of the
// cached content: the conversation's breakpoint moves to the new last
// block on every turn), is found by the 20-block lookback of one of body's
// breakpoints, and reaches minCacheable (AnthropicRead). For automatic and
// implicit caching it is the unchanged prefix when it reaches
// minCacheable. Tokens of a byte offset are exact at body's breakpoints
// and proportional to bytes between them (TokensAt).
func Outlook(rule string, minCacheable int, old, body []byte, prefixBytes, tokens int, breakpoints []int) *CacheEconomics {
	ce := &CacheEconomics{MinCacheable: minCacheable, PrefixBytes: prefixBytes}
	if rule == prompt.CachePassThrough {
		// OpenRouter: breakpoints when the body carries them (Anthropic and
		// Gemini models), automatic caching otherwise.
		rule = prompt.CacheAutomatic
		if bytes.Contains(body, markerKey) {
			rule = prompt.CacheBreakpoints
		}
	}
	switch rule {
	case prompt.CacheBreakpoints:
		ce.Caching = "breakpoints"
		r := AnthropicRead(old, body, tokens, breakpoints)
		ce.Breakpoints = r.Breakpoints
		ce.Points = slices.Clone(breakpoints)
		ce.PrefixTokens = r.PrefixTokens
		if r.Tokens >= ce.MinCacheable {
			ce.CachedTokens = r.Tokens
		}
		return ce
	case prompt.CacheAutomatic:
		ce.Caching = "automatic"
	case prompt.CacheImplicit:
		ce.Caching = "implicit"
	default:
		ce.Caching = "none"
	}
	ce.PrefixTokens = TokensAt(prefixBytes, len(body), tokens, nil, nil)
	if ce.Caching == "automatic" || ce.Caching == "implicit" {
		if ce.PrefixTokens >= ce.MinCacheable {
			ce.CachedTokens = ce.PrefixTokens
		}
	}
	return ce
}

// Read is what an Anthropic request reads from the cache the previous
// request wrote (AnthropicRead).
type Read struct {
	// Bytes is the length of the read prefix in the body without its
	// cache_control markers (0 for none), and Tokens its tokens.
	Bytes, Tokens int
	// PrefixBytes and PrefixTokens are the part of the body equal to the
	// previous request, compared without markers.
	PrefixBytes, PrefixTokens int
	// Breakpoints is the number of cache_control markers in the body.
	Breakpoints int
}

// AnthropicLookback is how many content blocks before a breakpoint the
// Messages API looks for an earlier cache entry
// (https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
const AnthropicLookback = 20

// AnthropicRead returns what body, an Anthropic Messages body of tokens
// section tokens whose breakpoints sit at the token offsets breakpoints,
// reads from the cache that old, the previous request, wrote: the longest
// prefix ending at one of old's first 4 breakpoints that is byte for byte
// a prefix of body once both lose their cache_control markers, and that
// lies at most AnthropicLookback blocks before one of body's breakpoints.
func AnthropicRead(old, body []byte, tokens int, breakpoints []int) Read {
	nb, newMarks := StripMarkers(body)
	r := Read{Breakpoints: len(newMarks)}
	at := slices.Clone(breakpoints)
	for len(at) < len(newMarks) {
		at = append(at, tokens)
	}
	at = at[:len(newMarks)]
	if old == nil {
		return r
	}
	ob, oldMarks := StripMarkers(old)
	r.PrefixBytes = commonPrefix(ob, nb)
	r.PrefixTokens = TokensAt(r.PrefixBytes, len(nb), tokens, newMarks, at)
	for i, m := range oldMarks {
		if i == prompt.AnthropicMaxBreakpoints || m > r.PrefixBytes {
			break
		}
		found := false
		for _, n := range newMarks {
			if n >= m && blocksBetween(nb, m, n) <= AnthropicLookback {
				found = true
				break
			}
		}
		if found {
			r.Bytes = m
		}
	}
	if r.Bytes > 0 {
		r.Tokens = TokensAt(r.Bytes, len(nb), tokens, newMarks, at)
	}
	return r
}

// TokensAt is the token offset of byte offset b of a body of n bytes and
// tokens tokens whose byte offsets marks are known to sit at the token
// offsets at (ascending): exact at a mark, and proportional to bytes
// between two known points ((0, 0), the marks, (n, tokens)).
func TokensAt(b, n, tokens int, marks, at []int) int {
	if b >= n {
		return tokens
	}
	x0, y0 := 0, 0
	for i, m := range marks {
		if i >= len(at) {
			break
		}
		if b == m {
			return at[i]
		}
		if m > b {
			return y0 + int(int64(at[i]-y0)*int64(b-x0)/int64(max(1, m-x0)))
		}
		x0, y0 = m, at[i]
	}
	return y0 + int(int64(tokens-y0)*int64(b-x0)/int64(max(1, n-x0)))
}

// marker is the cache_control key as the renderer writes it, last in its
// block and indented: the comma and line break before it go with it.
var markerKey = []byte(`"cache_control": {`)

// StripMarkers returns body without its cache_control markers (each
// `,\n  "cache_control": {…}` member, which the renderer writes last in
// its block) and, for each, the offset in the stripped body where it
// stood: the end of the marked block's content.
func StripMarkers(body []byte) ([]byte, []int) {
	var out []byte
	var marks []int
	rest := body
	for {
		i := bytes.Index(rest, markerKey)
		if i < 0 {
			return append(out, rest...), marks
		}
		// The member starts at the comma before the key.
		j := bytes.LastIndexByte(rest[:i], ',')
		if j < 0 {
			j = i
		}
		end := bytes.IndexByte(rest[i+len(markerKey):], '}')
		if end < 0 {
			return append(out, rest...), marks
		}
		out = append(out, rest[:j]...)
		marks = append(marks, len(out))
		rest = rest[i+len(markerKey)+end+1:]
	}
}

// blocksBetween counts the content blocks that start in b[from:to]: the
// "type" keys of blocks, as the renderer writes them.
func blocksBetween(b []byte, from, to int) int {
	if to <= from {
		return 0
	}
	return bytes.Count(b[from:to], []byte(`"type": "`))
}

func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

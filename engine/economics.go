package engine

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/recite-dev/recite/internal/fsutil"

	"github.com/recite-dev/recite/engine/prompt"
)

// RendersFile is the ring of recent renders, one JSON object a line,
// relative to the project root.
const RendersFile = CacheDir + "/renders.jsonl"

// PassesFile records each compression pass once, when a build first
// reaches it: the tokens before and after it (seeds/002 §6 "report the
// tokens saved by each pass").
const PassesFile = CacheDir + "/passes.jsonl"

// MaxPasses bounds PassesFile: older lines are dropped.
const MaxPasses = 200

// PassRecord is one line of PassesFile.
type PassRecord struct {
	Time   string `json:"time"`
	Target string `json:"target"`
	// Conversation is the target's conversation at the pass ("" for none).
	Conversation string `json:"conversation,omitempty"`
	// Pass is the iteration of the pass; Before, After and Saved are the
	// scored segments' tokens (CompressReport).
	Pass   int `json:"pass"`
	Before int `json:"before"`
	After  int `json:"after"`
	Saved  int `json:"saved"`
}

// recordPasses appends to PassesFile a record for each target whose
// compression pass is not recorded yet for its conversation (once per
// pass, not per build: the figures are the ones of the build that first
// reached it). A
// failure to record is ignored, as for the render history.
func (e *Engine) recordPasses(builds []*targetBuild) {
	var add []PassRecord
	for _, tb := range builds {
		if c := tb.report.Compression; c != nil && c.Enabled && c.Pass > 0 {
			add = append(add, PassRecord{Target: tb.report.Name, Conversation: tb.conversation(), Pass: c.Pass, Before: c.Before, After: c.After, Saved: c.Saved})
		}
	}
	if len(add) == 0 {
		return
	}
	old, _ := e.PassHistory()
	var recs []PassRecord
	for _, a := range add {
		if !slices.ContainsFunc(old, func(r PassRecord) bool {
			return r.Target == a.Target && r.Conversation == a.Conversation && r.Pass == a.Pass
		}) {
			a.Time = time.Now().UTC().Format(time.RFC3339)
			recs = append(recs, a)
		}
	}
	if len(recs) == 0 {
		return
	}
	_ = fsutil.WriteJSONLRing(filepath.Join(e.dir, filepath.FromSlash(PassesFile)), append(old, recs...), MaxPasses)
}

// PassHistory reads PassesFile, oldest first; a missing file is empty, and
// lines that are not records (no target or pass) are skipped.
func (e *Engine) PassHistory() ([]PassRecord, error) {
	return fsutil.ReadJSONL(filepath.Join(e.dir, filepath.FromSlash(PassesFile)), func(r PassRecord) bool {
		return r.Target != "" && r.Pass > 0
	})
}

// MaxRenders bounds RendersFile: older lines are dropped.
const MaxRenders = 50

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

// bodyHash is the first 16 hex digits of the SHA-256 of a rendered body.
func bodyHash(body []byte) string {
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

// cacheEconomics computes a rendered file's cache outlook against the
// previous render old, and on a build that changed the file appends a
// record to RendersFile. A failure to record is ignored: the history is a
// convenience, never a reason to fail a build.
//
// The prefix is the render against the previous render: against the file
// on disk when the render differs from it; when it does not (status right
// after a build), against the render before it, as the build that wrote the
// file recorded it in RendersFile (Against "history"; fr.PrefixBytes is set
// from the record). With no record of these bytes, the file on disk is all
// there is to compare with.
func (e *Engine) cacheEconomics(tb *targetBuild, fr *FileReport, old, body []byte, write bool) *CacheEconomics {
	tr := tb.report
	ce := &CacheEconomics{Against: "disk", MinCacheable: MinCacheable(fr.Provider, tb.target.Model)}
	if !write && bytes.Equal(old, body) {
		if all, err := e.RenderHistory(); err == nil {
			h := bodyHash(body)
			for i := len(all) - 1; i >= 0; i-- {
				if r := all[i]; r.Target == tr.Name && r.Provider == fr.Provider && r.Hash == h {
					fr.PrefixBytes = min(r.PrefixBytes, len(body))
					ce.Against = "history"
					break
				}
			}
		}
	}
	ce.PrefixBytes = fr.PrefixBytes
	stable, semi := 0, 0
	for _, s := range tb.prompt.Sections {
		switch s.Tier {
		case prompt.Stable:
			stable += s.Tokens
		case prompt.Semi:
			semi += s.Tokens
		}
	}
	ce.PrefixTokens = prefixTokens(fr.PrefixBytes, len(body), fr.Tokens)
	switch fr.Provider {
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
			at = append(at, fr.Tokens)
		}
		for i, off := range marks {
			if i == anthropicMaxBreakpoints {
				break
			}
			if off <= fr.PrefixBytes && at[i] >= ce.MinCacheable {
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
	if !write && tr.Renders == nil {
		tr.Renders = []RenderRecord{}
		all, _ := e.RenderHistory()
		for _, r := range all {
			if r.Target == tr.Name {
				tr.Renders = append(tr.Renders, r)
			}
		}
		passes, _ := e.PassHistory()
		for _, r := range passes {
			if r.Target == tr.Name && r.Conversation == tb.conversation() {
				tr.Passes = append(tr.Passes, r)
			}
		}
	}
	if write && !bytes.Equal(old, body) {
		tb.renders = append(tb.renders, RenderRecord{
			Time: time.Now().UTC().Format(time.RFC3339), Target: tr.Name, Provider: fr.Provider,
			Bytes: len(body), Tokens: fr.Tokens, PrefixBytes: fr.PrefixBytes, PrefixTokens: ce.PrefixTokens, CachedTokens: ce.CachedTokens,
			Hash: bodyHash(body),
		})
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

// recordRenders appends the render records the builds prepared to
// RendersFile in one write, keeping the last MaxRenders lines, written
// atomically (temp file and rename). A failure to record is ignored: the
// history is a convenience, never a reason to fail a build.
func (e *Engine) recordRenders(builds []*targetBuild) {
	var add []RenderRecord
	for _, tb := range builds {
		add = append(add, tb.renders...)
	}
	if len(add) > 0 {
		_ = e.appendRenders(add)
	}
}

// appendRenders adds rs to RendersFile, keeping the last MaxRenders lines,
// written atomically (temp file and rename).
func (e *Engine) appendRenders(rs []RenderRecord) error {
	recs, err := e.RenderHistory()
	if err != nil {
		recs = nil
	}
	return fsutil.WriteJSONLRing(filepath.Join(e.dir, filepath.FromSlash(RendersFile)), append(recs, rs...), MaxRenders)
}

// RenderHistory reads RendersFile, oldest first; a missing file is an empty
// history. Lines that are not valid records (no target) are skipped, so a
// torn or hand-edited line costs one record.
func (e *Engine) RenderHistory() ([]RenderRecord, error) {
	b, err := os.ReadFile(filepath.Join(e.dir, filepath.FromSlash(RendersFile)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return parseRenders(b), nil
}

// parseRenders reads RendersFile lines, skipping those that are not
// records (no target).
func parseRenders(b []byte) []RenderRecord {
	return fsutil.ParseJSONL(b, func(r RenderRecord) bool { return r.Target != "" })
}

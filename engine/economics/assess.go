package economics

import (
	"bytes"
	"time"

	"github.com/recite-dev/recite/engine/prompt"
)

// File is one rendered prompt file as its caching outlook needs it.
type File struct {
	// Target and Provider name the target and provider the file is for;
	// Cache is the provider's cache rule (prompt.Capabilities.Cache; ""
	// looks the provider up in the built-in table).
	Target, Provider, Cache string
	// Old is the file on disk (nil when there is none); Body is the fresh
	// render.
	Old, Body []byte
	// PrefixBytes is the length of Body's part equal to Old, in bytes;
	// Tokens is Body's count, in tokens.
	PrefixBytes, Tokens int
	// MinCacheable is the minimum cacheable prefix of the model the body
	// names, in tokens (prompt.Limit.MinCacheable).
	MinCacheable int
	// Breakpoints are the byte offsets in Body where the render puts its
	// cache breakpoints (prompt.AnthropicBreakpoints).
	Breakpoints []int
	// Write is true on a build (the file is written), false on a status.
	Write bool
}

// Assessment is the caching outlook of one File.
type Assessment struct {
	// Cache is the outlook (Outlook, with Against and FirstRender set).
	Cache *CacheEconomics
	// PrefixBytes is the prefix the outlook is measured with, in bytes:
	// File.PrefixBytes, or the one the build that wrote the file recorded
	// when Against is "history".
	PrefixBytes int
	// Record is the RendersFile line of a build that changed the file; nil
	// on a status or when the file's bytes do not change.
	Record *RenderRecord
}

// Assess computes the caching outlook of f for the project at dir: the
// render against the previous render. That is the file on disk when the
// render differs from it; when it does not (a status right after a
// build), the render before it, as the build that wrote the file
// recorded it in RendersFile (Against "history", the recorded prefix
// capped at len(Body)). With no record of these bytes, or a RendersFile
// that does not read, the file on disk is all there is to compare with
// (Against "disk"). now stamps the Record. It writes nothing.
func Assess(dir string, f File, now time.Time) Assessment {
	against, first, prefix := "disk", f.Old == nil, f.PrefixBytes
	histRead, histPrefix := 0, 0
	if !f.Write && bytes.Equal(f.Old, f.Body) {
		if all, err := RenderHistory(dir); err == nil {
			h := BodyHash(f.Body)
			for i := len(all) - 1; i >= 0; i-- {
				if r := all[i]; r.Target == f.Target && r.Provider == f.Provider && r.Hash == h {
					prefix = min(r.PrefixBytes, len(f.Body))
					against, first = "history", r.First
					histRead, histPrefix = r.CachedTokens, r.PrefixTokens
					break
				}
			}
		}
	}
	old := f.Old
	if against == "history" {
		old = nil
	}
	rule := f.Cache
	if rule == "" {
		caps, _ := prompt.CapabilitiesOf(f.Provider)
		rule = caps.Cache
	}
	ce := Outlook(rule, f.MinCacheable, old, f.Body, prefix, f.Tokens, f.Breakpoints)
	if against == "history" {
		// The file on disk is the render itself; the build that wrote it
		// measured it against the render before, and recorded the read.
		ce.CachedTokens, ce.PrefixTokens = histRead, max(ce.PrefixTokens, histPrefix)
	}
	ce.Against, ce.FirstRender = against, first
	a := Assessment{Cache: ce, PrefixBytes: prefix}
	if f.Write && !bytes.Equal(f.Old, f.Body) {
		a.Record = &RenderRecord{
			Time: now.UTC().Format(time.RFC3339), Target: f.Target, Provider: f.Provider,
			Bytes: len(f.Body), Tokens: f.Tokens, PrefixBytes: prefix, PrefixTokens: ce.PrefixTokens, CachedTokens: ce.CachedTokens,
			Hash: BodyHash(f.Body), First: f.Old == nil,
		}
	}
	return a
}

// TargetHistory returns the RendersFile records of target (never nil)
// and the PassesFile records of target's conversation (nil when none),
// oldest first, for a status report; files that do not read count as
// empty.
func TargetHistory(dir, target, conversation string) ([]RenderRecord, []PassRecord) {
	renders := []RenderRecord{}
	all, _ := RenderHistory(dir)
	for _, r := range all {
		if r.Target == target {
			renders = append(renders, r)
		}
	}
	var passes []PassRecord
	recs, _ := PassHistory(dir)
	for _, r := range recs {
		if r.Target == target && r.Conversation == conversation {
			passes = append(passes, r)
		}
	}
	return renders, passes
}

package main

import (
	"fmt"

	"github.com/recite-dev/recite/engine"
)

// cache writes the prompt-caching outlook of each provider file that
// caches, one line each (cacheWords); a target without one says so.
func (p *picture) cache(t *engine.TargetReport) {
	label := "cache"
	for _, f := range t.Files {
		if f.Cache == nil || f.Cache.Caching == "none" {
			continue
		}
		p.labeled(label, fmt.Sprintf("%-10s %s", f.Provider, p.cacheWords(f)))
		label = ""
	}
	if label != "" {
		p.labeled(label, p.st.faint.Render("no provider file of this target is cached by its provider"))
	}
}

// cacheWords says what the next request with a provider file reads from
// the provider's prompt cache, in words (engine/economics.go computes the
// figures):
//
//   - "first render: nothing cached yet": no render came before this one
//     (before the first build, or right after it), so the first request
//     writes the cache;
//   - "next request reads C of T tokens from the cache": the file is the
//     one the last build wrote, C tokens of its start equal the render
//     before it and reach the provider's minimum;
//   - "changed since the last build: after recite build, the next request
//     reads …": the planning tree changed, and the figures compare the new
//     render with the file on disk;
//   - "… nothing from the cache: …" with the reason: the prefix is below
//     the provider's minimum, no cache breakpoint lies inside it, or the
//     prompt changed from its first byte.
func (p *picture) cacheWords(f engine.FileReport) string {
	ce := f.Cache
	if ce.FirstRender {
		if ce.Against == "disk" {
			return p.st.warn.Render("first render: nothing cached yet") + " (no prompt file yet: recite build writes it)"
		}
		return p.st.warn.Render("first render: nothing cached yet")
	}
	var s string
	switch {
	case ce.CachedTokens > 0:
		s = p.st.good.Render(fmt.Sprintf("next request reads %s of %s tokens from the cache", p.n(ce.CachedTokens), p.n(f.Tokens)))
	case ce.PrefixTokens == 0:
		s = p.st.warn.Render("next request reads nothing from the cache") + ": the prompt changed from its first byte"
	case ce.PrefixTokens < ce.MinCacheable:
		s = p.st.warn.Render("next request reads nothing from the cache") + fmt.Sprintf(": the unchanged %s tokens are below %s's minimum of %s", p.n(ce.PrefixTokens), f.Provider, p.n(ce.MinCacheable))
	default:
		s = p.st.warn.Render("next request reads nothing from the cache") + fmt.Sprintf(": no cache breakpoint inside the unchanged %s tokens", p.n(ce.PrefixTokens))
	}
	if ce.Against == "disk" && f.PrefixBytes < f.Bytes {
		return p.st.warn.Render("changed since the last build") + ": after recite build, " + s
	}
	return s
}

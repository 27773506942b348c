package engine

import (
	"time"

	"github.com/recite-dev/recite/engine/economics"
	"github.com/recite-dev/recite/engine/prompt"
)

// The render and pass history files, relative to the project root
// (package economics).
const (
	// RendersFile is the ring of recent renders, one JSON object a line.
	RendersFile = economics.RendersFile
	// MaxRenders bounds RendersFile: older lines are dropped.
	MaxRenders = economics.MaxRenders
	// PassesFile records each compression pass once, when a build first
	// reaches it.
	PassesFile = economics.PassesFile
	// MaxPasses bounds PassesFile: older lines are dropped.
	MaxPasses = economics.MaxPasses
)

// PassRecord is one line of PassesFile (economics.PassRecord).
type PassRecord = economics.PassRecord

// CacheEconomics is the prompt-caching outlook of one rendered file
// (economics.CacheEconomics).
type CacheEconomics = economics.CacheEconomics

// RenderRecord is one line of RendersFile (economics.RenderRecord).
type RenderRecord = economics.RenderRecord

// MinCacheable returns a provider's minimum cacheable prefix in tokens for
// a model name (economics.MinCacheable).
func MinCacheable(provider, model string) int { return economics.MinCacheable(provider, model) }

// recordPasses appends to PassesFile a record for each target whose
// compression pass is not recorded yet for its conversation (once per
// pass, not per build: the figures are the ones of the build that first
// reached it). A failure to record is ignored, as for the render history.
func (e *Engine) recordPasses(builds []*targetBuild) {
	var add []PassRecord
	for _, tb := range builds {
		if c := tb.report.Compression; c != nil && c.Enabled && c.Pass > 0 {
			add = append(add, PassRecord{Target: tb.report.Name, Conversation: tb.conversation(), Pass: c.Pass, Before: c.Before, After: c.After, Saved: c.Saved})
		}
	}
	_ = economics.AddPasses(e.dir, add, time.Now())
}

// PassHistory reads PassesFile, oldest first; a missing file is empty, and
// lines that are not records (no target or pass) are skipped.
func (e *Engine) PassHistory() ([]PassRecord, error) { return economics.PassHistory(e.dir) }

// RenderHistory reads RendersFile, oldest first; a missing file is an empty
// history. Lines that are not valid records (no target) are skipped.
func (e *Engine) RenderHistory() ([]RenderRecord, error) { return economics.RenderHistory(e.dir) }

// cacheEconomics computes a rendered file's cache outlook against the
// previous render old (economics.Assess: the file on disk, or the render
// before it as RendersFile recorded it, which then sets fr.PrefixBytes),
// and on a build that changed the file adds a record for RendersFile to
// the build. On a status it fills the target's recent renders and passes
// once.
func (e *Engine) cacheEconomics(tb *targetBuild, fr *FileReport, old, body []byte, write bool) *CacheEconomics {
	tr := tb.report
	// The breakpoints follow the render (prompt.AnthropicBreakpoints), and
	// the minimum is the one of the model the body names.
	caps, _ := tb.cfg.Catalog().Lookup(fr.Provider)
	a := economics.Assess(e.dir, economics.File{
		Target: tr.Name, Provider: fr.Provider, Cache: caps.Cache, Old: old, Body: body,
		PrefixBytes: fr.PrefixBytes, Tokens: fr.Tokens,
		MinCacheable: tb.target.Limits(fr.Provider).MinCacheable,
		Breakpoints:  prompt.AnthropicBreakpoints(tb.prompt, tb.target.RenderOptions(fr.Provider)),
		Write:        write,
	}, time.Now())
	fr.PrefixBytes = a.PrefixBytes
	if !write && tr.Renders == nil {
		renders, passes := economics.TargetHistory(e.dir, tr.Name, tb.conversation())
		tr.Renders, tr.Passes = renders, append(tr.Passes, passes...)
	}
	if a.Record != nil {
		tb.renders = append(tb.renders, *a.Record)
	}
	return a.Cache
}

// recordRenders appends the render records the builds prepared to
// RendersFile in one write, a ring of the last MaxRenders
// (economics.AppendRenders). A failure to record is ignored: the
// history is a convenience, never a reason to fail a build.
func (e *Engine) recordRenders(builds []*targetBuild) {
	var add []RenderRecord
	for _, tb := range builds {
		add = append(add, tb.renders...)
	}
	if len(add) > 0 {
		_ = economics.AppendRenders(e.dir, add)
	}
}

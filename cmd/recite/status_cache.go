package main

import (
	"fmt"
	"io"

	"github.com/recite-dev/recite/engine"
)

// recentRenders is how many records of the render history status prints.
const recentRenders = 5

// recentPasses is how many recorded compression passes status prints.
const recentPasses = 10

// printCacheStatus prints, for each target, its difficulty routing and
// compression pass, and for each provider file the prompt-caching outlook
// against the previous render (engine/economics.go); then the last renders
// of .planning/.recite/renders.jsonl (TargetReport.Renders).
func printCacheStatus(w io.Writer, rep *engine.Report) {
	for _, t := range rep.Targets {
		fmt.Fprintf(w, "\ntarget %s: cache and compression\n", t.Name)
		if c := t.Compression; c != nil {
			fmt.Fprintf(w, "  difficulty: %s\n", c.Difficulty)
			if len(c.Omitted) > 0 || c.DoubleCheck {
				fmt.Fprintf(w, "  difficulty policy: omitted %v, double-check %v\n", c.Omitted, c.DoubleCheck)
			}
			fmt.Fprintf(w, "  compression: %s\n", c.Summary())
			// Earlier passes as recorded when first reached; the pass in
			// effect is the live line above.
			var passes []engine.PassRecord
			for _, r := range t.Passes {
				if r.Pass != c.Pass {
					passes = append(passes, r)
				}
			}
			if len(passes) > recentPasses {
				passes = passes[len(passes)-recentPasses:]
			}
			for _, r := range passes {
				fmt.Fprintf(w, "    pass at iteration %d: %d → %d tokens (%d saved)\n", r.Pass, r.Before, r.After, r.Saved)
			}
			if c.Level.Level.String() != "GREEN" {
				fmt.Fprintf(w, "  budget level %s against the target's budget of %d tokens: %d → %d tokens, %d actions\n", c.Level.Level, c.Level.Budget, c.Level.Before, c.Level.After, len(c.Level.Actions))
				if c.Level.Handoff {
					fmt.Fprintln(w, "  recommend a handoff to a fresh session (RED)")
				}
			}
		}
		for _, f := range t.Files {
			ce := f.Cache
			if ce == nil {
				continue
			}
			fmt.Fprintf(w, "  %-10s caching %-11s stable prefix %d bytes ≈ %d tokens; predicted cached %d tokens (minimum %d)",
				f.Provider, ce.Caching, ce.PrefixBytes, ce.PrefixTokens, ce.CachedTokens, ce.MinCacheable)
			if ce.Breakpoints > 0 {
				fmt.Fprintf(w, "; %d breakpoints", ce.Breakpoints)
			}
			switch ce.Against {
			case "history":
				fmt.Fprint(w, "; prefix of the last build against the render before it")
			case "disk":
				fmt.Fprint(w, "; prefix against the file on disk")
			}
			fmt.Fprintln(w)
		}
		recs := t.Renders
		if len(recs) > recentRenders {
			recs = recs[len(recs)-recentRenders:]
		}
		if len(recs) > 0 {
			fmt.Fprintf(w, "  recent renders (%s):\n", engine.RendersFile)
		}
		for _, r := range recs {
			fmt.Fprintf(w, "    %s %-10s %6d tokens, prefix %d bytes ≈ %d tokens, cached %d\n", r.Time, r.Provider, r.Tokens, r.PrefixBytes, r.PrefixTokens, r.CachedTokens)
		}
	}
}

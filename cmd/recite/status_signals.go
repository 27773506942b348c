package main

import (
	"fmt"
	"io"

	"github.com/recite-dev/recite/engine"
)

// printSignals prints the health, the circuit breaker with its counters
// and thresholds, and the list of stop signals of a status report.
func printSignals(w io.Writer, rep *engine.Report) {
	sr := rep.Signals
	if sr == nil {
		return
	}
	h := sr.Health
	th := h.Thresholds
	fmt.Fprintln(w)
	if sr.Iterations == 0 {
		fmt.Fprintf(w, "health: %s; circuit breaker %s (%s); no iterations recorded\n", h.State, h.Breaker, sr.BreakerLine)
	} else {
		fmt.Fprintf(w, "health: %s; circuit breaker %s (%s); %d iterations from %s\n", h.State, h.Breaker, sr.BreakerLine, sr.Iterations, sr.IterationSource)
	}
	fmt.Fprintf(w, "  thresholds (warning/break): stall %d/%d, spin %d/%d, decline %d%%/%d%%, baseline %d iterations\n",
		th.StallWarning, th.StallBreak, th.SpinWarning, th.SpinBreak, th.DeclineWarningPct, th.DeclineBreakPct, th.BaselineIterations)
	for _, r := range h.Reasons {
		fmt.Fprintf(w, "  reason: %s\n", r)
	}
	if len(sr.Signals) == 0 {
		fmt.Fprintln(w, "stop signals: none")
		return
	}
	fmt.Fprintf(w, "stop signals (%d):\n", len(sr.Signals))
	fmt.Fprintf(w, "  %-16s %5s  %s: %s\n", "kind", "count", "source", "first line")
	for _, s := range sr.Signals {
		fmt.Fprintf(w, "  %-16s %5d  %s: %s\n", s.Kind, s.Count, s.Source, clip(firstTextLine(s.Text), 100))
	}
}

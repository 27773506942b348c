package main

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/recite-dev/recite/engine"
)

// signalsShown is how many stop signals the picture lists, and kindWidth
// the column of their kind ("failed_approach").
const (
	signalsShown = 5
	kindWidth    = 15
)

// signals writes the health and the circuit breaker (with its thresholds
// and reasons when it is not healthy), then the open stop signals: a count
// by kind and the first signalsShown, "SOURCE: FIRST LINE" each.
func (p *picture) signals(sr *engine.SignalsReport) {
	h := sr.Health
	iters := "no iterations recorded"
	if sr.Iterations > 0 {
		iters = fmt.Sprintf("%d iterations from %s", sr.Iterations, sr.IterationSource)
	}
	p.line(p.st.title.Render(fmt.Sprintf("%-*s", labelWidth+2, "health")) + p.healthStyle(h.State).Render(h.State) +
		"; circuit breaker " + p.healthStyle(h.Breaker).Render(h.Breaker) + " (" + sr.BreakerLine + ")")
	p.labeled("", iters)
	if h.Breaker != "HEALTHY" {
		th := h.Thresholds
		p.labeled("", fmt.Sprintf("thresholds (warning/break): stall %d/%d, spin %d/%d, decline %d%%/%d%%, baseline %d iterations",
			th.StallWarning, th.StallBreak, th.SpinWarning, th.SpinBreak, th.DeclineWarningPct, th.DeclineBreakPct, th.BaselineIterations))
	}
	for _, r := range h.Reasons {
		p.labeled("", "reason: "+r)
	}
	title := p.st.title.Render(fmt.Sprintf("%-*s", labelWidth+2, "stop signals"))
	if len(sr.Signals) == 0 {
		p.line(title + "none")
		return
	}
	kinds := make([]string, len(sr.Signals))
	for i, s := range sr.Signals {
		kinds[i] = string(s.Kind)
	}
	p.line(title + fmt.Sprintf("%d open: %s", len(sr.Signals), signalCounts(kinds)))
	for i, s := range sr.Signals {
		if i == signalsShown {
			p.labeled("", fmt.Sprintf("… and %d more (recite status --json lists them)", len(sr.Signals)-signalsShown))
			break
		}
		kind := string(s.Kind)
		if s.Count > 1 {
			kind += fmt.Sprintf(" ×%d", s.Count)
		}
		p.line("  " + p.kindStyle(string(s.Kind)).Render(fmt.Sprintf("%-*s", kindWidth, kind)) + " " + s.Source + ": " + firstTextLine(s.Text))
	}
}

// signalCounts is "1 error, 4 blocked, 7 failed approaches": the count of
// each kind of a list of stop signals' kinds, in the order kinds first
// appear.
func signalCounts(list []string) string {
	var kinds []string
	n := map[string]int{}
	for _, k := range list {
		if n[k] == 0 {
			kinds = append(kinds, k)
		}
		n[k]++
	}
	parts := make([]string, len(kinds))
	for i, k := range kinds {
		name := strings.ReplaceAll(k, "_", " ")
		switch k {
		case "error":
			name = plural(n[k], "error", "errors")
		case "failed_approach":
			name = plural(n[k], "failed approach", "failed approaches")
		}
		parts[i] = fmt.Sprintf("%d %s", n[k], name)
	}
	return strings.Join(parts, ", ")
}

// healthStyle colours a health or breaker state: green when all is well,
// red when stopped, yellow otherwise.
func (p *picture) healthStyle(state string) lipgloss.Style {
	switch state {
	case "PROGRESS", "HEALTHY":
		return p.st.good
	case "BLOCKED", "TRIPPED":
		return p.st.bad
	}
	return p.st.warn
}

// kindStyle colours a stop signal's kind.
func (p *picture) kindStyle(k string) lipgloss.Style {
	if k == "error" || k == "blocked" {
		return p.st.bad
	}
	return p.st.warn
}

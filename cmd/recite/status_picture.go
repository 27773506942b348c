package main

import (
	"fmt"
	"image/color"
	"io"
	"sort"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/recite-dev/recite/engine"
)

// The status picture's layout: labels take labelWidth columns after a
// two-space indent, bars take what the width leaves beside the figures,
// within [minBar, maxBar] cells.
const (
	labelWidth   = 12
	figureWidth  = 16
	minBar       = 10
	maxBar       = 60
	biggestShown = 5 // sections named on the "biggest" line
	cutsShown    = 3 // cuts and redactions listed per target
)

// The cells of a bar: filled, empty, and a threshold mark.
const (
	cellFull  = "█"
	cellEmpty = "░"
	cellMark  = "│"
)

// tiers are the cache tiers in prompt order.
var tiers = [...]string{"stable", "semi", "dynamic"}

// styles are the picture's colours; all zero styles (plain text) when
// colour is off.
type styles struct {
	title, label, faint  lipgloss.Style
	good, warn, bad      lipgloss.Style
	stable, semi, dynamc lipgloss.Style
}

// newStyles returns the colours of the picture, or plain styles.
func newStyles(colored bool) styles {
	if !colored {
		return styles{}
	}
	fg := func(c color.Color) lipgloss.Style { return lipgloss.NewStyle().Foreground(c) }
	return styles{
		title:  lipgloss.NewStyle().Bold(true),
		label:  fg(lipgloss.BrightBlack),
		faint:  fg(lipgloss.BrightBlack),
		good:   fg(lipgloss.Green),
		warn:   fg(lipgloss.Yellow),
		bad:    fg(lipgloss.Red),
		stable: fg(lipgloss.Blue), semi: fg(lipgloss.Cyan), dynamc: fg(lipgloss.Magenta),
	}
}

// tier is the style of a cache tier.
func (s styles) tier(name string) lipgloss.Style {
	switch name {
	case "stable":
		return s.stable
	case "semi":
		return s.semi
	}
	return s.dynamc
}

// budgetStatus is the style of a budget status: OK, WARNING, CRITICAL.
func (s styles) budgetStatus(st string) lipgloss.Style {
	switch st {
	case "OK":
		return s.good
	case "WARNING":
		return s.warn
	}
	return s.bad
}

// picture writes the readable status of one project, about a screen: a
// header, per target its budget bar with the threshold marks, a bar per
// tier, the biggest sections, the cache outlook and the routing, then the
// health, the circuit breaker and the stop signals.
//
// Bars take their width from width; lines are cut to it when clip is set
// (on a terminal, where a long line would wrap into the next), and kept
// whole otherwise (piped, so nothing is lost).
type picture struct {
	w     io.Writer
	width int
	clip  bool
	st    styles
	num   *message.Printer
}

func newPicture(w io.Writer, width int, clip, colored bool) *picture {
	return &picture{w: w, width: width, clip: clip, st: newStyles(colored), num: message.NewPrinter(language.English)}
}

// n formats a count with thousands separators: 12,340.
func (p *picture) n(v int) string { return p.num.Sprintf("%d", v) }

// line writes one line, cut to the width when clip is set (ANSI codes do
// not count).
func (p *picture) line(s string) {
	if p.clip && ansi.StringWidth(s) > p.width {
		s = clipStyled(s, p.width)
	}
	fmt.Fprintln(p.w, s)
}

// labeled writes "  LABEL      TEXT".
func (p *picture) labeled(label, text string) {
	p.line("  " + p.st.label.Render(fmt.Sprintf("%-*s", labelWidth, label)) + text)
}

// barWidth is the number of cells of a bar.
func (p *picture) barWidth() int {
	return max(minBar, min(maxBar, p.width-2-labelWidth-figureWidth))
}

// bar draws frac (0..1) of n cells in style fill, the rest faint; marks
// are fractions where a threshold mark stands, drawn in the style of the
// threshold (markStyles[i]).
func (p *picture) bar(frac float64, n int, fill lipgloss.Style, marks []float64, markStyles []lipgloss.Style) string {
	filled := int(frac*float64(n) + 0.5)
	if frac > 0 && filled == 0 {
		filled = 1 // a prompt that uses anything shows a cell
	}
	filled = min(filled, n)
	var b strings.Builder
	for i := 0; i < n; i++ {
		mark := -1
		for j, m := range marks {
			if int(m*float64(n)) == i {
				mark = j
			}
		}
		switch {
		case mark >= 0 && i < filled:
			b.WriteString(fill.Render(cellMark))
		case mark >= 0:
			b.WriteString(markStyles[mark].Render(cellMark))
		case i < filled:
			b.WriteString(fill.Render(cellFull))
		default:
			b.WriteString(p.st.faint.Render(cellEmpty))
		}
	}
	return b.String()
}

// print writes the whole picture; diagnostics are printed by the caller.
func (p *picture) print(rep *engine.Report) {
	th := rep.Thresholds
	p.line(p.st.title.Render("recite status") + p.st.faint.Render(fmt.Sprintf(" · %s planning · %s · context window %s tokens", rep.Flavor, rep.Tokenizer, p.n(rep.ContextWindow))))
	p.line(p.st.faint.Render(fmt.Sprintf("bars: %s tokens, %s warning at %.0f%% and critical at %.0f%% of the target's budget", cellFull, cellMark, th.Warning*100, th.Critical*100)))
	for _, t := range rep.Targets {
		fmt.Fprintln(p.w)
		p.target(t, th.Warning, th.Critical)
	}
	if rep.Signals != nil {
		fmt.Fprintln(p.w)
		p.signals(rep.Signals)
	}
}

// target writes one target's lines.
// warning and critical are the thresholds' fractions of the budget.
func (p *picture) target(t *engine.TargetReport, warning, critical float64) {
	stStyle := p.st.budgetStatus(string(t.Status))
	p.line(p.st.title.Render("target "+t.Name) + " · " + stStyle.Render(string(t.Status)) + fmt.Sprintf(" · %s of %s tokens (%.1f%%) · role %s", p.n(t.Tokens), p.n(t.Budget), t.Percent, t.Role))
	if t.Kept != "" {
		p.line("  " + p.st.warn.Render(t.Kept))
	}
	n := p.barWidth()
	frac := 0.0
	if t.Budget > 0 {
		frac = float64(t.Tokens) / float64(t.Budget)
	}
	p.labeled("budget", p.bar(frac, n, stStyle, []float64{warning, critical}, []lipgloss.Style{p.st.warn, p.st.bad})+fmt.Sprintf(" %6.1f%%", t.Percent))
	total := 0
	byTier := map[string]int{}
	for _, s := range t.Sections {
		byTier[s.Tier] += s.Tokens
		total += s.Tokens
	}
	for _, tier := range tiers {
		f := 0.0
		if total > 0 {
			f = float64(byTier[tier]) / float64(total)
		}
		p.labeled(tier, p.bar(f, n, p.st.tier(tier), nil, nil)+fmt.Sprintf(" %7s %3.0f%%", p.n(byTier[tier]), f*100))
	}
	p.labeled("biggest", p.biggest(t.Sections))
	p.cuts(t)
	p.cache(t)
	if c := t.Compression; c != nil {
		p.labeled("routing", "difficulty: "+c.Difficulty.String())
		p.labeled("compression", c.Summary())
		if c.Level.Level.String() != "GREEN" {
			p.labeled("", fmt.Sprintf("budget level %s: %s → %s tokens, %d actions", c.Level.Level, p.n(c.Level.Before), p.n(c.Level.After), len(c.Level.Actions)))
			if c.Level.Handoff {
				p.labeled("", p.st.bad.Render("recommend a handoff to a fresh session (RED)"))
			}
		}
	}
}

// biggest names the largest sections with their tokens, largest first.
func (p *picture) biggest(sections []engine.SectionReport) string {
	s := append([]engine.SectionReport(nil), sections...)
	sort.SliceStable(s, func(i, j int) bool { return s[i].Tokens > s[j].Tokens })
	var parts []string
	for i, sec := range s {
		if i == biggestShown {
			break
		}
		parts = append(parts, p.st.tier(sec.Tier).Render(sec.ID)+" "+p.n(sec.Tokens))
	}
	if len(parts) == 0 {
		return "no sections"
	}
	return strings.Join(parts, " · ")
}

// cuts writes the budget cuts, the provider cuts and the redactions, at
// most cutsShown of each kind.
func (p *picture) cuts(t *engine.TargetReport) {
	list := func(prefix string, items []string) {
		for i, c := range items {
			if i == cutsShown {
				p.line(fmt.Sprintf("  %s … and %d more (recite status --json lists them)", prefix, len(items)-cutsShown))
				break
			}
			p.line("  " + prefix + " " + c)
		}
	}
	list("cut:", t.Cuts)
	for _, f := range t.Files {
		list("cut for "+f.Provider+"'s context window:", f.Cuts)
	}
	list("redacted:", t.Redactions)
}

// clipStyled cuts a line that may hold ANSI codes to width columns,
// ending in "…".
func clipStyled(s string, width int) string {
	return ansi.Truncate(s, width, "…")
}

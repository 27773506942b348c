package main

import (
	"bytes"
	"testing"

	"charm.land/lipgloss/v2"

	"github.com/recite-dev/recite/engine"
)

// TestCacheWords pins the cache line of every case the engine reports.
func TestCacheWords(t *testing.T) {
	tests := []struct {
		name string
		file engine.FileReport
		want string
	}{
		{"before the first build", engine.FileReport{Provider: "anthropic", Bytes: 900, Tokens: 3052, Cache: &engine.CacheEconomics{Against: "disk", FirstRender: true, MinCacheable: 1024}},
			"first render: nothing cached yet (no prompt file yet: recite build writes it)"},
		{"right after the first build", engine.FileReport{Provider: "anthropic", Bytes: 900, PrefixBytes: 0, Tokens: 3052, Cache: &engine.CacheEconomics{Against: "history", FirstRender: true, MinCacheable: 1024}},
			"first render: nothing cached yet"},
		{"unchanged since a rebuild", engine.FileReport{Provider: "openai", Bytes: 900, PrefixBytes: 600, Tokens: 14002, Cache: &engine.CacheEconomics{Against: "history", PrefixTokens: 12340, CachedTokens: 12340, MinCacheable: 1024}},
			"next request reads 12,340 of 14,002 tokens from the cache"},
		{"changed since the last build", engine.FileReport{Provider: "anthropic", Bytes: 900, PrefixBytes: 400, Tokens: 3059, Cache: &engine.CacheEconomics{Against: "disk", PrefixTokens: 1528, CachedTokens: 1528, MinCacheable: 1024}},
			"changed since the last build: after recite build, next request reads 1,528 of 3,059 tokens from the cache"},
		{"changed from the first byte", engine.FileReport{Provider: "openai", Bytes: 900, Tokens: 3000, Cache: &engine.CacheEconomics{Against: "history", MinCacheable: 1024}},
			"next request reads nothing from the cache: the prompt changed from its first byte"},
		{"below the minimum", engine.FileReport{Provider: "gemini", Bytes: 900, PrefixBytes: 900, Tokens: 1500, Cache: &engine.CacheEconomics{Against: "history", PrefixTokens: 1500, MinCacheable: 2048}},
			"next request reads nothing from the cache: the unchanged 1,500 tokens are below gemini's minimum of 2,048"},
		{"no breakpoint inside", engine.FileReport{Provider: "anthropic", Bytes: 900, PrefixBytes: 300, Tokens: 3059, Cache: &engine.CacheEconomics{Against: "history", PrefixTokens: 1176, MinCacheable: 1024}},
			"next request reads nothing from the cache: no cache breakpoint inside the unchanged 1,176 tokens"},
	}
	p := newPicture(&bytes.Buffer{}, 80, false, false)
	for _, tt := range tests {
		if got := p.cacheWords(tt.file); got != tt.want {
			t.Errorf("%s:\n got %q\nwant %q", tt.name, got, tt.want)
		}
	}
}

// TestBar: the fill, the threshold marks and the cell a tiny share gets.
func TestBar(t *testing.T) {
	p := newPicture(&bytes.Buffer{}, 80, false, false)
	tests := []struct {
		frac  float64
		marks []float64
		want  string
	}{
		{0, nil, "░░░░░░░░░░"},
		{0.001, nil, "█░░░░░░░░░"},
		{0.5, nil, "█████░░░░░"},
		{1.2, nil, "██████████"},
		{0.3, []float64{0.7, 0.85}, "███░░░░││░"},
		{0.9, []float64{0.7, 0.85}, "███████││░"},
	}
	for _, tt := range tests {
		got := p.bar(tt.frac, 10, p.st.good, tt.marks, []lipgloss.Style{p.st.warn, p.st.bad})
		if got != tt.want {
			t.Errorf("bar(%v, %v) = %q, want %q", tt.frac, tt.marks, got, tt.want)
		}
	}
}

// TestColor: colour only on a terminal, never with NO_COLOR or --json;
// the width falls back to 80 off a terminal.
func TestColor(t *testing.T) {
	tests := []struct {
		s     IOStreams
		json  bool
		color bool
		width int
	}{
		{IOStreams{}, false, false, 80},
		{IOStreams{OutTerminal: true, Width: 132}, false, true, 132},
		{IOStreams{OutTerminal: true}, false, true, 80},
		{IOStreams{OutTerminal: true, Width: 132, NoColor: true}, false, false, 132},
		{IOStreams{OutTerminal: true, Width: 132}, true, false, 132},
		{IOStreams{Width: 132}, false, false, 80},
	}
	for _, tt := range tests {
		if got := tt.s.color(tt.json); got != tt.color {
			t.Errorf("%+v color(json=%v) = %v", tt.s, tt.json, got)
		}
		if got := tt.s.width(); got != tt.width {
			t.Errorf("%+v width() = %d, want %d", tt.s, got, tt.width)
		}
	}
	env := map[string]string{"NO_COLOR": "1"}
	if !systemStreams(func(k string) string { return env[k] }).NoColor {
		t.Error("NO_COLOR=1 left colour on")
	}
	env = map[string]string{"NO_COLOR": ""}
	if systemStreams(func(k string) string { return env[k] }).NoColor {
		t.Error("an empty NO_COLOR turned colour off (https://no-color.org: only a non-empty value does)")
	}
}

package main

import (
	"runtime/debug"
	"strings"
	"testing"

	"github.com/recite-dev/recite/engine"
)

// TestBuildVersion: module version, commit, date, dirty flag, Go.
func TestBuildVersion(t *testing.T) {
	info := func(v string, settings ...string) *debug.BuildInfo {
		bi := &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "github.com/recite-dev/recite", Version: v}}
		for i := 0; i+1 < len(settings); i += 2 {
			bi.Settings = append(bi.Settings, debug.BuildSetting{Key: settings[i], Value: settings[i+1]})
		}
		return bi
	}
	tests := []struct {
		info *debug.BuildInfo
		ok   bool
		want string
	}{
		{nil, false, "unknown"},
		{info("v0.3.0"), true, "v0.3.0, go1.26.8"},
		{info("(devel)", "vcs.revision", "84bbd3a0f1e2d3c4b5a6978877665544332211aa", "vcs.time", "2026-11-30T10:00:00Z", "vcs.modified", "true"), true,
			"(devel), commit 84bbd3a0f1e2 (2026-11-30T10:00:00Z) dirty, go1.26.8"},
		{info("", "vcs.revision", "84bbd3a", "vcs.modified", "false"), true, "(devel), commit 84bbd3a, go1.26.8"},
	}
	for _, tt := range tests {
		if got := buildVersion(tt.info, tt.ok); got != tt.want {
			t.Errorf("buildVersion = %q, want %q", got, tt.want)
		}
	}
}

// TestProgressLine: drawn over itself with carriage returns, once per
// change of text, padded over a longer previous text, cleared at the end;
// nothing off a terminal.
func TestProgressLine(t *testing.T) {
	streams, _, errOut := testStreams("")
	if p := newProgress(streams); p != nil {
		t.Fatal("progress off a terminal")
	}
	var nilLine *progressLine
	nilLine.done() // a nil line shows nothing
	streams.ErrTerminal = true
	p := newProgress(streams)
	for _, pr := range []engine.Progress{
		{Stage: "reading the planning tree"},
		{Stage: "reading s.jsonl", Done: 10, Total: 2_000_000, Unit: "bytes"},
		{Stage: "reading s.jsonl", Done: 11, Total: 2_000_000, Unit: "bytes"}, // same percent: not drawn
		{Stage: "reading s.jsonl", Done: 2_000_000, Total: 2_000_000, Unit: "bytes"},
	} {
		p.show(pr)
	}
	p.done()
	want := "\rreading the planning tree…" +
		"\rreading s.jsonl: 0% of 2.0 MB" +
		"\rreading s.jsonl: 100% of 2.0 MB" +
		"\r" + strings.Repeat(" ", len("reading s.jsonl: 100% of 2.0 MB")) + "\r"
	if got := errOut.String(); got != want {
		t.Errorf("stderr %q,\nwant   %q", got, want)
	}
}

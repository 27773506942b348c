package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSignalCommandsExitCodes checks the exact exit codes of verify (0 kept,
// 1 lost, 2 unreadable), hook (always 0) and init --claude (2 on invalid
// JSON), through run as main calls it.
func TestSignalCommandsExitCodes(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, ".planning"), 0o755); err != nil {
		t.Fatal(err)
	}
	write := func(rel, text string) {
		t.Helper()
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(".planning/BLOCKERS.md", "# Project Blockers\n\n## Open Blockers\n\n### BLOCKER-007 [P1] Staging database is read-only\n\n- **Status:** Open\n")
	write("smoothed.md", "Some issues were encountered.\n")
	write("faithful.md", "Still blocked by BLOCKER-007.\n")
	write("bad/.claude/settings.json", "{oops")
	tests := []struct {
		name  string
		args  []string
		stdin string
		want  int
	}{
		{"verify lost", []string{"-C", dir, "verify", filepath.Join(dir, "smoothed.md")}, "", 1},
		{"verify kept", []string{"-C", dir, "verify", filepath.Join(dir, "faithful.md")}, "", 0},
		{"verify stdin lost", []string{"-C", dir, "verify", "-"}, "nothing", 1},
		{"verify missing file", []string{"-C", dir, "verify", filepath.Join(dir, "nope.md")}, "", 2},
		{"verify no planning", []string{"-C", t.TempDir(), "verify", filepath.Join(dir, "faithful.md")}, "", 2},
		{"hook garbage", []string{"-C", dir, "hook", "claude-code"}, "\x00{]", 0},
		{"hook no planning", []string{"-C", t.TempDir(), "hook", "claude-code"}, `{"session_id":"a","hook_event_name":"Stop","last_assistant_message":"done"}`, 0},
		{"init --claude invalid", []string{"-C", filepath.Join(dir, "bad"), "init", "--claude"}, "", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			got := run(context.Background(), tt.args, IOStreams{In: strings.NewReader(tt.stdin), Out: &out, ErrOut: &errOut})
			if got != tt.want {
				t.Errorf("exit %d, want %d\nstdout %s\nstderr %s", got, tt.want, out.String(), errOut.String())
			}
		})
	}
}

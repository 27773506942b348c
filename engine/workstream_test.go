package engine

import (
	"os"
	"path/filepath"
	"testing"
)

// TestWorkstreamSessionFile: the per-session pointer is where GSD itself
// writes it. The expected paths were produced by get-shit-done's own
// planning-workspace.cjs (createSessionScopedPointerAdapter(...).write, at
// gsd-build/get-shit-done bdcaab2) for the same project path and
// environment, with TMPDIR=/tmp/gsdtmp.
func TestWorkstreamSessionFile(t *testing.T) {
	t.Setenv("TMPDIR", "/tmp/gsdtmp")
	const pdir = "/nonexistent/recite-gsd-check/.planning"
	const id = "/tmp/gsdtmp/gsd-workstream-sessions/9bc3d648f45d4c86/"
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"GSD_SESSION_KEY": "term-1"}, id + "gsd-session-key-term-1"},
		{map[string]string{"TMUX_PANE": "%3"}, id + "tmux-pane-3"},
		{map[string]string{"TTY": "/dev/pts/4"}, id + "tty-pts_4"},
		{map[string]string{"CLAUDE_CODE_SSE_PORT": "51234", "TERM_SESSION_ID": "w0t0p0:ABC"}, id + "claude-code-sse-port-51234"},
		{map[string]string{}, ""},
	} {
		got := workstreamSessionFile(func(k string) string { return tc.env[k] }, pdir)
		if got != tc.want {
			t.Errorf("%v: %q, want %q", tc.env, got, tc.want)
		}
	}
}

// TestWorkstreamSelection: a target's workstream: comes first, then
// GSD_WORKSTREAM, then GSD's session pointer, then
// .planning/active-workstream (docs/formats.md#workstreams).
func TestWorkstreamSelection(t *testing.T) {
	dir := t.TempDir()
	for rel, body := range map[string]string{
		".planning/active-workstream":            "alpha\n",
		".planning/workstreams/alpha/STATE.md":   "# State\n\n## Current Position\n\nPhase: 1 (A)\n",
		".planning/workstreams/alpha/ROADMAP.md": "# Roadmap\n\n- [ ] **Phase 1: A** - a\n",
		".planning/workstreams/beta/STATE.md":    "# State\n\n## Current Position\n\nPhase: 2 (B)\n",
		".planning/workstreams/beta/ROADMAP.md":  "# Roadmap\n\n- [ ] **Phase 2: B** - b\n",
		".planning/workstreams/gamma/STATE.md":   "# State\n\n## Current Position\n\nPhase: 3 (C)\n",
		".planning/workstreams/gamma/ROADMAP.md": "# Roadmap\n\n- [ ] **Phase 3: C** - c\n",
	} {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	pdir := filepath.Join(dir, ".planning")
	env := map[string]string{"GSD_SESSION_KEY": "term-1"}
	getenv := func(k string) string { return env[k] }
	pointer := workstreamSessionFile(getenv, pdir)
	if err := os.MkdirAll(filepath.Dir(pointer), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pointer, []byte("beta\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	current := func(e *Engine) string {
		t.Helper()
		proj, err := e.loadPlanning(pdir)
		if err != nil {
			t.Fatal(err)
		}
		if proj.CurrentPhase == nil || proj.Workstream == nil {
			t.Fatalf("no current phase or workstream: %+v", proj.Diagnostics)
		}
		return proj.Workstream.Name + " " + proj.CurrentPhase.Number
	}
	if got := current(New(dir, WithGetenv(getenv))); got != "beta 2" {
		t.Errorf("session pointer: %s, want beta 2", got)
	}
	env["GSD_WORKSTREAM"] = "gamma"
	if got := current(New(dir, WithGetenv(getenv))); got != "gamma 3" {
		t.Errorf("GSD_WORKSTREAM: %s, want gamma 3", got)
	}
	delete(env, "GSD_WORKSTREAM")
	delete(env, "GSD_SESSION_KEY")
	if got := current(New(dir, WithGetenv(getenv))); got != "alpha 1" {
		t.Errorf("active-workstream: %s, want alpha 1", got)
	}
	env["GSD_WORKSTREAM"] = "gamma"
	e := New(dir, WithGetenv(getenv))
	tg := e.workstreamOptions(pdir, nil)
	if tg.Workstream != "gamma" || tg.WorkstreamSource != WorkstreamEnv || tg.Strict {
		t.Errorf("options for the project: %+v", tg)
	}
}

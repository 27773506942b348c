package claudecode_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine"
	"github.com/recite-dev/recite/engine/claudecode"
	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/engine/signals"
)

// TestBudget: the hook's budget is Claude Code's timeout less the margin,
// never less than half the timeout.
func TestBudget(t *testing.T) {
	for _, tt := range []struct{ timeout, want time.Duration }{
		{0, 8500 * time.Millisecond}, // the 10 s `init --claude` writes
		{10 * time.Second, 8500 * time.Millisecond},
		{60 * time.Second, 58500 * time.Millisecond},
		{3 * time.Second, 1500 * time.Millisecond},
		{2 * time.Second, time.Second}, // the floor: half
		{time.Second, 500 * time.Millisecond},
		{-time.Second, 8500 * time.Millisecond},
	} {
		if got := claudecode.Budget(tt.timeout); got != tt.want {
			t.Errorf("Budget(%s) = %s, want %s", tt.timeout, got, tt.want)
		}
		if tt.timeout > 0 && claudecode.Budget(tt.timeout) >= tt.timeout {
			t.Errorf("Budget(%s) leaves no margin", tt.timeout)
		}
	}
}

// TestConfiguredTimeout: the timeout comes from the hook entries that run
// recite for the event, in .claude/settings.local.json and
// .claude/settings.json as `recite init --claude` writes them and as users
// edit them; the shortest wins; without an entry it is the 10 s init
// writes; a file that does not parse is reported with its line.
func TestConfiguredTimeout(t *testing.T) {
	hooksJSON := func(event, command, timeout string) string {
		return `{"hooks": {"` + event + `": [{"hooks": [{"type": "command", "command": "` + command + `"` + timeout + `}]}]}}`
	}
	tests := []struct {
		name         string
		init         bool              // run InstallHooks first
		files        map[string]string // settings files written (after init)
		event        string
		want         time.Duration
		from, errHas string
	}{
		{name: "no settings", event: "PreCompact", want: 10 * time.Second},
		{name: "init --claude", init: true, event: "PreCompact", want: 10 * time.Second, from: ".claude/settings.json"},
		{name: "init --claude, an event it does not install", init: true, event: "Notification", want: 10 * time.Second},
		{name: "edited to 30 s", files: map[string]string{".claude/settings.json": hooksJSON("PreCompact", "recite hook claude-code", `, "timeout": 30`)}, event: "PreCompact", want: 30 * time.Second, from: ".claude/settings.json"},
		{name: "fractional seconds", files: map[string]string{".claude/settings.json": hooksJSON("Stop", "/usr/local/bin/recite hook claude-code", `, "timeout": 2.5`)}, event: "Stop", want: 2500 * time.Millisecond, from: ".claude/settings.json"},
		{name: "no timeout field: Claude Code's default", files: map[string]string{".claude/settings.json": hooksJSON("PreCompact", "recite hook claude-code", "")}, event: "PreCompact", want: 60 * time.Second, from: ".claude/settings.json"},
		{name: "another event only", files: map[string]string{".claude/settings.json": hooksJSON("Stop", "recite hook claude-code", `, "timeout": 3`)}, event: "PreCompact", want: 10 * time.Second},
		{name: "another command only", files: map[string]string{".claude/settings.json": hooksJSON("PreCompact", "./format.sh", `, "timeout": 1`)}, event: "PreCompact", want: 10 * time.Second},
		{name: "local settings shorter", init: true, files: map[string]string{".claude/settings.local.json": hooksJSON("PreCompact", "recite hook claude-code", `, "timeout": 4`)}, event: "PreCompact", want: 4 * time.Second, from: ".claude/settings.local.json"},
		{name: "shared settings shorter", files: map[string]string{".claude/settings.local.json": hooksJSON("PreCompact", "recite hook claude-code", `, "timeout": 40`), ".claude/settings.json": hooksJSON("PreCompact", "recite hook claude-code", `, "timeout": 20`)}, event: "PreCompact", want: 20 * time.Second, from: ".claude/settings.json"},
		{name: "malformed local file", init: true, files: map[string]string{".claude/settings.local.json": "{\n  \"hooks\": {,\n}"}, event: "PreCompact", want: 10 * time.Second, from: ".claude/settings.json", errHas: ".claude/settings.local.json: line 2, column 13"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			if tt.init {
				if _, err := claudecode.InstallHooks(dir); err != nil {
					t.Fatal(err)
				}
			}
			for rel, body := range tt.files {
				p := filepath.Join(dir, filepath.FromSlash(rel))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, from, err := claudecode.ConfiguredTimeout(dir, tt.event)
			if got != tt.want || from != tt.from {
				t.Errorf("ConfiguredTimeout = %s from %q, want %s from %q", got, from, tt.want, tt.from)
			}
			if tt.errHas == "" && err != nil || tt.errHas != "" && (err == nil || !strings.Contains(err.Error(), tt.errHas)) {
				t.Errorf("error %v, want one holding %q", err, tt.errHas)
			}
		})
	}
}

// recordDeadline is an Options.Deadline that records the durations Run
// asks for (reading the event, hard, soft) and never ends, unless
// expireSoft: then the third context (the soft deadline the work
// watches) has ended already.
type recordDeadline struct {
	mu         sync.Mutex
	got        []time.Duration
	expireSoft bool
}

func (r *recordDeadline) deadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.got = append(r.got, d)
	c, cancel := context.WithCancel(ctx)
	if r.expireSoft && len(r.got) == 3 {
		cancel()
	}
	return c, cancel
}

// TestClaudeHookBudgetFromSettings: Run's hard deadline is the budget of
// the timeout the project's settings give the event's hook, and the
// work's soft deadline three quarters of it (reading the event is bounded
// by the default budget); Options.Budget overrides them all.
func TestClaudeHookBudgetFromSettings(t *testing.T) {
	dir := enginetest.HookProject(t)
	if _, err := claudecode.InstallHooks(dir); err != nil {
		t.Fatal(err)
	}
	// Installed as init writes it: 10 s, so 8.5 s and 6.375 s.
	r := &recordDeadline{}
	hook(t, dir, "", evPrompt, claudecode.Options{Deadline: r.deadline})
	want := []time.Duration{8500 * time.Millisecond, 8500 * time.Millisecond, 6375 * time.Millisecond}
	if !slices.Equal(r.got, want) {
		t.Errorf("deadlines %v, want %v", r.got, want)
	}
	// The user raised every timeout to 30 s.
	shared := filepath.Join(dir, ".claude", "settings.json")
	b, err := os.ReadFile(shared)
	if err != nil || !strings.Contains(string(b), `"timeout": 10`) {
		t.Fatalf("settings as init writes them: %v\n%s", err, b)
	}
	if err := os.WriteFile(shared, []byte(strings.ReplaceAll(string(b), `"timeout": 10`, `"timeout": 30`)), 0o644); err != nil {
		t.Fatal(err)
	}
	r = &recordDeadline{}
	hook(t, dir, "", evPre, claudecode.Options{Deadline: r.deadline})
	want = []time.Duration{8500 * time.Millisecond, 28500 * time.Millisecond, 21375 * time.Millisecond}
	if !slices.Equal(r.got, want) {
		t.Errorf("PreCompact deadlines %v, want %v", r.got, want)
	}
	// A personal settings file also runs the hook on PreCompact, with 4 s:
	// Claude Code runs both, the shorter bounds recite.
	local := `{"hooks": {"PreCompact": [{"hooks": [{"type": "command", "command": "recite hook claude-code", "timeout": 4}]}]}}`
	if err := os.WriteFile(filepath.Join(dir, ".claude", "settings.local.json"), []byte(local), 0o644); err != nil {
		t.Fatal(err)
	}
	r = &recordDeadline{}
	hook(t, dir, "", evPre, claudecode.Options{Deadline: r.deadline})
	want = []time.Duration{8500 * time.Millisecond, 2500 * time.Millisecond, 1875 * time.Millisecond}
	if !slices.Equal(r.got, want) {
		t.Errorf("PreCompact deadlines with the local file %v, want %v", r.got, want)
	}
	r = &recordDeadline{}
	hook(t, dir, "", evPre, claudecode.Options{Budget: 4 * time.Second, Deadline: r.deadline})
	want = []time.Duration{4 * time.Second, 4 * time.Second, 3 * time.Second}
	if !slices.Equal(r.got, want) {
		t.Errorf("Budget 4 s: deadlines %v, want %v", r.got, want)
	}
}

// TestClaudeHookPreCompactOutOfTime: PreCompact whose work runs out of
// time writes no block, not a partial one: the previous block stays the
// latest, byte for byte, and stderr says so.
func TestClaudeHookPreCompactOutOfTime(t *testing.T) {
	dir := enginetest.HookProject(t)
	hook(t, dir, "", evFailure, claudecode.Options{})
	hook(t, dir, "", evPre, claudecode.Options{})
	path := filepath.Join(dir, ".planning", "context-preserved.md")
	before, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(before), "ECONNREFUSED") {
		t.Fatalf("first block: %v\n%s", err, before)
	}
	hook(t, dir, "", evFailure2, claudecode.Options{})
	r := &recordDeadline{expireSoft: true}
	_, errOut := hook(t, dir, "", evPre, claudecode.Options{Deadline: r.deadline})
	after, err := os.ReadFile(path)
	if err != nil || string(after) != string(before) {
		t.Errorf("the file changed when out of time:\n%s", after)
	}
	if !strings.Contains(errOut, "no block written, the previous one stays") {
		t.Errorf("stderr %q", errOut)
	}
	blocks, err := readPreserved(dir)
	if err != nil || len(blocks) != 1 {
		t.Errorf("%d blocks, %v", len(blocks), err)
	}
	// In time, the next PreCompact writes the whole block.
	hook(t, dir, "", evPre, claudecode.Options{})
	if blocks, _ := readPreserved(dir); len(blocks) != 2 || !strings.Contains(signals.RenderBlock(blocks[1]), "invoices_v2") {
		t.Errorf("after a PreCompact in time: %d blocks", len(blocks))
	}
}

// TestClaudeHookStdinLeftOpen: a stdin that is never closed does not hang
// the hook: reading the event is bounded, and Run says it gave up.
func TestClaudeHookStdinLeftOpen(t *testing.T) {
	dir := enginetest.HookProject(t)
	pr, pw := io.Pipe()
	defer func() { _ = pw.Close() }()
	expired := func(ctx context.Context, _ time.Duration) (context.Context, context.CancelFunc) {
		c, cancel := context.WithCancel(ctx)
		cancel()
		return c, cancel
	}
	var out, errOut bytes.Buffer
	engine.RunClaudeHook(context.Background(), claudecode.Options{Dir: dir, Deadline: expired}, pr, &out, &errOut)
	if out.Len() != 0 || !strings.Contains(errOut.String(), "gave up reading the event") {
		t.Errorf("stdout %q, stderr %q", out.String(), errOut.String())
	}
}

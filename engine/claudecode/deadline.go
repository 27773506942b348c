package claudecode

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// The hook's deadline (docs/architecture.md#hook-deadline): Claude Code
// cancels a hook command when its settings' `timeout` (seconds) runs out
// (https://code.claude.com/docs/en/hooks, "Configuration"); recite reads
// that timeout and finishes HookMargin before it.
const (
	// DefaultHookTimeout is the timeout `recite init --claude` writes into
	// the settings (claudeHookTimeout), and the one assumed when no
	// settings file installs recite's hook for the event.
	DefaultHookTimeout = claudeHookTimeout * time.Second
	// ClaudeDefaultTimeout is the timeout Claude Code gives a command hook
	// whose entry has no `timeout` field: 60 s in its earlier releases,
	// 600 s in the current ones; recite assumes the shorter.
	ClaudeDefaultTimeout = 60 * time.Second
	// HookMargin is how long before Claude Code's timeout the hook's work
	// must end: time to start the process, print and exit on a loaded
	// machine.
	HookMargin = 1500 * time.Millisecond
	// hookMaxSettings bounds a settings file read for the timeout, in
	// bytes.
	hookMaxSettings = 1 << 20
)

// SettingsLocalFile is Claude Code's personal project settings file
// (git-ignored), relative to the project root; its hooks run beside those
// of SettingsFile.
const SettingsLocalFile = ".claude/settings.local.json"

// Budget is the hook's time budget for a Claude Code timeout: the timeout
// less HookMargin, never less than half the timeout (the floor, for short
// timeouts), so the work always ends before Claude Code cancels it. A
// timeout <= 0 is DefaultHookTimeout.
func Budget(timeout time.Duration) time.Duration {
	if timeout <= 0 {
		timeout = DefaultHookTimeout
	}
	return max(timeout-HookMargin, timeout/2)
}

// ConfiguredTimeout returns the timeout Claude Code gives recite's hook
// for event in the project at root, and the settings file it comes from
// (project-relative; "" for the default): the shortest `timeout` of the
// hook commands running `recite hook claude-code` (any command containing
// "hook claude-code", as InstallHooks recognises it) among the event's
// matcher groups of .claude/settings.local.json and .claude/settings.json
// (Claude Code runs the hooks of both), an entry without `timeout` counting
// as ClaudeDefaultTimeout. When neither file installs the hook for the
// event it is DefaultHookTimeout. A file that does not read or parse is
// skipped and reported in the returned error (the caller keeps going with
// what the other file or the default says). Only the first
// hookMaxSettings bytes of a file are read.
func ConfiguredTimeout(root, event string) (time.Duration, string, error) {
	return claudeDialect.configuredTimeout(root, event)
}

// configuredTimeout is ConfiguredTimeout for the settings files of d: the
// shortest timeout (in d.unit) of the hook commands containing d.marker
// among event's matcher groups of d.settings, d.entryDefault for an entry
// without one, DefaultHookTimeout when none installs the hook.
func (d *dialect) configuredTimeout(root, event string) (time.Duration, string, error) {
	best, from := time.Duration(0), ""
	var errs []string
	for _, rel := range d.settings {
		dur, ok, err := d.settingsTimeout(filepath.Join(root, filepath.FromSlash(rel)), event)
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %v", rel, err))
			continue
		}
		if ok && (best == 0 || dur < best) {
			best, from = dur, rel
		}
	}
	var err error
	if len(errs) > 0 {
		err = fmt.Errorf("hook timeout: %s", strings.Join(errs, "; "))
	}
	if best == 0 {
		return DefaultHookTimeout, "", err
	}
	return best, from, err
}

// settingsTimeout is the shortest timeout of recite's hook for event in
// one settings file; ok is false when the file is absent or does not
// install the hook for the event.
func (d *dialect) settingsTimeout(path, event string) (time.Duration, bool, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, err
	}
	defer func() { _ = f.Close() }()
	b, err := io.ReadAll(io.LimitReader(f, hookMaxSettings))
	if err != nil {
		return 0, false, err
	}
	var s struct {
		Hooks map[string][]struct {
			Hooks []struct {
				Type    string   `json:"type"`
				Command string   `json:"command"`
				Timeout *float64 `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		if line, col, msg, ok := jsonSyntaxError(b); ok {
			return 0, false, fmt.Errorf("line %d, column %d: %s", line, col, msg)
		}
		return 0, false, err
	}
	best, found := time.Duration(0), false
	for _, g := range s.Hooks[event] {
		for _, h := range g.Hooks {
			if !strings.Contains(h.Command, d.marker) {
				continue
			}
			dur := d.entryDefault
			if h.Timeout != nil && *h.Timeout > 0 {
				dur = time.Duration(*h.Timeout * float64(d.unit))
			}
			if !found || dur < best {
				best, found = dur, true
			}
		}
	}
	return best, found, nil
}

// withDeadline derives a context that ends after d with opts.Deadline, or
// context.WithTimeout (the wall clock) when that is nil.
func (opts Options) withDeadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	if opts.Deadline != nil {
		return opts.Deadline(ctx, d)
	}
	return context.WithTimeout(ctx, d)
}

package claudecode

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/recite-dev/recite/engine/budget"
)

// statusInputMax is the most bytes of statusLine input read; Claude
// Code's is well under a kilobyte and a half.
const statusInputMax = 1 << 20

// statusBarCells is the width of the context bar, in characters.
const statusBarCells = 10

// StatusInput is the part of Claude Code's statusLine input recite reads
// (https://code.claude.com/docs/en/statusline, "Available data";
// docs/providers.md#claude-code-status-line): the session, the folders,
// and the context window's use. Every field may be missing: before the
// session's first request context_window carries no use.
type StatusInput struct {
	SessionID      string `json:"session_id"`
	TranscriptPath string `json:"transcript_path"`
	Cwd            string `json:"cwd"`
	Model          struct {
		ID          string `json:"id"`
		DisplayName string `json:"display_name"`
	} `json:"model"`
	Workspace struct {
		CurrentDir string `json:"current_dir"`
		ProjectDir string `json:"project_dir"`
	} `json:"workspace"`
	ContextWindow *StatusContextWindow `json:"context_window"`
}

// StatusContextWindow is the statusLine input's context_window: the
// window's size in tokens, the share of it in use as a percentage (0–100;
// nil when absent), and the last request's token counts.
type StatusContextWindow struct {
	Size           int      `json:"context_window_size"`
	UsedPercentage *float64 `json:"used_percentage"`
	CurrentUsage   *struct {
		InputTokens              int `json:"input_tokens"`
		CacheCreationInputTokens int `json:"cache_creation_input_tokens"`
		CacheReadInputTokens     int `json:"cache_read_input_tokens"`
	} `json:"current_usage"`
}

// Used is the fraction (0–1) of the context window in use and whether the
// input says: used_percentage when present, else the last request's input
// tokens (uncached, written to and read from the cache) over the window's
// size, which is how Claude Code computes used_percentage.
func (w *StatusContextWindow) Used() (float64, bool) {
	switch {
	case w == nil:
		return 0, false
	case w.UsedPercentage != nil:
		return *w.UsedPercentage / 100, true
	case w.CurrentUsage != nil && w.Size > 0:
		u := w.CurrentUsage
		return float64(u.InputTokens+u.CacheCreationInputTokens+u.CacheReadInputTokens) / float64(w.Size), true
	}
	return 0, false
}

// ParseStatusInput reads Claude Code's statusLine JSON from in; empty
// input (no session, e.g. run by hand) is a StatusInput with nothing set.
// Errors: input that is not one JSON object, or over a megabyte.
func ParseStatusInput(in io.Reader) (StatusInput, error) {
	var si StatusInput
	raw, err := io.ReadAll(io.LimitReader(in, statusInputMax+1))
	if err != nil {
		return si, fmt.Errorf("read statusLine input: %w", err)
	}
	if len(raw) > statusInputMax {
		return si, fmt.Errorf("statusLine input larger than %d bytes", statusInputMax)
	}
	if len(bytes.TrimSpace(raw)) == 0 {
		return si, nil
	}
	if err := json.Unmarshal(raw, &si); err != nil {
		if line, col, msg, ok := jsonSyntaxError(raw); ok {
			return si, fmt.Errorf("statusLine input:%d:%d: invalid JSON: %s", line, col, msg)
		}
		return si, fmt.Errorf("statusLine input: %w (want Claude Code's statusLine JSON object)", err)
	}
	return si, nil
}

// StatusLineOptions configures StatusLine.
type StatusLineOptions struct {
	// Dir is the project directory given explicitly (-C); "" takes the
	// input's workspace.current_dir, else its cwd, else ".".
	Dir string
	// InputWait bounds the wait for the input to end (0:
	// DefaultStatusInputWait): Claude Code writes the statusLine JSON and
	// closes stdin at once, and a stdin left open (a pipe nobody closes)
	// must not hang the status line. Past it the line is made without the
	// input.
	InputWait time.Duration
}

// DefaultStatusInputWait is StatusLineOptions.InputWait's default.
const DefaultStatusInputWait = 2 * time.Second

// inputWithin reads all of in (at most statusInputMax and a byte) within
// wait, or until ctx is done; ok is false when in had not ended by then.
// The read goes on in the background until the process exits.
func inputWithin(ctx context.Context, in io.Reader, wait time.Duration) (b []byte, ok bool) {
	got := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(in, statusInputMax+1))
		got <- b
	}()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case b := <-got:
		return b, true
	case <-t.C:
	case <-ctx.Done():
	}
	return nil, false
}

// StatusLine is `recite statusline`: it reads Claude Code's statusLine
// JSON from in, finds the project (the input's workspace.project_dir when
// it holds .planning, else the nearest folder with one at or above
// opts.Dir, the input's current dir or "."), and returns the one line
// FormatStatusLine prints, from the project's status summary
// (ProjectStatus: a small file read, the summary computed only when the
// planning files changed since it was written). Errors: bad input
// (ParseStatusInput), no planning folder, or a summary that cannot be
// computed.
func StatusLine(ctx context.Context, opts StatusLineOptions, open Opener, in io.Reader) (string, error) {
	wait := opts.InputWait
	if wait <= 0 {
		wait = DefaultStatusInputWait
	}
	raw, _ := inputWithin(ctx, in, wait) // not ended in time: no input
	si, err := ParseStatusInput(bytes.NewReader(raw))
	if err != nil {
		return "", err
	}
	root, err := hookRoot(Options{ProjectDir: si.Workspace.ProjectDir, Dir: opts.Dir}, Event{Cwd: cmpOr(si.Workspace.CurrentDir, si.Cwd)})
	if err != nil {
		return "", err
	}
	s, err := ProjectStatus(ctx, root, open(root))
	if err != nil {
		return "", err
	}
	return FormatStatusLine(si, s), nil
}

// FormatStatusLine is the status line of s for the session si describes,
// one line of plain text, parts joined by " · ":
//
//	phase 2/3 Stripe Sync (executing), plans 1/2 · plan 2-01 0/3 tasks ·
//	context ███░░░░░░░ 31% of 200k · BLOCKED, breaker TRIPPED · 3 open stop signals
//
// The context part appears when si carries the window's use; it says
// "warning" or "critical" past s's thresholds. The health part appears
// once an iteration was evaluated.
func FormatStatusLine(si StatusInput, s *StatusSummary) string {
	var parts []string
	if ph := s.Phase; ph != nil {
		p := "phase " + ph.Number
		if ph.Of > 0 {
			p += fmt.Sprintf("/%d", ph.Of)
		}
		if ph.Name != "" {
			p += " " + ph.Name
		}
		if ph.Status != "" {
			p += " (" + ph.Status + ")"
		}
		if ph.Plans > 0 {
			p += fmt.Sprintf(", plans %d/%d", ph.PlansDone, ph.Plans)
		}
		parts = append(parts, p)
	} else {
		parts = append(parts, "no current phase")
	}
	if pl := s.Plan; pl != nil {
		parts = append(parts, fmt.Sprintf("plan %s %d/%d tasks", pl.ID, pl.TasksDone, pl.Tasks))
	}
	if used, ok := si.ContextWindow.Used(); ok {
		parts = append(parts, contextBar(used, si.ContextWindow.Size, s.Thresholds))
	}
	if s.Iterations > 0 && s.Health != "" {
		parts = append(parts, s.Health+", breaker "+s.Breaker)
	}
	switch s.Signals {
	case 0:
		parts = append(parts, "no open stop signals")
	case 1:
		parts = append(parts, "1 open stop signal")
	default:
		parts = append(parts, fmt.Sprintf("%d open stop signals", s.Signals))
	}
	return strings.Join(parts, " · ")
}

// contextBar is "context BAR N% [of SIZE]" for a used fraction of a window
// of size tokens (0: unknown), with "warning" or "critical" past th
// (recite.yaml's thresholds; the defaults when unset).
func contextBar(used float64, size int, th budget.Thresholds) string {
	if th.Validate() != nil {
		th = budget.DefaultThresholds()
	}
	used = min(max(used, 0), 1)
	full := int(used*statusBarCells + 0.5)
	b := "context " + strings.Repeat("█", full) + strings.Repeat("░", statusBarCells-full) + fmt.Sprintf(" %d%%", int(used*100+0.5))
	if size > 0 {
		b += " of " + tokenCount(size)
	}
	switch {
	case used >= th.Critical:
		b += " critical"
	case used >= th.Warning:
		b += " warning"
	}
	return b
}

// tokenCount writes n tokens short: 200k, 1M, 950.
func tokenCount(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return fmt.Sprint(n)
}

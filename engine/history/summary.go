package history

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/recite-dev/recite/planning/conversation"
)

// Summarizer folds messages into a summary text. The CLI backs it with a
// configured command (messages on stdin, summary on stdout) under a context
// with a timeout; [Extractive] is the built-in default. Summarize must
// return an error rather than a made-up summary when it fails.
type Summarizer interface {
	Summarize(ctx context.Context, msgs []conversation.Record) (string, error)
}

// DefaultKeep is how many recent messages Summary keeps verbatim when Keep is
// 0 (docs/formats.md#history-pruning): enough that the summary, rewritten
// at each eviction, changes once every (Keep − Low) messages
// (docs/formats.md#cache-aware-eviction).
const DefaultKeep = 100

// Summary keeps the last Keep messages verbatim (cut at a unit boundary as
// in [Window]) and folds everything older into one system message whose
// content is "Summary of earlier conversation (N messages):\n" + the
// summarizer's text. With Low, the verbatim part is evicted down to Low
// messages when it passes Keep (docs/formats.md#cache-aware-eviction), so
// the summary message stays the same, byte for byte, from one eviction to
// the next; Low 0 slides (the last Keep). With nothing older, the input
// comes back unchanged. The summary message's id is "summary-" + the id of
// the last folded message, its time that message's time, and it is
// Internal=false so renderers show it.
type Summary struct {
	// Keep is the number of recent messages kept verbatim: the high-water
	// mark; DefaultKeep when ≤ 0.
	Keep int
	// Low is the low-water mark in messages (LowMark).
	Low int
	// Summarizer folds the older messages; Extractive{} when nil.
	Summarizer Summarizer
}

// Prune implements Strategy. The summarizer's error is returned wrapped;
// callers fall back to another strategy.
func (s Summary) Prune(ctx context.Context, msgs []conversation.Record) ([]conversation.Record, error) {
	p, err := s.Evict(ctx, msgs)
	return p.Messages, err
}

// Evict implements Evictor.
func (s Summary) Evict(ctx context.Context, msgs []conversation.Record) (Pruned, error) {
	keep := s.Keep
	if keep <= 0 {
		keep = DefaultKeep
	}
	us := units(msgs)
	cut, epoch := evict(unitSizes(msgs, us), keep, lowOrSlide(keep, s.Low))
	settled := settled(msgs, us, epoch, s.Low, keep)
	older := collect(msgs, us[:cut])
	if len(older) == 0 {
		return Pruned{Messages: collect(msgs, us[cut:]), Settled: settled}, nil
	}
	sum := s.Summarizer
	if sum == nil {
		sum = Extractive{}
	}
	text, err := sum.Summarize(ctx, older)
	if err != nil {
		return Pruned{}, fmt.Errorf("summarize %d messages: %w", len(older), err)
	}
	last := older[len(older)-1]
	head := conversation.Record{
		ID: "summary-" + last.ID, Conversation: last.Conversation, Kind: conversation.KindMessage,
		Time: last.Time, Role: conversation.RoleSystem,
		Content: fmt.Sprintf("Summary of earlier conversation (%d messages):\n%s", len(older), text),
	}
	return Pruned{Messages: append([]conversation.Record{head}, collect(msgs, us[cut:])...), Settled: settled}, nil
}

// Extractive is the built-in summarizer: deterministic, no model. It keeps,
// in order of first appearance and once each:
//
//   - stop signals verbatim: the content of every failed tool result
//     (IsError, up to MaxErrorLines lines), and every line that names an
//     error or a stop (error, failed, panic, exception, BLOCKED, STUCK,
//     "stop");
//   - file names: FilesModified, and path-like words in the content;
//   - decisions: lines that say decided, decision, chose, "we will",
//     "going with", "instead of".
type Extractive struct {
	// MaxErrorLines bounds the lines kept from one failed tool result; 20
	// when ≤ 0.
	MaxErrorLines int
}

var (
	signalLine   = regexp.MustCompile(`(?i)\b(error|errors|failed|failure|fail|panic|exception|fatal)\b|\bBLOCKED\b|\bSTUCK\b|(?i:\bstop\b)`)
	decisionLine = regexp.MustCompile(`(?i)\b(decided|decision|decide|chose|choose|we will|we'll|going with|instead of|agreed)\b`)
	pathWord     = regexp.MustCompile(`(?:[A-Za-z0-9_.-]+/)*[A-Za-z0-9_-]+\.(?:go|ts|tsx|js|jsx|py|rs|md|json|yaml|yml|toml|sh|sql|java|kt|rb|c|h|cpp|cs|css|html|txt)\b`)
)

// Summarize implements Summarizer. It never fails.
func (e Extractive) Summarize(_ context.Context, msgs []conversation.Record) (string, error) {
	maxLines := e.MaxErrorLines
	if maxLines <= 0 {
		maxLines = 20
	}
	var signals, decisions, files []string
	add := func(list *[]string, s string) {
		if s != "" && !slices.Contains(*list, s) {
			*list = append(*list, s)
		}
	}
	for _, m := range msgs {
		who := m.Role
		if m.Agent != "" {
			who += " " + m.Agent
		}
		if m.IsError {
			lines := strings.Split(strings.TrimRight(m.Content, "\n"), "\n")
			if len(lines) > maxLines {
				lines = lines[:maxLines]
			}
			tag := "failed tool result"
			if m.ToolName != "" {
				tag += " (" + m.ToolName + ")"
			}
			add(&signals, tag+":\n"+strings.Join(lines, "\n"))
		}
		for _, f := range m.FilesModified {
			add(&files, f)
		}
		for _, line := range strings.Split(m.Content, "\n") {
			t := strings.TrimSpace(line)
			if t == "" {
				continue
			}
			if !m.IsError && signalLine.MatchString(t) {
				add(&signals, "["+who+"] "+t)
			}
			if decisionLine.MatchString(t) {
				add(&decisions, "["+who+"] "+t)
			}
			for _, p := range pathWord.FindAllString(t, -1) {
				add(&files, p)
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "(extractive summary of %d messages)\n", len(msgs))
	section := func(title string, items []string) {
		if len(items) == 0 {
			return
		}
		b.WriteString(title + ":\n")
		for _, it := range items {
			b.WriteString("- " + it + "\n")
		}
	}
	section("Stop signals (verbatim)", signals)
	section("Decisions", decisions)
	if len(files) > 0 {
		b.WriteString("Files: " + strings.Join(files, ", ") + "\n")
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

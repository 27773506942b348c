package layers

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/recite-dev/recite/engine/config"
	"github.com/recite-dev/recite/engine/history"
	"github.com/recite-dev/recite/engine/internal/layout"
	"github.com/recite-dev/recite/engine/internal/textutil"
	"github.com/recite-dev/recite/engine/prompt"
	"github.com/recite-dev/recite/internal/fsutil"
	"github.com/recite-dev/recite/planning/conversation"
)

// summaryCacheDir holds the outputs of a configured summarizer command, keyed
// by a hash of the command and the folded messages, so a build does not run
// the command again for the same history and the output stays deterministic
// (docs/architecture.md#deterministic-output).
const summaryCacheDir = layout.CacheDir + "/summaries"

// summarizerTimeout bounds one run of the history.summarizer command.
const summarizerTimeout = 2 * time.Minute

// Replayable reports whether a message record is replayed to a model: it is
// a message, not internal (coordinator notes, imported thinking, harness
// output) and not from a side conversation (a subagent's sidechain).
func Replayable(r conversation.Record) bool {
	return r.Kind == conversation.KindMessage && !r.Internal && !r.Sidechain
}

// ToPromptMessages converts message records to prompt messages, keeping
// roles, agents, tool calls (arguments verbatim), the tool call id and name
// of tool results, and is_error. Records that are not messages are left
// out; the caller filters internal records (see Replayable).
func ToPromptMessages(recs []conversation.Record) []prompt.Message {
	out := make([]prompt.Message, 0, len(recs))
	for _, r := range recs {
		if r.Kind != conversation.KindMessage {
			continue
		}
		m := prompt.Message{
			ID: r.ID, Role: r.Role, Content: r.Content, Agent: r.Agent,
			ToolCallID: r.ToolCallID, ToolName: r.ToolName, IsError: r.IsError,
		}
		switch m.Role {
		case conversation.RoleSystem, conversation.RoleUser, conversation.RoleAssistant, conversation.RoleTool:
		default:
			m.Role = conversation.RoleUser
		}
		for _, c := range r.ToolCalls {
			m.ToolCalls = append(m.ToolCalls, prompt.ToolCall{ID: c.ID, Name: c.Name, Arguments: c.Arguments, Signature: c.Signature})
		}
		out = append(out, m)
	}
	return out
}

// HistoryStrategy returns the configured pruning strategy (recite.yaml
// history:) of the project at dir, where a summarizer command runs, with
// the marks of cache-aware eviction (History.Marks of its size). The
// tokens strategy counts with count and, when history.tokens is 0, gets a
// quarter of the context window.
func HistoryStrategy(dir string, cfg *config.Config, count func(string) int) history.Strategy {
	h := cfg.History
	switch h.Strategy {
	case "tokens":
		b := h.Tokens
		if b <= 0 {
			b = cfg.ContextWindow / 4
		}
		high, low := h.Marks(b)
		return history.Tokens{Budget: high, Low: low, Count: count}
	case "summary":
		keep := h.Keep
		if keep <= 0 {
			keep = history.DefaultKeep
		}
		high, low := h.Marks(keep)
		s := history.Summary{Keep: high, Low: low}
		if h.Summarizer != "" {
			s.Summarizer = &commandSummarizer{command: h.Summarizer, dir: dir}
		}
		return s
	case "importance":
		k := h.Keep
		if k <= 0 {
			k = history.DefaultTopK
		}
		high, low := h.Marks(k)
		return history.Importance{K: high, Low: low}
	default:
		high, low := h.Marks(h.Window)
		return history.Window{N: high, Low: low}
	}
}

// commandSummarizer runs the history.summarizer command through `sh -c`
// with the folded messages as a transcript on stdin, and takes its stdout as
// the summary. Results are cached under .planning/.recite/summaries by a
// hash of the command and the transcript, so the same history is summarized
// once and renders to the same bytes.
type commandSummarizer struct {
	command string
	dir     string
}

// Summarize implements history.Summarizer.
func (s *commandSummarizer) Summarize(ctx context.Context, msgs []conversation.Record) (string, error) {
	var in strings.Builder
	for _, m := range msgs {
		who := m.Role
		if m.Agent != "" {
			who += " (" + m.Agent + ")"
		}
		in.WriteString(who + ": " + m.Content + "\n")
		for _, c := range m.ToolCalls {
			in.WriteString("[tool call " + c.Name + "] " + c.Arguments + "\n")
		}
		in.WriteString("\n")
	}
	sum := sha256.Sum256([]byte(s.command + "\x00" + in.String()))
	cache := filepath.Join(s.dir, filepath.FromSlash(summaryCacheDir), hex.EncodeToString(sum[:16])+".txt")
	if b, err := os.ReadFile(cache); err == nil {
		return string(b), nil
	}
	ctx, cancel := context.WithTimeout(ctx, summarizerTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", s.command)
	cmd.Dir = s.dir
	cmd.Stdin = strings.NewReader(in.String())
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	cmd.WaitDelay = time.Second
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("timed out after %s", summarizerTimeout)
		}
		return "", fmt.Errorf("summarizer %q: %w: %s", s.command, err, strings.TrimSpace(textutil.LastLines(errOut.String(), 5)))
	}
	text := strings.TrimSpace(out.String())
	if text == "" {
		return "", errors.New("summarizer " + fmt.Sprintf("%q", s.command) + " printed nothing")
	}
	if err := os.MkdirAll(filepath.Dir(cache), 0o755); err == nil {
		_ = fsutil.WriteFile(cache, []byte(text), 0o644)
	}
	return text, nil
}

package claudecode

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// Codex CLI runs Claude Code's hook protocol (docs/agents.md#codex-cli;
// measured on codex-cli 0.169.0): the same events but PostToolUseFailure,
// the same JSON on stdin and out, plain SessionStart stdout as context.
// What differs is handled here:
//
//   - PostToolUse's tool_response is the command's output as a string,
//     with no exit code. The rollout transcript (transcript_path) already
//     holds the call's item_completed event (CommandExecution, exit_code)
//     when the hook runs: the exit code is read from its tail.
//   - PostCompact has no compact_summary: the summary is the rollout's
//     last "compacted" item.
const (
	// CodexHooksFile is the project's Codex hooks file, relative to the
	// project root; Codex loads it only in a trusted project, and runs each
	// hook only once the user trusted it.
	CodexHooksFile = ".codex/hooks.json"
	// CodexConfigFile is the project's Codex configuration, where `init
	// --codex` adds [mcp_servers.recite].
	CodexConfigFile = ".codex/config.toml"
	// codexDefaultTimeout is the timeout assumed for a Codex hook entry
	// without one (Codex's own default is longer).
	codexDefaultTimeout = 60 * time.Second
	// codexTail bounds how much of a rollout's end is read for a call's
	// exit code, in bytes.
	codexTail = 4 << 20
)

// CodexHookEvents are the Codex events recite handles, in the order they
// are added (no matcher: every source and tool).
var CodexHookEvents = []struct{ Event, Matcher string }{
	{"SessionStart", ""},
	{"UserPromptSubmit", ""},
	{"PostToolUse", ""},
	{"PreCompact", ""},
	{"PostCompact", ""},
	{"Stop", ""},
}

// codexExitLine is the exit line Codex writes in a command's output for
// the model ("Process exited with code N"; older writers "Exit code: N").
var codexExitLine = regexp.MustCompile(`(?m)^(?:Process exited with code|Exit code:) (-?\d+)$`)

// codexToolOutput completes PostToolUse's text for Codex: a call the
// response does not flag failed is failed when the rollout's record of
// it has a non-zero exit code; the text then starts with "Exit code N",
// as Claude Code's failed Bash results do, so a command that printed
// nothing still has a key line.
func (h *claudeHook) codexToolOutput(ctx context.Context, text string, failed bool) (string, bool) {
	call := codexCallOf(ctx, h.ev.TranscriptPath, h.ev.ToolUseID)
	if call.name != "" {
		// Record the call as the rollout has it (exec_command and its
		// cmd, the MCP namespace joined to the tool), so the log matches
		// `recite import codex` of the same session.
		h.callName, h.callArgs = call.name, call.args
	}
	if failed {
		return text, true
	}
	if m := codexExitLine.FindStringSubmatch(text); m != nil {
		return text, m[1] != "0"
	}
	if !call.exited || call.code == 0 {
		return text, false
	}
	return strings.TrimRight(fmt.Sprintf("Exit code %d\n%s", call.code, text), "\n"), true
}

// codexCall is what a rollout says of one call: its name (namespace
// joined) and arguments as the model sent them, and its exit code.
type codexCall struct {
	name, args string
	code       int
	exited     bool
}

// codexCallOf finds call id in the last codexTail bytes of the rollout at
// path: its function_call item (name, namespace, arguments) and its exit
// code, from an item_completed event (0.169: {"item": {"id": ID,
// "exit_code": N}}) or an exec_command_end event ({"call_id": ID,
// "exit_code": N}), the last one that says. The rollout holds both when
// PostToolUse runs.
func codexCallOf(ctx context.Context, path, id string) codexCall {
	var c codexCall
	if path == "" || id == "" {
		return c
	}
	scanRolloutTail(ctx, path, []byte(strconv.Quote(id)), func(line []byte) {
		var l struct {
			Type    string `json:"type"`
			Payload struct {
				Type      string          `json:"type"`
				CallID    string          `json:"call_id"`
				Name      string          `json:"name"`
				Namespace string          `json:"namespace"`
				Arguments json.RawMessage `json:"arguments"`
				ExitCode  *int            `json:"exit_code"`
				Item      struct {
					ID       string `json:"id"`
					ExitCode *int   `json:"exit_code"`
				} `json:"item"`
			} `json:"payload"`
		}
		if json.Unmarshal(line, &l) != nil {
			return
		}
		p := l.Payload
		switch {
		case l.Type == "response_item" && p.Type == "function_call" && p.CallID == id && p.Name != "":
			c.name, c.args = p.Name, strings.TrimSpace(rawText(p.Arguments))
			if p.Namespace != "" && !strings.HasPrefix(p.Name, p.Namespace+"__") {
				c.name = p.Namespace + "__" + p.Name
			}
		case p.Type == "item_completed" && p.Item.ID == id && p.Item.ExitCode != nil:
			c.code, c.exited = *p.Item.ExitCode, true
		case p.Type == "exec_command_end" && p.CallID == id && p.ExitCode != nil:
			c.code, c.exited = *p.ExitCode, true
		}
	})
	return c
}

// codexCompactSummary is the summary of the last compaction in the rollout
// at path: the message of its last "compacted" item, else the text of that
// item's last replacement-history user message; ok is false when the file
// has none or cannot be read. At most hookMaxTranscript bytes are read.
func codexCompactSummary(ctx context.Context, path string) (string, bool) {
	if path == "" {
		return "", false
	}
	summary, found := "", false
	scanRolloutTail(ctx, path, []byte(`"compacted"`), func(line []byte) {
		var l struct {
			Type    string `json:"type"`
			Payload struct {
				Message     string `json:"message"`
				Replacement []struct {
					Type    string `json:"type"`
					Role    string `json:"role"`
					Content []struct {
						Text string `json:"text"`
					} `json:"content"`
				} `json:"replacement_history"`
			} `json:"payload"`
		}
		if json.Unmarshal(line, &l) != nil || l.Type != "compacted" {
			return
		}
		text := l.Payload.Message
		for _, it := range l.Payload.Replacement {
			if strings.TrimSpace(text) != "" {
				break
			}
			if it.Type == "message" && it.Role == "user" {
				var parts []string
				for _, c := range it.Content {
					parts = append(parts, c.Text)
				}
				text = strings.Join(parts, "\n")
			}
		}
		if strings.TrimSpace(text) != "" {
			summary, found = text, true
		}
	})
	return summary, found
}

// scanRolloutTail calls fn, in file order, with each line of the rollout
// at path that contains needle: of its last codexTail bytes for a call id
// (the exit code is near the end), of its first hookMaxTranscript bytes
// for a compaction. Lines longer than hookMaxTranscriptLine are skipped;
// an unreadable file or an ended ctx stops the scan.
func scanRolloutTail(ctx context.Context, path string, needle []byte, fn func(line []byte)) {
	if !filepath.IsAbs(path) {
		return
	}
	f, err := os.Open(path)
	if err != nil {
		return
	}
	defer func() { _ = f.Close() }()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return
	}
	var r io.Reader = io.LimitReader(f, hookMaxTranscript)
	if !bytes.Equal(needle, []byte(`"compacted"`)) {
		if fi, err := f.Stat(); err == nil && fi.Size() > codexTail {
			if _, err := f.Seek(fi.Size()-codexTail, io.SeekStart); err != nil {
				return
			}
			r = f
		}
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 0; ; n++ {
		if n%1024 == 0 && ctx.Err() != nil {
			return
		}
		line, err := readLine(br, hookMaxTranscriptLine)
		if line != nil && bytes.Contains(line, needle) {
			fn(line)
		}
		if err != nil {
			return
		}
	}
}

// readLine reads one line of br without its newline; a line longer than
// max bytes is read through and returned as nil. The error is io.EOF at
// the end.
func readLine(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	over := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !over {
			if len(line)+len(chunk) > max {
				over, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if over {
			return nil, err
		}
		return bytes.TrimRight(line, "\r\n"), err
	}
}

// transcriptSummary is the summary of the last compaction in the event's
// transcript, in the agent's format (Claude Code's transcript, Codex's
// rollout); ok is false when there is none.
func (h *claudeHook) transcriptSummary(ctx context.Context) (string, bool) {
	if h.d == codexDialect {
		return codexCompactSummary(ctx, h.ev.TranscriptPath)
	}
	return transcriptCompactSummary(ctx, h.ev.TranscriptPath)
}

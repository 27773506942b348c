package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine/claudecode"
	"github.com/recite-dev/recite/engine/internal/enginetest"
	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/planning/conversation"
)

// scaleLogs are the conversation logs the scaling benchmarks compare, by
// sub-benchmark name: the figures are the ratio of the ns/op (or
// cpu-ns/op) of a 1M log to that of the 1k log of the same shape (target
// ≤ 1.5) and the peak RSS of the process (peak-RSS-MB, target ≤ 60). "1k"
// and "1M" are the records of scaleLog (an iteration record every fifth
// record, as `conversation run` writes them); "hook-…" are hook-recorded
// sessions (enginetest.WriteHookLog, the shape `recite hook claude-code`
// writes: prompts, tool calls and results, replies) with no iteration
// record, and with one every 10,000 messages.
var scaleLogs = []struct {
	name string
	path func(b *testing.B) string
}{
	{"1k", func(b *testing.B) string { return scaleLog(b, 1_000) }},
	{"1M", func(b *testing.B) string { return scaleLog(b, 1_000_000) }},
	{"hook-1k", func(b *testing.B) string { return hookScaleLog(b, 1_000, 0) }},
	{"hook-1M", func(b *testing.B) string { return hookScaleLog(b, 1_000_000, 0) }},
	{"hook-iter10k-1M", func(b *testing.B) string { return hookScaleLog(b, 1_000_000, 10_000) }},
}

// hookScaleLog returns a hook-recorded log of messages messages of
// scaleConversation with an iteration record every every messages (0:
// none), written once per machine under the temp dir (the 1M log is
// 760 MB) and streamed, never held in memory.
func hookScaleLog(tb testing.TB, messages, every int) string {
	tb.Helper()
	p := filepath.Join(os.TempDir(), "recite-bench-logs-v3", fmt.Sprintf("hook-%d-%d.jsonl", messages, every))
	return cachedLog(tb, p, func(w io.Writer) error {
		return enginetest.WriteHookLog(w, enginetest.HookLogOptions{Conversation: scaleConversation, Messages: messages, IterationEvery: every, Seed: 1})
	})
}

// cachedLog returns p, writing it with write first when it does not exist
// (through a temporary file, so a log cut short is never left at p).
func cachedLog(tb testing.TB, p string, write func(io.Writer) error) string {
	tb.Helper()
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".gen*")
	if err != nil {
		tb.Fatal(err)
	}
	defer os.Remove(f.Name())
	if err := write(f); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		tb.Fatal(err)
	}
	return p
}

// scaleConversation is the hook session's conversation the benchmarks'
// target is bound to, so hook events and `say` feed the same log.
const scaleConversation = "cc-abc123"

// scaleLog returns a generated log of n records of scaleConversation (a
// meta record, then prompts, tool calls, tool results of which a third are
// errors, replies and iteration records, about 250 bytes a line), written
// once per machine under the temp dir (the 1M log is 250 MB) and streamed,
// never held in memory.
func scaleLog(b *testing.B, n int) string {
	b.Helper()
	p := filepath.Join(os.TempDir(), "recite-bench-logs-v1", strconv.Itoa(n)+".jsonl")
	return cachedLog(b, p, func(f io.Writer) error {
		w := bufio.NewWriterSize(f, 1<<20)
		w.WriteString(`{"id":"00META","conversation":"` + scaleConversation + `","kind":"meta","ts":"2026-01-01T00:00:00Z","meta":{"agent_type":"claude-code","title":"bench"}}` + "\n")
		t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		enc := json.NewEncoder(w)
		for i := range n {
			r := conversation.Record{ID: "01BIG" + strconv.Itoa(100000000+i), Conversation: scaleConversation, Time: t0.Add(time.Duration(i) * time.Second), Agent: "claude-code"}
			switch i % 5 {
			case 0:
				r.Kind, r.Role, r.Content = conversation.KindMessage, conversation.RoleUser, "Please fix the failing test number "+strconv.Itoa(i)+" and run the suite again, then report back"
			case 1:
				r.Kind, r.Role, r.Provider = conversation.KindMessage, conversation.RoleAssistant, "anthropic"
				r.ToolCalls = []conversation.ToolCall{{ID: "t" + strconv.Itoa(i), Name: "Bash", Arguments: `{"command":"go test ./... -run Case` + strconv.Itoa(i) + `"}`}}
			case 2:
				r.Kind, r.Role, r.ToolName, r.ToolCallID = conversation.KindMessage, conversation.RoleTool, "Bash", "t"+strconv.Itoa(i-1)
				r.Content = "--- FAIL: TestRedirect (0.00s)\n    handler_test.go:" + strconv.Itoa(10+i%50) + ": got 404, want 302"
				r.IsError = i%3 == 0
			case 3:
				r.Kind, r.Role, r.Provider = conversation.KindMessage, conversation.RoleAssistant, "anthropic"
				r.Content = "The handler reads the wrong path value; trying again with setting " + strconv.Itoa(i) + "."
			default:
				f := "internal/api/file" + strconv.Itoa(i%40) + ".go"
				r.Kind, r.Content, r.FilesModified = conversation.KindIteration, "Edit: "+f, []string{f}
			}
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
		return w.Flush()
	})
}

// scaleProject is a copy of examples/gsd whose target is bound to
// scaleConversation, holding the log at log (a copy), built once (the
// index and the caches made) before the timing starts.
func scaleProject(b *testing.B, log string) string {
	b.Helper()
	dir := copyTree(b, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	cfg := "targets:\n  - name: agent\n    conversation: " + scaleConversation + "\n    providers: [markdown, anthropic]\n"
	if err := os.WriteFile(filepath.Join(dir, ".planning", "recite.yaml"), []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	src, err := os.Open(log)
	if err != nil {
		b.Fatal(err)
	}
	defer src.Close()
	dst := filepath.Join(dir, ".planning", "conversations", scaleConversation+".jsonl")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		b.Fatal(err)
	}
	out, err := os.Create(dst)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := io.Copy(out, src); err != nil {
		b.Fatal(err)
	}
	if err := out.Close(); err != nil {
		b.Fatal(err)
	}
	if _, err := New(dir).Build(context.Background()); err != nil {
		b.Fatal(err)
	}
	return dir
}

// scaleGitProject is scaleProject in a git repository with everything,
// the log included, committed, as `recite commit` leaves a project.
func scaleGitProject(b *testing.B, log string) string {
	b.Helper()
	dir := scaleProject(b, log)
	for _, args := range [][]string{{"init", "-q"}, {"add", "-A"}, {"commit", "-q", "-m", "base"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@example.com", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@example.com", "GIT_CONFIG_NOSYSTEM=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return dir
}

// scaleBench runs op on a project holding each of scaleLogs (made by
// project), a fresh Engine per op as each CLI call and hook event has, and
// reports CPU per op and the peak RSS of the process.
func scaleBench(b *testing.B, op func(b *testing.B, dir string, i int)) {
	scaleBenchOn(b, scaleProject, op)
}

func scaleBenchOn(b *testing.B, project func(*testing.B, string) string, op func(b *testing.B, dir string, i int)) {
	for _, sl := range scaleLogs {
		b.Run(sl.name, func(b *testing.B) {
			dir := project(b, sl.path(b))
			b.ReportAllocs()
			i := 0
			c0 := cpuTime()
			for b.Loop() {
				i++
				op(b, dir, i)
			}
			b.ReportMetric(float64((cpuTime()-c0).Nanoseconds())/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MB")
		})
	}
}

// BenchmarkBuildConversation is `recite build` of the target bound to a
// conversation of each of scaleLogs: the build reads the conversation's
// newest part through its index, and the health window its iteration
// records alone, so the ratio of a 1M log to a 1k one is about 1.
func BenchmarkBuildConversation(b *testing.B) {
	scaleBench(b, func(b *testing.B, dir string, _ int) {
		if _, err := New(dir).BuildConversation(context.Background(), scaleConversation); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkSay is `recite conversation say` on a conversation of 1,000
// and of 1,000,000 records: one append and its message number, found from
// the newest record back.
func BenchmarkSay(b *testing.B) {
	scaleBench(b, func(b *testing.B, dir string, i int) {
		c, err := New(dir).Conversations()
		if err != nil {
			b.Fatal(err)
		}
		res, err := c.Say(context.Background(), SayOptions{ID: scaleConversation, Role: RoleUser, Text: fmt.Sprintf("message %d said during the benchmark", i)})
		if err != nil || res.Number == 0 {
			b.Fatal(res, err)
		}
	})
}

// BenchmarkHookEvent is Claude Code's hook on a session of 1,000 and of
// 1,000,000 records: a failed tool use appended, then PreCompact, which
// reads the session's newest part and the ledger of its old stops and
// errors and writes the preservation block.
func BenchmarkHookEvent(b *testing.B) {
	hookBench(b, scaleProject)
}

// BenchmarkHookEventGit is BenchmarkHookEvent in a repository where the
// log is committed and then grows, as a user's is between two `recite
// commit`s: the working state's modified files come from git, which must
// not read the log.
func BenchmarkHookEventGit(b *testing.B) {
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git CLI not installed")
	}
	hookBench(b, scaleGitProject)
}

// hookBench sends a failed tool use and a PreCompact to the hook on each
// size's project.
func hookBench(b *testing.B, project func(*testing.B, string) string) {
	events := []string{
		`{"session_id":"abc123","transcript_path":"","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"PostToolUseFailure","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_use_id":"toolu_04","error":"--- FAIL: TestRedirect (0.00s)\n    handler_test.go:29: got 404, want 302","is_interrupt":false}`,
		`{"session_id":"abc123","transcript_path":"","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"PreCompact","trigger":"manual","custom_instructions":""}`,
	}
	scaleBenchOn(b, project, func(b *testing.B, dir string, _ int) {
		for _, ev := range events {
			var out, errOut bytes.Buffer
			RunClaudeHook(context.Background(), claudecode.Options{Budget: time.Minute}, strings.NewReader(strings.ReplaceAll(ev, "{{DIR}}", dir)), &out, &errOut)
			if errOut.Len() > 0 {
				b.Fatal(errOut.String())
			}
		}
	})
}

// BenchmarkStatus is `recite status` on a project bound to a conversation
// of each of scaleLogs: a build without writing, the signals of the
// conversation's newest part and the project's health.
func BenchmarkStatus(b *testing.B) {
	scaleBench(b, func(b *testing.B, dir string, _ int) {
		if _, err := New(dir).Status(context.Background()); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkHookPrompt is Claude Code's UserPromptSubmit on a session of
// each of scaleLogs: the prompt appended, the recitation (with the
// project's health), the status summary (health and signals of the
// session's newest part). It runs on the agent's critical path at every
// prompt (target ≤ 50 ms of CPU as a whole process).
func BenchmarkHookPrompt(b *testing.B) {
	hookEventBench(b, `{"session_id":"abc123","transcript_path":"","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"Please run the tests again and fix the handler."}`)
}

// BenchmarkHookSessionStart is Claude Code's SessionStart (startup) on a
// session of each of scaleLogs: the open stop signals of the recent
// conversations and the recitation.
func BenchmarkHookSessionStart(b *testing.B) {
	hookEventBench(b, `{"session_id":"abc123","transcript_path":"","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"SessionStart","source":"startup"}`)
}

// BenchmarkHookPostToolUse is Claude Code's PostToolUse on a session of
// each of scaleLogs: the call and its result appended.
func BenchmarkHookPostToolUse(b *testing.B) {
	hookEventBench(b, `{"session_id":"abc123","transcript_path":"","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_use_id":"toolu_bench01","tool_response":{"stdout":"ok  \tgithub.com/acme/app\t0.120s","stderr":"","interrupted":false}}`)
}

// hookEventBench sends ev (its {{DIR}} the project) to the hook on a
// project holding each of scaleLogs.
func hookEventBench(b *testing.B, ev string) {
	scaleBench(b, func(b *testing.B, dir string, _ int) {
		var out, errOut bytes.Buffer
		RunClaudeHook(context.Background(), claudecode.Options{Budget: time.Minute}, strings.NewReader(strings.ReplaceAll(ev, "{{DIR}}", dir)), &out, &errOut)
		if errOut.Len() > 0 {
			b.Fatal(errOut.String())
		}
	})
}

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
	"github.com/recite-dev/recite/internal/sharedtest"
	"github.com/recite-dev/recite/planning/conversation"
)

// scaleSizes are the conversation lengths the scaling benchmarks compare:
// the figures are the ratio of the two ns/op (target ≤ 1.5) and the peak
// RSS of the process (peak-RSS-MB, target ≤ 60).
var scaleSizes = []struct {
	name string
	n    int
}{{"1k", 1_000}, {"1M", 1_000_000}}

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
	if _, err := os.Stat(p); err == nil {
		return p
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		b.Fatal(err)
	}
	f, err := os.CreateTemp(filepath.Dir(p), ".gen*")
	if err != nil {
		b.Fatal(err)
	}
	defer os.Remove(f.Name())
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
			b.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
	if err := os.Rename(f.Name(), p); err != nil {
		b.Fatal(err)
	}
	return p
}

// scaleProject is a copy of examples/gsd whose target is bound to
// scaleConversation, holding the generated log of n records, built once
// (the index and the caches made) before the timing starts.
func scaleProject(b *testing.B, n int) string {
	b.Helper()
	dir := copyTree(b, filepath.Join(sharedtest.ModuleRoot(), "examples", "gsd"))
	cfg := "targets:\n  - name: agent\n    conversation: " + scaleConversation + "\n    providers: [markdown, anthropic]\n"
	if err := os.WriteFile(filepath.Join(dir, ".planning", "recite.yaml"), []byte(cfg), 0o644); err != nil {
		b.Fatal(err)
	}
	src, err := os.Open(scaleLog(b, n))
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
func scaleGitProject(b *testing.B, n int) string {
	b.Helper()
	dir := scaleProject(b, n)
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

// scaleBench runs op on a project of each size (made by project), a fresh
// Engine per op as each CLI call and hook event has, and reports CPU per op
// and the peak RSS of the process.
func scaleBench(b *testing.B, op func(b *testing.B, dir string, i int)) {
	scaleBenchOn(b, scaleProject, op)
}

func scaleBenchOn(b *testing.B, project func(*testing.B, int) string, op func(b *testing.B, dir string, i int)) {
	for _, sz := range scaleSizes {
		b.Run(sz.name, func(b *testing.B) {
			dir := project(b, sz.n)
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
// conversation of 1,000 and of 1,000,000 records: the build reads the
// conversation's newest part through its index, so the ratio of the two
// is about 1.
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
func hookBench(b *testing.B, project func(*testing.B, int) string) {
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

package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/engine/claudecode"
	"github.com/recite-dev/recite/engine/health"
	"github.com/recite-dev/recite/engine/history"
	"github.com/recite-dev/recite/engine/internal/enginetest"
)

// hookLogShapes are the hook-recorded logs the golden and the decode-count
// tests read: short (read whole), longer than the 8 MiB a health window
// reaches, with no iteration records, with one every 5,000 messages
// (some of them past those 8 MiB) and with one every 20 (a turn's).
var hookLogShapes = []struct {
	name            string
	messages, every int
}{
	{"1k", 1_000, 0},
	{"20k", 20_000, 0},
	{"20k-iter5000", 20_000, 5_000},
	{"20k-iter20", 20_000, 20},
}

// hookLogProject is a copy of examples/gsd whose target is bound to the
// Claude Code session cc-abc123, with a hook-recorded log of that session
// (enginetest.WriteHookLog).
func hookLogProject(tb testing.TB, messages, every int) string {
	tb.Helper()
	dir := enginetest.CopyTree(tb, enginetest.Example("gsd"))
	cfg := "targets:\n  - name: agent\n    conversation: " + scaleConversation + "\n    providers: [markdown, anthropic]\n"
	if err := os.WriteFile(filepath.Join(dir, ".planning", "recite.yaml"), []byte(cfg), 0o644); err != nil {
		tb.Fatal(err)
	}
	p := filepath.Join(dir, ".planning", "conversations", scaleConversation+".jsonl")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Create(p)
	if err != nil {
		tb.Fatal(err)
	}
	if err := enginetest.WriteHookLog(f, enginetest.HookLogOptions{Conversation: scaleConversation, Messages: messages, IterationEvery: every, Seed: 1}); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
	return dir
}

// hookGoldenEvents are the hook events the golden test sends, in order: a
// prompt first, so that its recitation is printed (the session has not
// seen it).
var hookGoldenEvents = []struct{ name, event string }{
	{"UserPromptSubmit", `{"session_id":"abc123","transcript_path":"","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"Please run the tests again and fix the handler."}`},
	{"PostToolUse", `{"session_id":"abc123","transcript_path":"","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_use_id":"toolu_golden01","tool_response":{"stdout":"ok  \tgithub.com/acme/app\t0.120s","stderr":"","interrupted":false}}`},
	{"SessionStart", `{"session_id":"abc123","transcript_path":"","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"SessionStart","source":"startup"}`},
}

// TestHookLogOutputsGolden: on hook-recorded logs of each shape, what a
// build writes (the prompt files), what `recite status --json` reports
// and what the Claude Code hook prints at SessionStart, UserPromptSubmit
// and PostToolUse, and the status summary it leaves, are the goldens in
// testdata/hooklog, written by the reading paths before they read through
// the index alone: the same bytes, however the records are read.
func TestHookLogOutputsGolden(t *testing.T) {
	if testing.Short() {
		t.Skip("writes logs of 15 MB")
	}
	for _, sh := range hookLogShapes {
		t.Run(sh.name, func(t *testing.T) {
			dir := hookLogProject(t, sh.messages, sh.every)
			ctx := context.Background()
			var got bytes.Buffer
			section := func(name string, b []byte) {
				got.WriteString("=== " + name + "\n")
				got.Write(bytes.ReplaceAll(b, []byte(dir), []byte("{{DIR}}")))
				if len(b) > 0 && b[len(b)-1] != '\n' {
					got.WriteByte('\n')
				}
			}
			if _, err := New(dir).Build(ctx); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"agent.md", "agent.anthropic.json"} {
				b, err := os.ReadFile(filepath.Join(dir, ".planning", "prompts", f))
				if err != nil {
					t.Fatal(err)
				}
				section("prompt "+f, b)
			}
			rep, err := New(dir).Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// The render and pass histories carry the times of this run.
			rep.Targets[0].Renders, rep.Targets[0].Passes = nil, nil
			js, err := json.MarshalIndent(rep, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			section("status", js)
			now := func() time.Time { return time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC) }
			for _, ev := range hookGoldenEvents {
				var out, errOut bytes.Buffer
				RunClaudeHook(ctx, claudecode.Options{Budget: time.Minute, Now: now}, strings.NewReader(strings.ReplaceAll(ev.event, "{{DIR}}", dir)), &out, &errOut)
				if errOut.Len() > 0 {
					t.Fatalf("%s: %s", ev.name, errOut.String())
				}
				section("hook "+ev.name, out.Bytes())
			}
			var sum claudecode.StatusSummary
			b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(claudecode.StatusSummaryFile)))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(b, &sum); err != nil {
				t.Fatal(err)
			}
			sum.Fingerprint = "" // of the files' stats
			js, err = json.MarshalIndent(sum, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			section("status summary", js)
			golden := filepath.Join("testdata", "hooklog", sh.name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("outputs differ from %s (go test -run TestHookLogOutputsGolden -update after checking):\n%s", golden, firstDiff(string(want), got.String()))
			}
		})
	}
}

// firstDiff shows the first line where got departs from want.
func firstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range min(len(w), len(g)) {
		if w[i] != g[i] {
			return "line " + strconv.Itoa(i+1) + ":\nwant: " + w[i] + "\ngot:  " + g[i]
		}
	}
	return "lengths differ: " + strconv.Itoa(len(w)) + " and " + strconv.Itoa(len(g)) + " lines"
}

// TestBuildDecodesWhatItReads counts the conversation records a build
// decodes (conversation.RecordCache.Decoded: every reader of the build,
// the prompt's history, the health window, the error paths, counted once)
// on hook-recorded logs of 20,000 and of 1,000,000 messages, with no
// iteration record and with one every 10,000 messages: the count must not
// grow with the log, nor with the messages between iteration records. A
// second build by the same engine decodes nothing (the records are kept).
// It generates 1.5 GB of logs once per machine (in the temp dir, shared
// with the benchmarks) and skips under -short and the race detector; `make
// test` runs it in its pass without the race detector.
func TestBuildDecodesWhatItReads(t *testing.T) {
	if testing.Short() || raceDetector {
		t.Skip("reads logs of 1,000,000 messages; run without -short and -race")
	}
	ctx := context.Background()
	decoded := func(every int, messages int) int64 {
		dir := hookLogProjectFrom(t, hookScaleLog(t, messages, every))
		if _, err := New(dir).Build(ctx); err != nil { // indexes the log
			t.Fatal(err)
		}
		e := New(dir)
		if _, err := e.Build(ctx); err != nil {
			t.Fatal(err)
		}
		n := e.records.Decoded()
		if _, err := e.Build(ctx); err != nil {
			t.Fatal(err)
		}
		if again := e.records.Decoded() - n; again != 0 {
			t.Errorf("a second build of the same engine decoded %d records", again)
		}
		return n
	}
	for _, every := range []int{0, 10_000} {
		small, big := decoded(every, 20_000), decoded(every, 1_000_000)
		t.Logf("iteration record every %d messages: a build decodes %d records of a 20k log, %d of a 1M log", every, small, big)
		// The window holds the newest messages of the horizon of either
		// log (history.Horizon: HorizonMessages and AnchorStep more);
		// older records come from the index's ledger (at most 64: the
		// newest 32 stop and 32 error records), of which the window holds
		// more or fewer by chance; and HealthIterations of iteration
		// records at most.
		if limit := int64(history.Horizon(0).Messages + 64 + health.HealthIterations); big > small+64 || big > limit {
			t.Errorf("iteration every %d: a build decodes %d records of a 1M log, %d of a 20k one", every, big, small)
		}
	}
}

// hookLogProjectFrom is hookLogProject with the log copied from path.
func hookLogProjectFrom(tb testing.TB, path string) string {
	tb.Helper()
	dir := hookLogProject(tb, 0, 0)
	src, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(filepath.Join(dir, ".planning", "conversations", scaleConversation+".jsonl"))
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		tb.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		tb.Fatal(err)
	}
	return dir
}

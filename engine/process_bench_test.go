package engine

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/recite-dev/recite/internal/sharedtest"
)

// The whole-process benchmarks run the recite binary, built from this
// module, as the agents and the user run it: a new process per command,
// its CPU (user + system) taken from the operating system's accounting of
// the finished process (its rusage), the commands alternated so that the
// machine's drift touches every side alike, the ratios taken round by
// round and their median reported. Run them with a fixed number of rounds:
//
//	go test -run '^$' -bench 'BenchmarkProcess' -benchtime=7x ./engine/

// reciteBinary builds ./cmd/recite into a temp dir and returns its path.
func reciteBinary(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "recite")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/recite")
	cmd.Dir = sharedtest.ModuleRoot()
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// processCPU runs bin with args in dir (stdin from the file stdin when
// not "") and returns the CPU time of the finished process and of the
// children it waited for.
func processCPU(b *testing.B, dir, stdin, bin string, args ...string) time.Duration {
	b.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	if stdin != "" {
		f, err := os.Open(stdin)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		cmd.Stdin = f
	}
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out)
	}
	return cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

// median of xs (xs is reordered).
func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}

// BenchmarkProcessHookLog runs `recite build`, `conversation say`,
// `status` and the UserPromptSubmit, SessionStart and PostToolUse hooks as
// new processes on projects bound to hook-recorded sessions of 1,000 and
// of 1,000,000 messages (no iteration record; one every 10,000 messages),
// one round per iteration, and reports per command the median CPU in ms on
// each log (cpu-ms-CMD-LOG) and the median of the per-round ratios of each
// 1M log to the 1k one (ratio-CMD-LOG). The targets: build, say and status
// ≤ 1.5×; each hook ≤ 50 ms of CPU on the 1M logs.
func BenchmarkProcessHookLog(b *testing.B) {
	bin := reciteBinary(b)
	logs := []struct{ name, dir string }{
		{"1k", scaleProject(b, hookScaleLog(b, 1_000, 0))},
		{"1M", scaleProject(b, hookScaleLog(b, 1_000_000, 0))},
		{"iter10k-1M", scaleProject(b, hookScaleLog(b, 1_000_000, 10_000))},
	}
	events := map[string]string{
		"prompt":       `{"session_id":"abc123","transcript_path":"","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"UserPromptSubmit","prompt":"Please run the tests again and fix the handler."}`,
		"sessionstart": `{"session_id":"abc123","transcript_path":"","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"SessionStart","source":"startup"}`,
		"posttooluse":  `{"session_id":"abc123","transcript_path":"","cwd":"{{DIR}}","permission_mode":"default","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_use_id":"toolu_bench01","tool_response":{"stdout":"ok","stderr":"","interrupted":false}}`,
	}
	type command struct {
		name  string
		args  []string
		stdin func(dir string) string
	}
	cmds := []command{
		{name: "build", args: []string{"build"}},
		{name: "say", args: []string{"conversation", "say", scaleConversation, "a message said during the benchmark"}},
		{name: "status", args: []string{"status"}},
	}
	for _, ev := range []string{"prompt", "sessionstart", "posttooluse"} {
		cmds = append(cmds, command{name: ev, args: []string{"hook", "claude-code"}, stdin: func(dir string) string {
			p := filepath.Join(dir, ".planning", ".recite", "bench-"+ev+".json")
			if err := os.WriteFile(p, []byte(strings.ReplaceAll(events[ev], "{{DIR}}", dir)), 0o644); err != nil {
				b.Fatal(err)
			}
			return p
		}})
	}
	cpu := map[string][]float64{}   // cmd/log → ms per round
	ratio := map[string][]float64{} // cmd/log → 1M/1k per round
	run := func(c command, dir string) float64 {
		stdin := ""
		if c.stdin != nil {
			stdin = c.stdin(dir)
		}
		return float64(processCPU(b, dir, stdin, bin, c.args...).Microseconds()) / 1000
	}
	for _, c := range cmds {
		for _, l := range logs {
			run(c, l.dir) // warm-up: the first run of each may build an index
		}
	}
	for b.Loop() {
		for _, c := range cmds {
			var ref float64
			for _, l := range logs {
				ms := run(c, l.dir)
				cpu[c.name+"-"+l.name] = append(cpu[c.name+"-"+l.name], ms)
				if l.name == "1k" {
					ref = ms
				} else {
					ratio[c.name+"-"+l.name] = append(ratio[c.name+"-"+l.name], ms/ref)
				}
			}
		}
	}
	for k, v := range cpu {
		b.ReportMetric(median(v), "cpu-ms-"+k)
	}
	for k, v := range ratio {
		b.ReportMetric(median(v), "ratio-"+k)
	}
}

// BenchmarkProcessNorish runs `recite build` as a new process on a copy of
// the norish planning tree (../shared/realdata), alternating a cold build
// (.planning/.recite removed first) with a rebuild after a one-line edit
// (a requirement of PROJECT.md ticked or unticked; made by the benchmark,
// not counted): per iteration a cold build, the first rebuild after it
// and a rebuild after that one. It reports the median CPU of each in ms
// and the medians of the per-iteration ratios of the rebuilds to the cold
// build (target ≤ 0.15).
func BenchmarkProcessNorish(b *testing.B) {
	src := filepath.Join(sharedtest.Realdata(b), "23492__norish")
	if _, err := os.Stat(src); err != nil {
		b.Skipf("../shared/realdata/23492__norish is absent: %v", err)
	}
	bin := reciteBinary(b)
	dir := copyTree(b, src)
	project := filepath.Join(dir, ".planning", "PROJECT.md")
	text, err := os.ReadFile(project)
	if err != nil {
		b.Fatal(err)
	}
	i := strings.Index(string(text), "- [ ] ")
	if i < 0 {
		b.Fatal("norish's PROJECT.md has no unticked requirement")
	}
	tick := func(n int) {
		t := []byte(string(text))
		if n%2 == 1 {
			t[i+3] = 'x'
		}
		if err := os.WriteFile(project, t, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cold := func() float64 {
		if err := os.RemoveAll(filepath.Join(dir, ".planning", ".recite")); err != nil {
			b.Fatal(err)
		}
		return float64(processCPU(b, dir, "", bin, "build").Microseconds()) / 1000
	}
	warm := func(n int) float64 {
		tick(n)
		return float64(processCPU(b, dir, "", bin, "build").Microseconds()) / 1000
	}
	cold()
	warm(1)
	var colds, firsts, warms, firstRatios, ratios []float64
	n := 0
	for b.Loop() {
		c := cold()
		f := warm(n) // the first rebuild after a cold build
		n++
		w := warm(n) // a rebuild after a rebuild, as an agent's edits come
		n++
		colds, firsts, warms = append(colds, c), append(firsts, f), append(warms, w)
		firstRatios, ratios = append(firstRatios, f/c), append(ratios, w/c)
	}
	b.ReportMetric(median(colds), "cpu-ms-cold")
	b.ReportMetric(median(firsts), "cpu-ms-first-warm")
	b.ReportMetric(median(warms), "cpu-ms-warm")
	b.ReportMetric(median(firstRatios), "ratio-first-warm/cold")
	b.ReportMetric(median(ratios), "ratio-warm/cold")
}

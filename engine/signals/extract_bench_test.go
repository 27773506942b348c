package signals

import (
	"path/filepath"
	"strconv"
	"testing"
	"time"
)

// hookSession is a session as the Claude Code hook records it, n records
// long: prompts, Bash calls, their results (a go test failure, a third of
// them flagged as errors), replies, and iteration records (which are not
// messages), as engine's scaleLog writes them; the messages as
// health.SignalMessages adapts them.
func hookSession(n int) []Message {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var out []Message
	for i := range n {
		m := Message{ID: "01BIG" + strconv.Itoa(100000000+i), Timestamp: t0.Add(time.Duration(i) * time.Second)}
		m.Source = "c.jsonl#" + m.ID
		switch i % 5 {
		case 0:
			m.Role, m.Content = "user", "Please fix the failing test number "+strconv.Itoa(i)+" and run the suite again, then report back"
		case 1:
			m.Role = "assistant" // the tool call, no text
		case 2:
			m.Role, m.ToolName, m.Command = "tool", "Bash", "go test ./... -run Case"+strconv.Itoa(i-1)
			m.Content = "--- FAIL: TestRedirect (0.00s)\n    handler_test.go:" + strconv.Itoa(10+i%50) + ": got 404, want 302"
			m.IsError = i%3 == 0
		case 3:
			m.Role, m.Content = "assistant", "The handler reads the wrong path value; trying again with setting "+strconv.Itoa(i)+"."
		default:
			continue // an iteration record
		}
		out = append(out, m)
	}
	return out
}

// BenchmarkExtract measures what UserPromptSubmit spends on stop signals
// over a hook-written session of 1,000 records, in the same run: "full"
// scans every message (what each prompt did before the scan cache);
// "incremental" reads the scan cache an earlier prompt saved, scans the
// prompt's new messages (the last record's two) and puts the signals
// together. It reports both, in wall and in CPU time, and the ratio of
// their CPU times (incremental/full); both give the same signals
// (TestScanCacheSameSignals).
func BenchmarkExtract(b *testing.B) {
	msgs := hookSession(1000)
	path := filepath.Join(b.TempDir(), "scan.jsonl")
	seed := OpenScanCache(path)
	for _, m := range msgs[:len(msgs)-2] {
		seed.Scan(m)
	}
	if err := seed.Save(path); err != nil {
		b.Fatal(err)
	}
	var full, inc, fullCPU, incCPU time.Duration
	for b.Loop() {
		c0, t0 := cpuTime(), time.Now()
		Extract(nil, msgs, nil)
		c1, t1 := cpuTime(), time.Now()
		c := OpenScanCache(path)
		scans := make([]Scanned, len(msgs))
		for i, m := range msgs {
			scans[i] = c.Scan(m)
		}
		ExtractScanned(nil, scans, nil)
		if c.Fresh() != 2 {
			b.Fatalf("scanned %d", c.Fresh())
		}
		c2, t2 := cpuTime(), time.Now()
		full, inc = full+t1.Sub(t0), inc+t2.Sub(t1)
		fullCPU, incCPU = fullCPU+c1-c0, incCPU+c2-c1
	}
	n := float64(b.N)
	b.ReportMetric(float64(full.Nanoseconds())/n, "full-ns/op")
	b.ReportMetric(float64(inc.Nanoseconds())/n, "incremental-ns/op")
	b.ReportMetric(float64(fullCPU.Nanoseconds())/n, "full-cpu-ns/op")
	b.ReportMetric(float64(incCPU.Nanoseconds())/n, "incremental-cpu-ns/op")
	if fullCPU > 0 {
		b.ReportMetric(float64(incCPU)/float64(fullCPU), "cpu-incremental/full")
	}
}

package main

import (
	"math"
	"runtime"
	"runtime/debug"
	"testing"
	"time"
)

func TestLongRunning(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"watch"}, true},
		{[]string{"-C", "dir", "watch", "--json"}, true},
		{[]string{"mcp"}, true},
		{[]string{"build"}, false},
		{[]string{"conversation", "say", "c", "hi"}, false},
		{[]string{"hook", "claude-code"}, false},
		{[]string{}, false},
		{[]string{"no-such-command"}, false},
	} {
		if got := longRunning(newRootCmd(IOStreams{}), tc.args); got != tc.want {
			t.Errorf("longRunning(%q) = %v, want %v", tc.args, got, tc.want)
		}
	}
}

// TestTuneOneShotGC: the collector is off up to oneShotHeap, and back to
// Go's defaults after the first collection; GOGC or GOMEMLIMIT in the
// environment leave it alone.
func TestTuneOneShotGC(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
	for _, env := range []string{"GOGC", "GOMEMLIMIT"} {
		if tuneOneShotGC(func(k string) string {
			if k == env {
				return "200"
			}
			return ""
		}) {
			t.Errorf("tuned with %s set", env)
		}
		if p := debug.SetGCPercent(100); p != 100 {
			t.Errorf("with %s set, GOGC became %d", env, p)
		}
	}
	if !tuneOneShotGC(func(string) string { return "" }) {
		t.Fatal("not tuned")
	}
	if l := debug.SetMemoryLimit(-1); l != oneShotHeap { // -1 only reads
		t.Fatalf("memory limit %d, want %d", l, oneShotHeap)
	}
	p := debug.SetGCPercent(-1)
	debug.SetGCPercent(p)
	if p != -1 {
		t.Fatalf("GOGC = %d after tuning, want off", p)
	}
	// The first collection brings the defaults back (the cleanup sets
	// GOGC, then the limit, so a limit back to none means both are).
	runtime.GC()
	guard := time.Now().Add(time.Minute)
	for debug.SetMemoryLimit(-1) != math.MaxInt64 {
		if time.Now().After(guard) {
			t.Fatal("the defaults did not come back after a collection")
		}
		runtime.GC()
		time.Sleep(time.Millisecond)
	}
	if p := debug.SetGCPercent(100); p != 100 {
		t.Fatalf("GOGC = %d after the first collection, want 100", p)
	}
}

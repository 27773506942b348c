package main

import (
	"math"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// oneShotHeap is the heap, in bytes, a one-shot command may grow to
// before its first garbage collection (tuneOneShotGC).
const oneShotHeap = 40 << 20

// tuneOneShotGC sets the garbage collector for a command that runs once
// and exits (build, say, a hook event, status, …): no collection until the
// heap reaches oneShotHeap, then Go's defaults (GOGC=100, no memory
// limit) from the first collection on. Most such commands finish with a
// heap far below it and never pay for a collection: on the 2-core machine
// of README.md#performance a build after a one-line edit of norish costs
// 0.79× the CPU (46 vs 61 ms) and peaks lower, a `say` on a 1,000,000-record
// conversation 0.75× at the same 33 MiB, a cold build of norish 0.97×. A
// command whose heap outgrows oneShotHeap (a commit of a large log, a
// large import) collects as it always did, from then on. It does nothing
// when the user set GOGC or GOMEMLIMIT (getenv), and reports whether it
// tuned. The long-running commands (watch, mcp) keep the defaults: their
// heap must stay bounded over hours (longRunning).
func tuneOneShotGC(getenv func(string) string) bool {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return false
	}
	debug.SetGCPercent(-1)
	debug.SetMemoryLimit(oneShotHeap)
	// The cleanup runs after the first collection that finds the
	// sentinel unreachable, which is the first collection.
	runtime.AddCleanup(&gcSentinel{}, func(int) {
		debug.SetGCPercent(100)
		debug.SetMemoryLimit(math.MaxInt64)
	}, 0)
	return true
}

// gcSentinel is an object of no use but its collection; large enough not
// to be a tiny allocation, whose cleanups may never run.
type gcSentinel struct {
	_ [32]byte
	_ *int
}

// longRunning reports whether the command line args, under the command
// tree root, runs a command that stays up (watch, mcp).
func longRunning(root *cobra.Command, args []string) bool {
	cmd, _, err := root.Find(args)
	if err != nil {
		return false
	}
	switch cmd.Name() {
	case "watch", "mcp":
		return true
	}
	return false
}

// Command recite keeps AI coding agents' context in plain files inside the
// project: it reads the planning tree and writes cache-ordered prompt files.
//
// main only exits. run builds the command tree, executes it and turns the
// error into the exit code (exitCode): 0 ok, 1 a check failed, 2 a usage or
// input error. Each command is an options struct filled by its cobra
// closure and a run function that talks to package engine only.
package main

import (
	"context"
	"os"
)

func main() {
	streams := systemStreams(os.Getenv)
	root := newRootCmd(streams)
	if !longRunning(root, os.Args[1:]) {
		tuneOneShotGC(os.Getenv)
	}
	code := runRoot(context.Background(), root, os.Args[1:], streams)
	streams.flush()
	os.Exit(code)
}

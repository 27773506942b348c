// Command recite keeps AI coding agents' context in plain files inside the
// project: it reads the planning tree and writes cache-ordered prompt files.
//
// main only maps errors to exit codes (DESIGN.md §3): 0 ok, 1 a check failed,
// 2 a usage or input error. Everything else lives behind run.
package main

import (
	"context"
	"os"
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr}))
}

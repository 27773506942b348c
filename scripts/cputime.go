//go:build ignore

// Command cputime runs a command with its standard output discarded and
// prints, on one line, the microseconds of user CPU, system CPU and wall
// time it took: the child's own rusage, at microsecond resolution (GNU
// time's %U and %S round to 10 ms, too coarse for a 150 ms walk).
//
//	go run scripts/cputime.go git ls-files
//	123456 78901 234567
package main

import (
	"fmt"
	"os"
	"os/exec"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: cputime CMD [ARG...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "cputime:", err)
		os.Exit(1)
	}
	wall := time.Since(start)
	st := cmd.ProcessState
	fmt.Println(st.UserTime().Microseconds(), st.SystemTime().Microseconds(), wall.Microseconds())
}

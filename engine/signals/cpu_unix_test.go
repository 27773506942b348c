//go:build unix

package signals

import (
	"syscall"
	"time"
)

// cpuTime is the process's user and system CPU time so far: with the
// machine shared, CPU time varies less than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

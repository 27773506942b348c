//go:build !unix

package signals

import "time"

// cpuTime is unknown here: BenchmarkExtract's CPU metrics read 0.
func cpuTime() time.Duration { return 0 }

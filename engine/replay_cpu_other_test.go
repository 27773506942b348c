//go:build !unix

package engine

import "time"

// cpuTime is unknown here: the cpu-ns/op metric reads 0.
func cpuTime() time.Duration { return 0 }

// peakRSS is unknown here.
func peakRSS() int64 { return 0 }

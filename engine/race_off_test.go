//go:build !race

package engine

// raceDetector reports that the tests run under the race detector.
const raceDetector = false

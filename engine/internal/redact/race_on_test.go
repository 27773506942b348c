//go:build race

package redact

// raceDetector reports that the tests run under the race detector.
const raceDetector = true

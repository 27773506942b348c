//go:build race

package budget

// raceDetector reports that the tests run under the race detector.
const raceDetector = true

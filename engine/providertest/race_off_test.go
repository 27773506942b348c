//go:build !race

package providertest

// raceDetector reports that the tests run under the race detector.
const raceDetector = false

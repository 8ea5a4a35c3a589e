//go:build !race

package robota

// raceDetector: the tests run under the race detector (see race_on_test.go).
const raceDetector = false

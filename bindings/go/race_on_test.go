//go:build race

package robota

// raceDetector: the tests run under the race detector, whose instrumentation allocates on
// its own (allocation counts then vary from run to run).
const raceDetector = true

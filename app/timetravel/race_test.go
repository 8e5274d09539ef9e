//go:build race

package timetravel

// raceEnabled: under the race detector the property test runs fewer
// sequences (it is sequential; the detector only slows it down).
const raceEnabled = true

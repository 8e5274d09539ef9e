//go:build race

package tui

// raceEnabled: the race detector slows every goroutine several times over,
// so latency checks keep only their bounds that a blocked UI would break.
const raceEnabled = true

//go:build !race

package timetravel

const raceEnabled = false

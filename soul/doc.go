// Package soul is the agent engine: the run/step loop modelled on kimi-cli's
// KimiSoul, checkpoints, compaction, D-Mail backtracking, approvals, loop
// detection and the event stream (the wire) through which it reports to the
// UI and print mode. It reaches the database only through its Store interface.
package soul

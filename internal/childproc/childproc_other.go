//go:build !linux

package childproc

import "syscall"

// setDeathSignal does nothing: only Linux has parent-death signals; the
// watchdog still kills the groups.
func setDeathSignal(*syscall.SysProcAttr) {}

// Do runs f.
func Do(f func() error) error { return f() }

// Descendants finds nothing: there is no /proc to walk.
func Descendants(int) []Proc { return nil }

func startTime(int) string { return "" }

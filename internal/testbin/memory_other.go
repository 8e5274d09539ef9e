//go:build !linux

package testbin

// memoryRoot: elsewhere the tests keep the system's temporary directory.
func memoryRoot() string { return "" }

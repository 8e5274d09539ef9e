package main

import (
	"os"
	"os/exec"
	"testing"
)

// BenchmarkStart: one start of the built binary for a command that
// highlights no code (`rewind sessions` on an empty database), in CPU
// (user+sys) per start, the cost every end-to-end test of this package
// pays at least once.
func BenchmarkStart(b *testing.B) {
	home := b.TempDir()
	if err := os.Chmod(home, 0o700); err != nil {
		b.Fatal(err)
	}
	run := func() *os.ProcessState {
		cmd := exec.Command(binary, "--home", home, "sessions")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("rewind sessions: %v\n%s", err, out)
		}
		return cmd.ProcessState
	}
	run() // the database is created once, not in every start
	var cpu float64
	for b.Loop() {
		ps := run()
		cpu += (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	b.ReportMetric(cpu*1e3/float64(b.N), "cpu-ms/op")
}

// BenchmarkStartNewHome: the first start in a home, which makes its
// database (`rewind sessions` in a new home each time), in CPU per start:
// what every end-to-end test that starts the binary in its own new home
// pays once.
func BenchmarkStartNewHome(b *testing.B) {
	var cpu float64
	for b.Loop() {
		b.StopTimer()
		home := b.TempDir()
		if err := os.Chmod(home, 0o700); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		cmd := exec.Command(binary, "--home", home, "sessions")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("rewind sessions: %v\n%s", err, out)
		}
		cpu += (cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()).Seconds()
	}
	b.ReportMetric(cpu*1e3/float64(b.N), "cpu-ms/op")
}

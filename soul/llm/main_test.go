package llm

import (
	"os"
	"runtime/debug"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's run if a test leaves a goroutine behind.
//
// The answer-cap tests stream megabytes they do not keep: the collector at
// GOGC=400 (unless GOGC is set) takes a quarter less of the package's CPU.
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	goleak.VerifyTestMain(m)
}

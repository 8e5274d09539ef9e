package views

import (
	"os"
	"runtime/debug"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package's run if a test leaves a goroutine behind.
// regexp2 (under chroma's highlighters) keeps one clock goroutine for the
// life of the process by design.
//
// The rendering tests allocate a lot and hold little: the collector at
// GOGC=400 (unless GOGC is set) takes a quarter less of the package's CPU,
// for about 100 MB.
func TestMain(m *testing.M) {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/dlclark/regexp2/v2.runClock"))
}

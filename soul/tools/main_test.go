package tools

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/rewind-agent/rewind/internal/childproc"
	"github.com/rewind-agent/rewind/internal/testbin"
)

// TestMain fails the package's run if a test leaves a goroutine behind.
// Most tests wait (on a command's timeout, a child's output, a server):
// up to eight run at once (testbin.WidenParallel).
func TestMain(m *testing.M) {
	testbin.WidenParallel()
	removeTemp := testbin.TempInMemory("tools")
	goleak.VerifyTestMain(m, append(childprocGoroutines(), goleak.Cleanup(func(code int) {
		removeTemp()
		os.Exit(code)
	}))...)
}

// childprocGoroutines ignores the goroutines internal/childproc keeps for
// the life of the process (its forker thread, its watchdog's reaper).
func childprocGoroutines() []goleak.Option {
	var opts []goleak.Option
	for _, f := range childproc.Goroutines {
		opts = append(opts, goleak.IgnoreAnyFunction(f))
	}
	return opts
}

package tui

import (
	"flag"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"testing"

	"go.uber.org/goleak"

	"github.com/rewind-agent/rewind/internal/childproc"
	"github.com/rewind-agent/rewind/soul/mcp/mcptest"
)

// TestMain fails the package's run if a test leaves a goroutine behind.
// regexp2 (under chroma's highlighters) keeps one clock goroutine for the
// life of the process by design.
func TestMain(m *testing.M) {
	mcptest.ServeIfAsked() // the tmux test runs this binary as an MCP server
	widenParallel()
	collectLessOften()
	goleak.VerifyTestMain(m, append(childprocGoroutines(), goleak.IgnoreAnyFunction("github.com/dlclark/regexp2/v2.runClock"))...)
}

// widenParallel runs up to eight parallel tests at once unless -parallel
// is given: the package's tests mostly wait (on a simulated screen's
// redraw, a fake model, a subprocess in tmux), so the default of
// GOMAXPROCS (two on the CI machine) leaves the cores idle — 50 s of wall
// time for 31 s of CPU, 21 s with eight.
func widenParallel() {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(max(8, runtime.GOMAXPROCS(0))))
	}
}

// collectLessOften lets the heap grow to five times what the last
// collection kept (GOGC=400) unless GOGC is set: the package's tests
// allocate a frame's cells per draw, and at the default the collector and
// its write barriers took about a tenth of the CPU; the heap peaks near
// 700 MB instead of 300. GOMEMLIMIT, when set, still bounds it.
func collectLessOften() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
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

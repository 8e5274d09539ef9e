package tui

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/rewind-agent/rewind/soul/mcp/mcptest"
)

// TestMain fails the package's run if a test leaves a goroutine behind.
// regexp2 (under chroma's highlighters) keeps one clock goroutine for the
// life of the process by design.
func TestMain(m *testing.M) {
	mcptest.ServeIfAsked() // the tmux test runs this binary as an MCP server
	goleak.VerifyTestMain(removingBinary{m}, goleak.IgnoreAnyFunction("github.com/dlclark/regexp2/v2.runClock"))
}

// removingBinary runs the tests, then removes the rewind binary the tmux
// tests built (goleak's VerifyTestMain exits the process after Run).
type removingBinary struct{ m *testing.M }

func (r removingBinary) Run() int {
	code := r.m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	return code
}

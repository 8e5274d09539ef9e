package tui

import (
	"testing"

	"github.com/rewind-agent/rewind/internal/testbin"
	"github.com/rewind-agent/rewind/soul/mcp/mcptest"
)

// TestMain fails the package's run if a test leaves a goroutine behind.
// regexp2 (under chroma's highlighters) keeps one clock goroutine for the
// life of the process by design.
func TestMain(m *testing.M) {
	mcptest.ServeIfAsked() // the tmux test runs this binary as an MCP server
	testbin.WidenParallel()
	testbin.CollectLess() // a frame's cells per draw: the heap peaks near 700 MB instead of 300
	testbin.VerifyNoLeaks(m, nil, "github.com/dlclark/regexp2/v2.runClock")
}

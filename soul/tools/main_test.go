package tools

import (
	"testing"

	"github.com/rewind-agent/rewind/internal/testbin"
)

// TestMain fails the package's run if a test leaves a goroutine behind.
// Most tests wait (on a command's timeout, a child's output, a server):
// up to eight run at once (testbin.WidenParallel).
func TestMain(m *testing.M) {
	testbin.WidenParallel()
	removeTemp := testbin.TempInMemory("tools")
	testbin.VerifyNoLeaks(m, removeTemp)
}

package views

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/rewind-agent/rewind/internal/testbin"
)

// TestMain fails the package's run if a test leaves a goroutine behind.
// regexp2 (under chroma's highlighters) keeps one clock goroutine for the
// life of the process by design.
func TestMain(m *testing.M) {
	testbin.CollectLess()
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/dlclark/regexp2/v2.runClock"))
}

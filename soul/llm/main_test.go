package llm

import (
	"testing"

	"go.uber.org/goleak"

	"github.com/rewind-agent/rewind/internal/testbin"
)

// TestMain fails the package's run if a test leaves a goroutine behind.
func TestMain(m *testing.M) {
	testbin.CollectLess()
	goleak.VerifyTestMain(m)
}

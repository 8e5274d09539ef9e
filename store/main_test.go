package store

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/rewind-agent/rewind/internal/testbin"
)

// TestMain fails the package's run if a test leaves a goroutine behind.
// The tests' databases are on tmpfs where there is one
// (testbin.TempInMemory), and the collector runs at GOGC=400
// (testbin.CollectLess: 2.76 → 2.48 s of CPU, four paired runs).
func TestMain(m *testing.M) {
	testbin.CollectLess()
	removeTemp := testbin.TempInMemory("store")
	goleak.VerifyTestMain(m, goleak.Cleanup(func(code int) {
		removeTemp()
		os.Exit(code)
	}))
}

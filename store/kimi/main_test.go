package kimi

import (
	"os"
	"testing"

	"github.com/rewind-agent/rewind/internal/testbin"
)

// TestMain: the tests' databases and share dirs are on tmpfs where there
// is one (testbin.TempInMemory).
func TestMain(m *testing.M) {
	testbin.CollectLess()
	removeTemp := testbin.TempInMemory("kimi")
	code := m.Run()
	removeTemp()
	os.Exit(code)
}

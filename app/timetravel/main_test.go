package timetravel

import (
	"os"
	"testing"

	"github.com/rewind-agent/rewind/internal/testbin"
)

func TestMain(m *testing.M) {
	testbin.CollectLess()
	os.Exit(m.Run())
}

package app

import (
	"testing"

	"github.com/rewind-agent/rewind/internal/testbin"
)

// TestMain fails the package's run if a test leaves a goroutine behind.
func TestMain(m *testing.M) { testbin.VerifyNoLeaks(m, nil) }

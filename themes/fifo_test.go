package themes

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/internal/regfile"
)

// TestLoadFileRefusesAFIFO: a theme file that is a named pipe is refused
// at once (the default theme is used); os.ReadFile blocked on it forever.
func TestLoadFileRefusesAFIFO(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "pipe.yaml")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := LoadFile(fifo); done <- err }()
	select {
	case err := <-done:
		if !errors.Is(err, regfile.ErrNotRegular) {
			t.Errorf("LoadFile: %v, want a refusal", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("LoadFile blocked on a FIFO")
	}
}

package instructions

import (
	"errors"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/internal/regfile"
)

// TestLoadRefusesAFIFOWithoutBlocking: an AGENTS.md that is a named pipe,
// in the work dir or in $REWIND_HOME, is refused at once with an error
// naming it. On the old code os.Open blocked for good waiting for a
// writer, and with it every prompt of the workspace.
func TestLoadRefusesAFIFOWithoutBlocking(t *testing.T) {
	t.Parallel()
	for _, where := range []string{"home", "work"} {
		t.Run(where, func(t *testing.T) {
			t.Parallel()
			home, work := t.TempDir(), t.TempDir()
			fifo := filepath.Join(work, FileName)
			if where == "home" {
				fifo = filepath.Join(home, FileName)
			}
			if err := syscall.Mkfifo(fifo, 0o600); err != nil {
				t.Skip("no FIFOs here:", err)
			}
			done := make(chan error, 1)
			go func() { _, err := Load(home, work); done <- err }()
			select {
			case err := <-done:
				var nr *regfile.NotRegularError
				if !errors.As(err, &nr) || nr.Path != fifo {
					t.Errorf("Load: %v, want a NotRegularError for %s", err, fifo)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("Load blocked on a FIFO AGENTS.md")
			}
		})
	}
}

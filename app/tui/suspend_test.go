package tui

import (
	"sync/atomic"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// TestCtrlZSuspendsAndResumes: Ctrl-Z gives the terminal back and stops the
// process (here a stand-in for SIGTSTP); once continued the workspace takes
// the screen again and keeps working.
func TestCtrlZSuspendsAndResumes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{})
	var stops atomic.Int32
	h.c.onUIThread(func() {
		h.c.suspend.stop = func() { stops.Add(1) }
	})
	h.key(tcell.KeyCtrlZ)
	h.waitUntil("the workspace to stop itself", func() bool { return stops.Load() == 1 })
	h.typeText("still here after fg", false)
	h.waitUntil("typing to work after resuming", func() bool { return h.c.input.Text() == "still here after fg" })
	h.waitFor("still here after fg")
}

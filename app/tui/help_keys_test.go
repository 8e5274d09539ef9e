package tui

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/views"
)

// Ctrl-Z means one thing: suspend. It used to undo a session delete while
// one could be undone (for the rest of the session after any delete), and
// the help listed it twice with the two meanings.
func TestHelpListsCtrlZOnce(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48})
	h.typeText("?", false)
	txt := h.waitFor("suspend rewind")
	var rows []string
	for _, r := range strings.Split(txt, "\n") {
		if strings.Contains(r, "Ctrl-Z ") {
			rows = append(rows, r)
		}
	}
	if len(rows) != 1 {
		t.Errorf("the help lists Ctrl-Z %d times, want once (suspend):\n%s", len(rows), strings.Join(rows, "\n"))
	}
}

// After a session delete, Ctrl-Z still suspends; Ctrl-Y in the session
// list brings the session back.
func TestCtrlZSuspendsAfterADelete(t *testing.T) {
	t.Parallel()
	h, ids := browserHarness(t)
	var stops atomic.Int32
	h.c.onUIThread(func() {
		h.c.suspend.stop = func() { stops.Add(1) }
		h.c.br.deleted = append(h.c.br.deleted, views.SessionRow{ID: ids[0], Title: "gone"})
	})
	h.key(tcell.KeyCtrlZ)
	h.waitUntil("the workspace to stop itself", func() bool { return stops.Load() == 1 })
	var left int
	h.c.onUIThread(func() { left = len(h.c.br.deleted) })
	if left != 1 {
		t.Fatalf("Ctrl-Z undid the delete (%d left to undo)", left)
	}
}

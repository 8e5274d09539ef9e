package tui

import (
	"strings"
	"testing"
)

// Ctrl-Z has two meanings (undo a session delete while one can be undone,
// else suspend). The help lists both; each row must say when it applies,
// or the two rows contradict each other.
func TestHelpSaysWhenCtrlZUndoesADelete(t *testing.T) {
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
	if !strings.Contains(txt, "right after a session delete: undo it") {
		t.Errorf("the Ctrl-Z undo row does not say it applies right after a delete; Ctrl-Z rows:\n%s", strings.Join(rows, "\n"))
	}
}

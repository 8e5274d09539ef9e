package tui

import (
	"context"
	"testing"

	"github.com/rewind-agent/rewind/store"
)

// After a revert and its undo, the timeline offers the generation the undo
// archived (the reverted line) and never a branch identical to the
// current view: the undo restores generation 0 as generation 2, so
// generation 0 holds exactly what is shown.
func TestTimelineAfterUndoOffersTheArchivedRevert(t *testing.T) {
	t.Parallel()
	h := resumeHarness(t, func(h *harness) string {
		ctx := context.Background()
		s, err := h.db.CreateSession(ctx, store.NewSession{Title: "undo", WorkDir: h.work})
		if err != nil {
			t.Fatal(err)
		}
		seedTurns(t, h.db, s.ID, "first task", "second task", "third task")
		if _, err := h.db.RevertTo(ctx, s.ID, 1, store.CauseRevert, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := h.db.Restore(ctx, s.ID, 0); err != nil { // what undo does
			t.Fatal(err)
		}
		return s.ID
	})
	txt := h.waitFor("answer to third task", "gen 1 · revert")
	if _, _, ok := h.findText("gen 0 ·"); ok {
		t.Errorf("the timeline offers generation 0, identical to the current view:\n%s", txt)
	}
}

// A revert to a turn puts its prompt back in the input; undoing the revert
// takes it out again (it stayed, ready to resend into the undone state).
func TestUndoOfARevertClearsItsPrompt(t *testing.T) {
	t.Parallel()
	h := resumeHarness(t, func(h *harness) string {
		s, err := h.db.CreateSession(context.Background(), store.NewSession{Title: "three", WorkDir: h.work})
		if err != nil {
			t.Fatal(err)
		}
		seedTurns(t, h.db, s.ID, "first task", "second task", "third task")
		return s.ID
	})
	h.waitFor("answer to third task")
	h.submit("/revert 1")
	h.waitFor("Revert to checkpoint 1?")
	h.typeText("c", false)
	h.waitUntil("the prompt back in the input", func() bool { return h.c.input.Text() == "second task" })
	h.waitUntil("the revert to end", h.idle)
	h.focus(h.c.timeline)
	h.typeText("u", false)
	h.waitFor("Undo the last rewind")
	h.typeText("c", false)
	h.waitFor("answer to third task")
	h.waitUntil("the undo to end and the input to be empty", func() bool { return h.idle() && h.c.input.Text() == "" })
}

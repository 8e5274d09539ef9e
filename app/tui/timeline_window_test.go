package tui

import (
	"fmt"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/views"
)

// TestSearchHitTimelineLoadsBothWays: opened at a search hit in the middle
// of a long session, the timeline selects the hit's turn, says how many
// checkpoints come before and after the rows it holds, and moving down past
// its last row loads the page after (up past its first, the page before),
// the selection moving on into it. Before, it had no line below, Down at
// the last row did nothing, and the line above counted from the first
// checkpoint's number.
func TestSearchHitTimelineLoadsBothWays(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			h, _ := fixtureHitHarness(t, size[0], size[1], zeppelin300)
			h.waitFor("about the zeppelin")
			h.focus(h.c.timeline)
			// the window holds turns 91–109: 91 checkpoints before, 190 after
			h.waitUntil("the window's counts", func() bool { return h.c.pg.win.cpEarlier == 91 && h.c.pg.win.cpLater == 190 })
			selected := func() int {
				var id int
				h.c.onUIThread(func() {
					it, _ := h.c.timeline.SelectedItem()
					id = it.Checkpoint.ID
				})
				return id
			}
			if id := selected(); id != 100 {
				t.Fatalf("the timeline selects checkpoint %d, want the hit's turn 100", id)
			}
			h.c.onUIThread(func() { h.c.timeline.Select(h.c.timeline.Len() - 1) })
			if id := selected(); id != 109 {
				t.Fatalf("the last row is checkpoint %d, want 109", id)
			}
			h.waitFor("↓ 190 later checkpoints")
			h.key(tcell.KeyDown)
			h.waitUntil("the page after", func() bool { return h.c.pg.win.cpLater < 190 && !h.c.pg.win.loading })
			if id := selected(); id != 110 {
				t.Errorf("after Down at the last row the selection is on %d, want 110", id)
			}
			h.c.onUIThread(func() { h.c.timeline.Select(h.c.timeline.Len() - 1) })
			h.waitFor("↓ 171 later checkpoints") // the page ends before the turn it cuts: turns 110–128
			h.c.onUIThread(func() { h.c.timeline.Select(0) })
			if id := selected(); id != 91 {
				t.Fatalf("the first row is checkpoint %d, want 91", id)
			}
			h.waitFor("↑ 91 earlier checkpoints")
			h.key(tcell.KeyUp)
			h.waitUntil("the page before", func() bool { return h.c.pg.win.cpEarlier < 91 && !h.c.pg.win.loading })
			if id := selected(); id != 90 {
				t.Errorf("after Up at the first row the selection is on %d, want 90", id)
			}
			h.c.onUIThread(func() { h.c.timeline.Select(0) })
			h.waitFor("↑ 71 earlier checkpoints")
			var m views.TimelineModel
			h.c.onUIThread(func() { m = h.c.timeline.Model() })
			for i, r := range m.Checkpoints {
				if r.ID != 71+i {
					t.Fatalf("row %d is checkpoint %d, want %d (turns missing or twice)", i, r.ID, 71+i)
				}
			}
		})
	}
}

// TestTimelineGoToAndFind: in a long session, which opens at its tail, g
// in the timeline asks for a checkpoint and loads the records around it
// from the store; / asks for words and goes to the newest message of the
// session holding them, then the next older one. Before, the only way to
// reach turn 123 of 400 (1,234 of 4,000 at the product's page size) was
// to page up 14 times.
func TestTimelineGoToAndFind(t *testing.T) {
	t.Parallel()
	h := longSessionHarness(t)
	h.waitFor("prompt 399")
	h.focus(h.c.timeline)
	selected := func() int {
		var id int
		h.c.onUIThread(func() {
			it, _ := h.c.timeline.SelectedItem()
			id = it.Checkpoint.ID
		})
		return id
	}
	h.typeText("g", false)
	h.waitFor("Go to checkpoint")
	h.typeText("123", true)
	h.waitUntil("checkpoint 123", func() bool {
		it, _ := h.c.timeline.SelectedItem()
		return it.Checkpoint.ID == 123 && h.c.app.GetFocus() == h.c.timeline
	})
	h.waitFor("123", "prompt 123")
	h.c.onUIThread(func() {
		if h.c.pg.win.earlier == 0 || h.c.pg.win.later == 0 {
			t.Errorf("the window around checkpoint 123 holds the view's start or end: %d earlier, %d later", h.c.pg.win.earlier, h.c.pg.win.later)
		}
	})

	h.typeText("/", false)
	h.waitFor("Find in this session")
	h.typeText("250", true)
	h.waitUntil("the turn holding 250", func() bool {
		it, _ := h.c.timeline.SelectedItem()
		return it.Checkpoint.ID == 250
	})
	h.typeText("g", false)
	h.waitFor("Go to checkpoint")
	h.typeText("nope", true)
	h.waitFor("not a checkpoint number")
	if id := selected(); id != 250 {
		t.Errorf("a bad number moved the selection to %d", id)
	}
}

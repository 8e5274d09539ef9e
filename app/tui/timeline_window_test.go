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
			h, _ := hitHarness(t, size[0], size[1], zeppelinRecords(3000, 1000))
			h.waitFor("about the zeppelin")
			h.focus(h.c.timeline)
			// the window holds turns 901–1099: 901 checkpoints before, 1,900 after
			h.waitFor("↑ 901 earlier checkpoints", "↓ 1,900 later checkpoints")
			selected := func() int {
				var id int
				h.c.onUIThread(func() {
					it, _ := h.c.timeline.SelectedItem()
					id = it.Checkpoint.ID
				})
				return id
			}
			if id := selected(); id != 1000 {
				t.Fatalf("the timeline selects checkpoint %d, want the hit's turn 1000", id)
			}
			h.c.onUIThread(func() { h.c.timeline.Select(h.c.timeline.Len() - 1) })
			if id := selected(); id != 1099 {
				t.Fatalf("the last row is checkpoint %d, want 1099", id)
			}
			h.key(tcell.KeyDown)
			h.waitUntil("the page after", func() bool { return h.c.win.cpLater < 1900 && !h.c.win.loading })
			if id := selected(); id != 1100 {
				t.Errorf("after Down at the last row the selection is on %d, want 1100", id)
			}
			h.waitFor("↓ 1,701 later checkpoints") // the page ends before the turn it cuts: turns 1100–1298
			h.c.onUIThread(func() { h.c.timeline.Select(0) })
			if id := selected(); id != 901 {
				t.Fatalf("the first row is checkpoint %d, want 901", id)
			}
			h.key(tcell.KeyUp)
			h.waitUntil("the page before", func() bool { return h.c.win.cpEarlier < 901 && !h.c.win.loading })
			if id := selected(); id != 900 {
				t.Errorf("after Up at the first row the selection is on %d, want 900", id)
			}
			h.waitFor("↑ 701 earlier checkpoints")
			var m views.TimelineModel
			h.c.onUIThread(func() { m = h.c.timeline.Model() })
			for i, r := range m.Checkpoints {
				if r.ID != 701+i {
					t.Fatalf("row %d is checkpoint %d, want %d (turns missing or twice)", i, r.ID, 701+i)
				}
			}
		})
	}
}

package tui

import (
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// TestSearchHitHintAt80Columns: at 80 columns the status bar's hint after
// opening a search hit keeps its essentials, the mark and End, first (it
// was cut to "search hit ┃ …").
func TestSearchHitHintAt80Columns(t *testing.T) {
	t.Parallel()
	h, _ := fixtureHitHarness(t, 80, 24, zeppelin300)
	h.waitFor("about the zeppelin", "hit ┃ · End: the newest")
}

// TestTimelineMarkerSaysOneCheckpoint: one earlier checkpoint is said in
// the singular.
func TestTimelineMarkerSaysOneCheckpoint(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{
		1:    "↑ 1 earlier checkpoint · scroll up to load, or /revert N",
		1200: "↑ 1,200 earlier checkpoints · scroll up to load, or /revert N",
	} {
		w := window{earlier: 3, cpEarlier: n, records: []store.Record{{Kind: store.KindCheckpoint, CheckpointID: n}}}
		if got := w.timelineMarker(); got != want {
			t.Errorf("%d earlier: %q, want %q", n, got, want)
		}
	}
	// the first checkpoint loaded is 0 but messages come before it (an
	// import's first lines): "↑ 1 earlier checkpoint" sat above "● 0"
	w := window{earlier: 3, records: []store.Record{{Kind: store.KindCheckpoint, CheckpointID: 0}, {Kind: store.KindCheckpoint, CheckpointID: 1}}}
	if got, want := w.timelineMarker(), "↑ earlier messages · scroll up to load them"; got != want {
		t.Errorf("no checkpoint before the window: %q, want %q", got, want)
	}
}

// TestKeyHintsAt80Columns: at 80 columns the status bar keeps the key of
// a long notice (plan mode's Shift-Tab), and a visited child session says
// how to go back (they were cut to "the…" and "watching…").
func TestKeyHintsAt80Columns(t *testing.T) {
	t.Parallel()
	t.Run("plan mode", func(t *testing.T) {
		t.Parallel()
		h := newHarness(t, hopts{w: 80, h: 24})
		h.key(tcell.KeyBacktab)
		h.waitFor("plan mode on", "Shift-Tab or /plan to leave")
	})
	t.Run("a child's visit", func(t *testing.T) {
		t.Parallel()
		var parent string
		h := newHarness(t, hopts{w: 80, h: 24, before: func(h *harness) {
			parent = seedAgentCall(t, h.db, h.work)
		}, mutate: func(o *Options) { o.Mode, o.SessionID = ModeResume, parent }})
		h.waitFor("The sub-agent counted")
		h.c.onUIThread(func() {
			for i := 0; i < h.c.conv.Len(); i++ {
				if it, _ := h.c.conv.Item(i); it.Kind == views.ItemTool && it.ID == "call_agent" {
					h.c.conv.Select(i)
				}
			}
			h.c.app.SetFocus(h.c.toolOut)
		})
		h.waitFor("▸ Shell printf")
		h.key(tcell.KeyEnter)
		h.waitFor("Esc: back · watching")
	})
}

package tui

import (
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/views"
)

// TestWatchedDMailShowsItsBanner: a watcher sees the writer's D-Mail as the
// writer's own workspace and a reopened session show it — "Backtracked to
// checkpoint N" with the note — never the raw "D-Mail from the future"
// marker that the writer's next step appends to the new generation. Only
// the writer can undo it: the watcher's banner is the reopened session's,
// without "/undo" (it showed the writer's, which offers it, and when the
// view it read already held the writer's next step, both).
func TestWatchedDMailShowsItsBanner(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	h, w, _ := watchHarness(t, false,
		llmtest.Calls(llmtest.Call("d1", "SendDMail", map[string]any{"message": "skip the flaky test", "checkpoint_id": 0})).
			WithReasoning("looking back at the plan").WithHold(1, release),
		llmtest.Text("Starting over as my future self said: done."))
	h.waitFor("WATCH · live") // connected before the D-Mail: it arrives live
	close(release)
	h.waitFor("Starting over as my future self said")
	err := <-w.done
	w.done <- err // the cleanup waits for it too
	h.waitUntil("the writer's run to end on the watcher", func() bool { return !h.c.watch.inRun.Load() })
	var banners []string
	h.read(func() { // the conversation is the UI's: a poll may still append to it
		for _, it := range convItems(h.c.conv, h.c.conv.Len()) {
			if it.Kind == views.ItemBanner && it.Banner == views.BannerBacktrack {
				banners = append(banners, it.Text)
			}
		}
	})
	all := strings.Join(banners, "\n")
	if len(banners) != 1 || !strings.HasPrefix(all, "Backtracked to checkpoint 0") {
		t.Fatalf("the watcher's D-Mail banners: %q; want one, \"Backtracked to checkpoint 0 …\"", banners)
	}
	if strings.Contains(all, "undo") {
		t.Fatalf("the watcher's D-Mail banner offers to undo the writer's D-Mail: %q", all)
	}
	if h.onUI(func() bool { return h.c.tt.dmail != nil }) {
		t.Fatal("the watcher keeps the writer's D-Mail to offer its undo")
	}
	if strings.Contains(h.text(), "D-Mail from the future") {
		t.Fatalf("the raw marker on the watcher's screen:\n%s", h.text())
	}
}

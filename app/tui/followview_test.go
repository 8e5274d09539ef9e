package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// TestReloadOfALeftSessionIsDropped: a whole read of the session the
// workspace just left (a poller's, begun before the switch) arrives after
// the switch; it must not replace the new session's conversation (CI: a
// fork's banner vanished).
func TestReloadOfALeftSessionIsDropped(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48}, llmtest.Text("the source's answer"))
	h.submit("source prompt")
	h.waitFor("the source's answer")
	h.waitUntil("the run to end", h.idle)
	source := h.sessionID()
	stale, err := h.c.reader.loadSessionView(h.ctx, source, false)
	if err != nil {
		t.Fatal(err)
	}
	stale.follow = true
	h.submit("/fork")
	h.waitFor("Forked session")
	fork := h.sessionID()
	if fork == source {
		t.Fatal("the fork did not open")
	}
	h.c.post(stale)
	h.c.post(evNote{text: "after the stale read"})
	h.waitFor("after the stale read")
	if txt := h.text(); !strings.Contains(txt, "Forked session") {
		t.Fatalf("the left session's read replaced the fork's conversation:\n%s", txt)
	}
}

// TestWatchedTokensFollowDuringAPreview: a step another process commits
// while the watcher previews a checkpoint brings its saved token count to
// the status bar at once, as the timeline and title do (the preview holds
// back only the conversation). The follow's preview branch returned
// before the count, so the status said the count before the step until
// the next step after the preview ended.
func TestWatchedTokensFollowDuringAPreview(t *testing.T) {
	t.Parallel()
	var id string
	h := newHarness(t, hopts{w: 120, h: 40,
		before: func(h *harness) {
			s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "watched", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
			if err := landStep(h, id, "the first answer", 300); err != nil {
				t.Fatal(err)
			}
		},
		mutate: func(o *Options) { o.Mode, o.SessionID, o.Client = ModeWatch, id, nil },
	})
	lease, err := h.db.AcquireLease(h.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release(context.Background())
	h.waitFor("the first answer")
	h.waitUntil("the saved count", func() bool { return h.c.statusM.Tokens == 300 })
	h.c.onUIThread(func() {
		h.c.tt.onUIShowPreview([]views.Item{{Kind: views.ItemUser, Text: "archived"}}, "◉ ARCHIVED generation 1 · test · read-only")
	})
	h.waitUntil("the preview", func() bool { return h.c.tt.previewing })
	if err := landStep(h, id, "the late answer", 1240); err != nil {
		t.Fatal(err)
	}
	h.waitUntil("the late step followed behind the preview", func() bool {
		for _, it := range h.c.tt.liveItems() {
			if strings.Contains(it.Text, "the late answer") {
				return true
			}
		}
		return false
	})
	var tokens int
	var previewing bool
	h.read(func() { tokens, previewing = h.c.statusM.Tokens, h.c.tt.previewing })
	if !previewing {
		t.Fatal("the preview ended: the test proves nothing")
	}
	if tokens != 1240 {
		t.Errorf("the status bar counts %d tokens during the preview, where the session saved 1,240 with the step it followed", tokens)
	}
}

package tui

import (
	"context"
	"testing"

	"github.com/rewind-agent/rewind/store"
)

// yoloOn reports whether the open session's loop approves every call.
func (h *harness) yoloOn() bool {
	var on bool
	h.c.onUIThread(func() {
		if o := h.c.cur(); o != nil && o.soul != nil {
			on = o.soul.Yolo()
		}
	})
	return on
}

// TestYoloStaysInItsWorkDir: /yolo typed in one project stayed on after
// Ctrl-O opened a session of another work dir, whose commands then ran
// without asking. Yolo belongs to the work dir it was turned on in: a
// session elsewhere asks (and says so), one in the same dir keeps it.
func TestYoloStaysInItsWorkDir(t *testing.T) {
	t.Parallel()
	var here []string
	var other string
	h := newHarness(t, hopts{w: 160, h: 48, before: func(h *harness) {
		here = browserSessions(t, h.db, h.work)
		s, err := h.db.CreateSession(context.Background(), store.NewSession{Title: "elsewhere task", WorkDir: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		seedTurns(t, h.db, s.ID, "work in the other dir")
		other = s.ID
	}})
	h.waitFor("elsewhere task")
	h.c.onUIThread(func() { h.c.onUIOpenSession(here[0]) })
	h.waitFor("stripes and savannah")
	h.waitUntil("the session open", func() bool { return h.c.SessionID() == here[0] && h.idle() })
	h.submit("/yolo")
	h.waitFor("YOLO", "yolo on")
	if !h.yoloOn() {
		t.Fatal("/yolo did not reach the open session")
	}

	h.c.onUIThread(func() { h.c.onUIOpenSession(other) })
	h.waitFor("work in the other dir")
	h.waitUntil("the other session open", func() bool { return h.c.SessionID() == other && h.idle() })
	h.waitGone("YOLO")
	if h.yoloOn() {
		t.Fatal("yolo carried over to a session of another work dir")
	}
	h.waitFor("yolo is off in this work dir")

	// Back in the first dir, another of its sessions keeps yolo.
	h.c.onUIThread(func() { h.c.onUIOpenSession(here[1]) })
	h.waitFor("the quokka grammar needs a lookahead")
	h.waitUntil("the session open", func() bool { return h.c.SessionID() == here[1] && h.idle() })
	h.waitFor("YOLO")
	if !h.yoloOn() {
		t.Fatal("yolo lost in the dir it was turned on in")
	}
}

package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/store"
)

// The demo's scripted model works only in its scratch dir: a session of
// another work dir opened from the demo's lists is shown read-only, saying
// why, and gets no loop (it used to move the demo's agent into that
// session's dir, where the script writes hello.go).
func TestDemoOpensOtherSessionsReadOnly(t *testing.T) {
	t.Parallel()
	var other string
	h := newHarness(t, hopts{w: 160, h: 48,
		before: func(h *harness) {
			s, err := h.db.CreateSession(context.Background(), store.NewSession{Title: "real project", WorkDir: h.dir})
			if err != nil {
				t.Fatal(err)
			}
			seedTurns(t, h.db, s.ID, "my real work")
			other = s.ID
		},
		mutate: func(o *Options) { o.Demo = true },
	})
	h.waitFor("real project")
	h.c.onUIThread(func() { h.c.onUIOpenSession(other) })
	h.waitFor("my real work", demoReadOnly)
	h.waitUntil("the session open without a loop", func() bool {
		o := h.c.cur()
		return o != nil && o.sess.ID == other && o.soul == nil && o.lease == nil && h.c.readOnly
	})
	if screen := h.text(); strings.Contains(screen, "the agent works there now") {
		t.Errorf("the demo says its agent works in the other dir:\n%s", screen)
	}
	h.typeText("write hello.go", false)
	h.waitUntil("the line to be typed", func() bool { return h.c.input.Text() == "write hello.go" })
	h.key(tcell.KeyEnter)
	h.waitFor("demo: other sessions open read-only")
	if n := len(h.srv.Requests()); n != 0 {
		t.Errorf("the demo model was sent %d requests for another session", n)
	}
}

package tui

import (
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
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

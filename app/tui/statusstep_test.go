package tui

import (
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// noStepShown reports whether the status bar (the frame) names no step.
func noStepShown(frame string) bool { return !strings.Contains(frame, "· step ") }

// TestStatusBarDropsStepAfterRun: once a run is over the status bar shows
// no step, as before the first run (it kept "step 2" until the next run).
func TestStatusBarDropsStepAfterRun(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{},
		llmtest.Calls(llmtest.Call("c1", "ReadFile", map[string]any{"path": "missing.txt"})),
		llmtest.Text("all done"))
	h.typeText("run a command", true)
	h.waitFor("all done")
	h.waitUntil("the run to end", h.idle)
	var step int
	h.read(func() { step = h.c.statusM.Step })
	if step != 0 {
		t.Errorf("status step after the run = %d, want 0", step)
	}
	if frame, ok := h.waitScreen(noStepShown); !ok {
		t.Fatalf("the status bar still shows a step after the run:\n%s", frame)
	}
}

// TestWatchStatusBarDropsStepAfterRun: a watcher of a writer whose run is
// over (connected during or after it) shows no step either (an idle
// watcher showed "step 1").
func TestWatchStatusBarDropsStepAfterRun(t *testing.T) {
	t.Parallel()
	h, w, _ := watchHarness(t, false, llmtest.Text("one"))
	if err := <-w.done; err != nil {
		t.Fatal(err)
	}
	w.done <- nil // for the cleanup
	h.waitFor("one")
	h.waitUntil("the watcher to be connected", func() bool { return h.c.watch.conn != nil })
	h.waitFor("WATCH · live")
	if frame, ok := h.waitScreen(noStepShown); !ok {
		t.Fatalf("an idle watcher's status bar shows a step:\n%s", frame)
	}
}

package tui

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// The tool output pane never shows a call of a view that was replaced:
// after /clear, after a revert and after opening another session it is
// empty again.
func TestToolPaneFollowsTheView(t *testing.T) {
	t.Parallel()
	readCall := func(id string) llmtest.Reply {
		return llmtest.Calls(llmtest.Call(id, "ReadFile", map[string]any{"path": "present.txt"}))
	}
	var other string
	h := newHarness(t, hopts{w: 160, h: 48, before: func(h *harness) {
		s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "another session", WorkDir: h.work})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.db.AppendMessage(h.ctx, s.ID, message.NewText("user", "something else entirely")); err != nil {
			t.Fatal(err)
		}
		other = s.ID
	}},
		readCall("c1"), llmtest.Text("read it"),
		readCall("c2"), llmtest.Text("read it again"),
		readCall("c3"), llmtest.Text("and once more"))
	if err := os.WriteFile(filepath.Join(h.work, "present.txt"), []byte("alpha-contents\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	runRead := func(prompt, answer string) {
		t.Helper()
		h.submit(prompt)
		h.waitFor(answer, "alpha-contents")
		h.waitUntil("the run to end", h.idle)
	}

	runRead("read the file", "read it")
	h.submit("/clear")
	h.waitFor("Context cleared")
	h.waitGone("alpha-contents")
	h.waitFor("No tool call selected.")

	runRead("read it again", "read it again")
	h.typeText("/revert 0", true)
	h.waitFor("Revert to checkpoint 0?")
	h.key(tcell.KeyEnter)
	h.waitFor("Reverted to checkpoint 0")
	h.waitGone("alpha-contents")
	h.waitFor("No tool call selected.")
	h.key(tcell.KeyCtrlC) // the revert gave the prompt back to the input
	h.waitUntil("an empty input", func() bool { return h.c.input.Text() == "" })

	runRead("once more", "and once more")
	h.c.onUIThread(func() { h.c.onUIOpenSession(other) })
	h.waitFor("something else entirely")
	h.waitGone("alpha-contents")
	h.waitFor("No tool call selected.")
}

package tui

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// The input history is kept per work dir in the database: a new workspace
// walks the prompts of earlier runs with Up and finds them with Ctrl-R,
// and what it sends joins them.
func TestInputHistoryAcrossRuns(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 80, h: 24, before: func(h *harness) {
		for _, p := range []string{"explain the parser", "run the tests"} {
			if err := h.db.AddInputHistory(h.ctx, h.work, p); err != nil {
				t.Fatal(err)
			}
		}
		if err := h.db.AddInputHistory(h.ctx, "/some/other/dir", "not from here"); err != nil {
			t.Fatal(err)
		}
	}}, llmtest.Text("done"))
	h.key(tcell.KeyUp)
	h.waitUntil("the last prompt of the earlier run", func() bool { return h.c.input.Text() == "run the tests" })
	h.key(tcell.KeyUp)
	h.waitUntil("the one before", func() bool { return h.c.input.Text() == "explain the parser" })
	h.key(tcell.KeyUp)
	h.waitUntil("no prompt of another dir", func() bool { return h.c.input.Text() == "explain the parser" })
	h.key(tcell.KeyCtrlU)
	h.ctrl(tcell.KeyCtrlR)
	h.typeText("pars", false)
	h.waitFor("history search: pars", "explain the parser")
	h.key(tcell.KeyEnter)
	h.waitUntil("the match in the input", func() bool { return h.c.input.Text() == "explain the parser" })
	h.key(tcell.KeyCtrlU)

	h.submit("a new prompt")
	h.waitUntil("the run to end", h.idle)
	want := []string{"explain the parser", "run the tests", "a new prompt"}
	var got []string
	h.waitUntil("the prompt in the database", func() bool {
		got, _ = h.db.InputHistory(h.ctx, h.work, 10)
		return slices.Equal(got, want)
	})
}

// A paste of more than 20 lines (bracketed paste) shows as one label in
// the input and in the conversation; the model gets the whole text.
func TestLongPasteInTheWorkspace(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 120, h: 40}, llmtest.Text("got all of it"))
	h.typeText("check: ", false)
	h.paste(true)
	for i := range 30 {
		h.typeText(fmt.Sprintf("pasted row %d", i), false)
		if i < 29 {
			h.key(tcell.KeyEnter)
		}
	}
	h.paste(false)
	h.waitUntil("the folded paste", func() bool { return h.c.input.Text() == "check: [pasted 30 lines]" })
	h.key(tcell.KeyEnter)
	h.waitFor("got all of it", "check: [pasted 30 lines]")
	if strings.Contains(h.text(), "pasted row 29") {
		t.Fatalf("the paste shows unfolded:\n%s", h.text())
	}
	reqs := h.srv.Requests()
	if len(reqs) != 1 || !strings.Contains(string(reqs[0].Body), "pasted row 29") {
		t.Fatal("the model did not get the whole paste")
	}
}

// Ctrl-C clears the input, as in codex and Claude Code, but the text is
// not lost: Up brings it back (it joins this process's history, not the
// saved one: it was never sent).
func TestCtrlCClearedInputComesBackWithUp(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 80, h: 24})
	h.typeText("a long draft I almost lost", false)
	h.waitUntil("the draft typed", func() bool { return h.c.input.Text() == "a long draft I almost lost" })
	h.key(tcell.KeyCtrlC)
	h.waitFor("input cleared (Up brings it back)")
	h.waitUntil("the input empty", func() bool { return h.c.input.Text() == "" })
	h.key(tcell.KeyUp)
	h.waitUntil("the draft back", func() bool { return h.c.input.Text() == "a long draft I almost lost" })
	if got := h.inputLine(); got != "a long draft I almost lost" {
		t.Errorf("the input box shows %q", got)
	}
	saved, err := h.db.InputHistory(h.ctx, h.work, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(saved) != 0 {
		t.Errorf("the cleared draft was saved to the database: %q", saved)
	}
}

package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/store"
)

// undoableHarness resumes a session with three turns and reverts it to
// checkpoint 1 (the input cleared of the prompt the revert gives back):
// u in the timeline offers to undo that revert.
func undoableHarness(t *testing.T) (*harness, string) {
	t.Helper()
	var id string
	h := resumeHarness(t, func(h *harness) string {
		s, err := h.db.CreateSession(context.Background(), store.NewSession{Title: "typing", WorkDir: h.work})
		if err != nil {
			t.Fatal(err)
		}
		seedTurns(t, h.db, s.ID, "first task", "second task", "third task")
		id = s.ID
		return s.ID
	})
	h.waitFor("answer to third task")
	h.submit("/revert 1")
	h.waitFor("Revert to checkpoint 1?")
	h.typeText("c", false)
	h.waitUntil("the revert to end", func() bool { return h.idle() && h.c.input.Text() == "second task" })
	h.c.onUIThread(func() { h.c.input.SetText("") })
	return h, id
}

// generations is how many generations session id has.
func (h *harness) generations(id string) int {
	h.t.Helper()
	gens, err := h.db.Generations(context.Background(), id)
	if err != nil {
		h.t.Fatal(err)
	}
	return len(gens)
}

// Words typed with the timeline focused go to the input whole, whatever
// its one-letter keys: the u of "use cache" opened "Undo the last rewind"
// and its c chose "Conversation only" (the undo ran, the input was left
// with "se cahe"); "do this" lost its d.
func TestTypingAtTheTimelineNeverRewinds(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"use cache", "update the readme", "do this"} {
		t.Run(text, func(t *testing.T) {
			t.Parallel()
			h, id := undoableHarness(t)
			before := h.generations(id)
			h.focus(h.c.timeline)
			h.typeText(text, false)
			h.waitUntil("the whole text in the input", func() bool {
				return h.c.input.Text() == text && h.c.app.GetFocus() == h.c.input
			})
			if text[0] == 'u' { // the undo it requested is dropped or cancelled, and says so
				h.waitFor(typedNote)
			}
			h.waitUntil("no dialog", func() bool { return h.c.pages.top() == "" })
			if n := h.generations(id); n != before {
				t.Errorf("typing %q made %d generations out of %d", text, n, before)
			}
		})
	}
}

// "why" typed in the conversation reaches the input whole, and its w does
// not leave the code blocks' wrapping toggled.
func TestTypingInTheConversationKeepsTheWrapKey(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48})
	var wrap bool
	h.c.onUIThread(func() { wrap = h.c.conv.CodeLayout().NoWrap })
	h.focus(h.c.conv)
	h.typeText("why", false)
	h.waitUntil("the whole word in the input", func() bool {
		return h.c.input.Text() == "why" && h.c.app.GetFocus() == h.c.input
	})
	h.c.onUIThread(func() {
		if h.c.conv.CodeLayout().NoWrap != wrap {
			t.Error("typing w toggled the code blocks' wrapping")
		}
	})
	// A lone w still toggles.
	h.focus(h.c.conv)
	h.typeText("w", false)
	h.waitUntil("the wrapping toggled", func() bool { return h.c.conv.CodeLayout().NoWrap != wrap })
}

// A deliberate u, then after a pause a choice, still undoes; Enter
// within the dialog's grace takes no choice.
func TestDeliberateUndoFromTheTimeline(t *testing.T) {
	t.Parallel()
	h, id := undoableHarness(t)
	before := h.generations(id)
	h.focus(h.c.timeline)
	h.typeText("u", false)
	h.waitFor("Undo the last rewind")
	h.inject(tcell.KeyEnter, 0) // at once: within the grace
	h.typeText("c", false)      // after a pause
	h.waitFor("answer to third task")
	h.waitUntil("the undo to end", h.idle)
	if n := h.generations(id); n != before+1 {
		t.Errorf("after the undo: %d generations, want %d", n, before+1)
	}
	if got := h.c.input.Text(); got != "" {
		t.Errorf("the input holds %q", got)
	}
}

// inputLine is the text the input box shows on the screen (its first
// line, without the border).
func (h *harness) inputLine() string {
	rows := h.rows()
	for y, row := range rows {
		if strings.Contains(row, " Input ") && y+1 < len(rows) {
			return strings.TrimSpace(strings.Trim(strings.TrimSpace(rows[y+1]), "║│"))
		}
	}
	return ""
}

// The workspace's printable global keys (i: back to the input, ?: help,
// y and Y: copy in the conversation) typed in a word at a pane go to the
// input like the pane's own keys: the i of "fix it" typed at the timeline
// moved the focus to the input and was lost ("fx t").
func TestTypingAtAPaneKeepsTheGlobalKeys(t *testing.T) {
	t.Parallel()
	cases := []struct {
		key  rune
		pane string
		text string
	}{
		{'i', "timeline", "fix it"},
		{'?', "timeline", "huh?"},
		{'?', "conversation", "gg?"},
		{'y', "conversation", "yes it is"},
		{'Y', "conversation", "Yes"},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%c at the %s: %s", tc.key, tc.pane, tc.text), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, hopts{w: 80, h: 24})
			panes := map[string]interface{ HasFocus() bool }{"timeline": h.c.timeline, "conversation": h.c.conv, "tool output": h.c.toolOut}
			h.focus(panes[tc.pane])
			h.typeText(tc.text, false)
			h.waitUntil("the whole text in the input", func() bool {
				return h.c.input.Text() == tc.text && h.c.app.GetFocus() == h.c.input
			})
			if got := h.inputLine(); got != tc.text {
				t.Errorf("the input box shows %q, want %q", got, tc.text)
			}
			h.waitUntil("no overlay", func() bool { return h.c.pages.top() == "" })
		})
	}
}

// The i that starts what is typed at a pane is the key the help names,
// "back to the input", however soon the next key comes: "i/copy code" was
// sent to the model when the i was put back in front of a quick "/".
func TestIStartingAPaneBurstOnlyMovesToTheInput(t *testing.T) {
	t.Parallel()
	for _, pane := range []string{"timeline", "conversation", "tool output"} {
		t.Run(pane, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, hopts{w: 80, h: 24})
			panes := map[string]interface{ HasFocus() bool }{"timeline": h.c.timeline, "conversation": h.c.conv, "tool output": h.c.toolOut}
			h.focus(panes[pane])
			h.typeText("i/copy code", false) // one burst: i and the command at once
			h.waitUntil("the command in the input", func() bool { return h.c.input.Text() == "/copy code" })
			if got := h.inputLine(); got != "/copy code" {
				t.Errorf("the input box shows %q, want %q", got, "/copy code")
			}
		})
	}
}

// A lone i still only moves the focus to the input: a word typed after a
// pause does not get it.
func TestDeliberateIMovesToTheInput(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 80, h: 24})
	h.focus(h.c.timeline)
	h.typeText("i", false)
	h.waitUntil("input focus", func() bool { return h.c.app.GetFocus() == h.c.input })
	h.typeText("ok", false)
	h.waitUntil("the word in the input", func() bool { return h.c.input.Text() != "" })
	if got := h.inputLine(); got != "ok" {
		t.Errorf("the input box shows %q, want %q", got, "ok")
	}
}

// A revert to a turn puts its prompt in the input; a draft there is not
// lost silently: the dialog says the prompt replaces it, and ↑ brings the
// draft back (it goes to the input history).
func TestRevertWithADraftKeepsTheDraftInHistory(t *testing.T) {
	t.Parallel()
	h := resumeHarness(t, func(h *harness) string {
		s, err := h.db.CreateSession(context.Background(), store.NewSession{Title: "drafting", WorkDir: h.work})
		if err != nil {
			t.Fatal(err)
		}
		seedTurns(t, h.db, s.ID, "first task", "second task", "third task")
		return s.ID
	})
	h.waitFor("answer to third task")
	h.typeText("my half-written idea", false)
	h.waitUntil("the draft typed", func() bool { return h.c.input.Text() == "my half-written idea" })
	h.c.onUIThread(func() { h.c.tt.cmdRevert("1") })
	h.waitFor("Revert to checkpoint 1?", "replaces your draft")
	h.typeText("c", false)
	h.waitUntil("the prompt in the input", func() bool { return h.idle() && h.c.input.Text() == "second task" })
	h.key(tcell.KeyUp)
	h.waitUntil("the draft back with ↑", func() bool { return h.c.input.Text() == "my half-written idea" })
}

package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

// tmux turns Alt-Enter into Esc+CR, which tcell reads as Alt+Ctrl+M (the
// rune 'm' with both modifiers): that too makes a new line.
func TestAltEnterUnderTmuxMakesNewLine(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 80, h: 24})
	h.typeText("first", false)
	h.screen.InjectKey(tcell.KeyRune, 'm', tcell.ModAlt|tcell.ModCtrl)
	h.typeText("second", false)
	h.waitUntil("a two-line input", func() bool { return h.c.input.Text() == "first\nsecond" })
}

func TestCtrlCClearsTheInputFirst(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 80, h: 24})
	h.typeText("half a thought", false)
	h.waitUntil("the text", func() bool { return h.c.input.Text() == "half a thought" })
	h.key(tcell.KeyCtrlC)
	h.waitUntil("the input to be cleared", func() bool { return h.c.input.Text() == "" })
	h.key(tcell.KeyCtrlC)
	h.waitFor("press Ctrl-C again to quit")
	var quitting bool
	h.c.onUIThread(func() { quitting = h.c.quitting })
	if quitting {
		t.Fatal("the Ctrl-C that cleared the input armed the quit")
	}
}

// The "press Ctrl-C again" hint lasts exactly the quit window: not longer
// (a second Ctrl-C after the hint went away would surprise) nor shorter.
func TestCtrlCHintLastsTheQuitWindow(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 80, h: 24})
	pressed := time.Now()
	h.key(tcell.KeyCtrlC)
	h.waitFor("press Ctrl-C again to quit")
	shown := time.Now()
	var until time.Time
	h.c.onUIThread(func() { until = h.c.msg.until })
	if until.Before(pressed.Add(quitWindow)) || until.After(shown.Add(quitWindow)) {
		t.Fatalf("the hint is set to last %v–%v, the quit window is %v", until.Sub(shown), until.Sub(pressed), quitWindow)
	}
	h.waitGone("press Ctrl-C again to quit")
	if gone := time.Since(until); gone > time.Second {
		t.Fatalf("the hint stayed %v after the quit window of %v closed", gone, quitWindow)
	}
}

// A second Ctrl-C typed within the quit window quits even when the UI
// takes it late: a long frame (a watcher applying what its writer did, a
// loaded machine) held the UI past the window after the first one. QA saw
// the third Ctrl-C of a watcher do nothing: the window was counted from
// when the UI got round to each key, not from when it was typed.
func TestCtrlCAgainQuitsWhenTheUITakesItLate(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 80, h: 24})
	pressed := time.Now()
	h.key(tcell.KeyCtrlC)
	h.waitFor("press Ctrl-C again to quit")
	held := make(chan struct{})
	h.c.onUIThreadAsync(func() {
		close(held)
		// The long frame itself: the UI is held until the quit window,
		// counted on the wall clock from the first Ctrl-C, is over.
		time.Sleep(time.Until(pressed.Add(quitWindow + 200*time.Millisecond)))
	})
	<-held
	h.keys.advance(500 * time.Millisecond) // typed half a second after the first
	h.inject(tcell.KeyCtrlC, 0)
	h.waitQuit("a Ctrl-C typed within the quit window did not quit")
}

// While the hint says "press Ctrl-C again to quit", Ctrl-C quits: the
// hint is cleared by the UI, which a loaded machine makes late, and a
// Ctrl-C seen beside it must not only arm the quit again.
func TestCtrlCQuitsWhileTheHintShows(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 80, h: 24})
	h.key(tcell.KeyCtrlC)
	h.waitFor("press Ctrl-C again to quit")
	h.keys.advance(quitWindow) // typed past the window by the keys' clock: the hint still shows
	h.key(tcell.KeyCtrlC)
	h.waitQuit("a Ctrl-C beside the hint did not quit")
}

// Every slash command is reachable from the menu with Down (and Tab): the
// list scrolls instead of ending in "+N more".
func TestSlashMenuReachesEveryCommand(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 80, h: 24})
	var all []string
	h.c.onUIThread(func() {
		for _, c := range h.c.commands.slashCommands(h.c.disabledBy) {
			all = append(all, c.Name)
		}
	})
	if len(all) <= 4 {
		t.Fatalf("only %d commands: the test needs more than the menu shows", len(all))
	}
	h.typeText("/", false)
	h.waitFor(all[0])
	seen := map[string]bool{}
	for i := 0; i < len(all); i++ {
		var sel string
		h.waitUntil("a selection", func() bool {
			s, ok := h.c.input.MenuSelected()
			sel = s.Name
			return ok
		})
		txt := h.waitFor(sel)
		if strings.Contains(txt, " more") && strings.Contains(txt, "+") {
			t.Fatalf("dead \"+N more\" line:\n%s", txt)
		}
		seen[sel] = true
		if i%2 == 0 {
			h.key(tcell.KeyDown)
		} else {
			h.key(tcell.KeyTab)
		}
		want := all[(i+1)%len(all)]
		h.waitUntil("the selection to move to "+want, func() bool { s, _ := h.c.input.MenuSelected(); return s.Name == want })
	}
	for _, name := range all {
		if !seen[name] {
			t.Errorf("%s was never reachable in the slash menu", name)
		}
	}
	// Enter takes the selected command.
	h.c.onUIThread(func() { h.c.input.SetText("/he") })
	h.key(tcell.KeyEnter)
	h.waitFor("Help — Esc closes")
}

// Typing in a pane without a text field lands in the input: a key the pane
// does not bind moves the focus there and is typed ("/restore 1" in the
// conversation used to be swallowed); a key the pane binds (j) stays.
func TestTypingInAPaneLandsInTheInput(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48})
	for _, p := range []interface{ HasFocus() bool }{h.c.conv, h.c.timeline} {
		h.focus(p)
		h.typeText("j", false) // the pane's "next" key: no typing
		h.typeText("/restore 1", false)
		h.waitUntil("the command in the input", func() bool {
			return h.c.input.Text() == "/restore 1" && h.c.app.GetFocus() == h.c.input
		})
		h.c.onUIThread(func() { h.c.input.SetText("") })
	}
}

// The browser opens with an empty filter each time, and closing it gives
// the focus back to the input it was opened from.
func TestBrowserOpensAfreshAndGivesFocusBack(t *testing.T) {
	t.Parallel()
	h, _ := browserHarness(t)
	h.openBrowser()
	h.typeText("zebra", false)
	h.waitUntil("the filter", func() bool { return h.c.br.list.Filter() == "zebra" })
	h.key(tcell.KeyEnter) // resumes the match, closing the browser
	h.waitUntil("the browser to close", func() bool { return h.c.pages.top() == "" })
	h.waitUntil("the focus on the input", func() bool { return h.c.app.GetFocus() == h.c.input })
	h.openBrowser()
	h.waitUntil("an empty filter", func() bool { return h.c.br.list.Filter() == "" && len(h.c.br.list.Visible()) == 3 })
	h.key(tcell.KeyEsc)
	h.waitUntil("the focus back on the input", func() bool { return h.c.pages.top() == "" && h.c.app.GetFocus() == h.c.input })
}

package tui

import (
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/views"
)

// Typing in a pane, one feature controller. A printable key a pane does
// not bind goes to the input (onUITypedInPane), but the pane's own letter
// keys act first: typed at the timeline, "use cache" opened the undo
// dialog with its u and chose "Conversation only" with its c. The guard
// tells typing from a deliberate key by its pace (docs/DECISIONS.md):
//
//   - A pane key starts a burst; another printable key within typingGap
//     that the pane does not bind shows it was typing: what the burst's
//     keys did is taken back (a toggled wrap toggles back, a dialog they
//     requested is never shown) and its letters go to the input, before
//     the key that showed it.
//   - The workspace's printable global keys (i, ?, y, Y) count as the
//     pane's own keys: in a burst they are typing (the i of "fix it" moved
//     the focus to the input and was lost); otherwise they act and start
//     one. An i that starts a burst is the help's "back to the input",
//     however soon the next key comes: put back in front of a quick "/",
//     it sent "i/copy code" to the model.
//   - A confirm dialog takes no choice within confirmGrace of appearing,
//     and when it appeared while keys were being typed, a printable key
//     in that grace cancels it and goes to the input with the letters of
//     the burst that opened it.
//
// A lone u and, after a pause, a choice still undo.

// typingGap is the longest pause between two keys of one typed word: a
// typist's keys come 100-250 ms apart, a deliberate key and the next one
// seldom within 300 ms (the approval modal's grace is the same).
const typingGap = 300 * time.Millisecond

// confirmGrace is how long after a confirm dialog appears it takes no
// choice: a key typed that soon was meant for the input.
const confirmGrace = 300 * time.Millisecond

// typingGuard tells typing from pane keys (UI goroutine only).
type typingGuard struct {
	c typingDeps
	// now is the guard's clock (when a dialog appears) and when the time a
	// key was typed (read from the terminal: a key that waited behind a
	// busy UI goroutine keeps its time). Tests stamp keys with a fake one.
	now  func() time.Time
	when func(*tcell.EventKey) time.Time

	// keyAt is when the key being handled was typed: bindings that count
	// time between keys (Esc Esc) read it, not the clock, as a key may
	// wait behind a busy UI goroutine.
	keyAt   time.Time
	lastKey time.Time // the last printable key, anywhere
	burst   []rune    // pane keys typed each within typingGap of the last
	burstAt time.Time
	undo    []func() // takes back what the burst's keys toggled
	// epoch changes when a burst turns out to be typing: a dialog its keys
	// requested (planned on the worker) checks it before it appears.
	epoch int

	confirmAt     time.Time // when the confirm dialog appeared
	confirmTyping bool      // it appeared while keys were being typed
	confirmBurst  []rune    // the letters of the burst that opened it
	cancelConfirm func()    // closes it as Esc does
}

// typingDeps is what the guard reaches: the input typed letters go to, the
// panes whose wrap toggles it takes back, and notices.
type typingDeps struct {
	featureCommon
	input    *views.Input
	conv     *views.Conversation
	toolOut  *views.ToolOutput
	timeline *views.Timeline
}

func (c *Controller) initTyping() {
	deps := typingDeps{featureCommon: c.common(), input: c.input, conv: c.conv, toolOut: c.toolOut, timeline: c.timeline}
	c.tg = &typingGuard{c: deps, now: time.Now, when: (*tcell.EventKey).When}
	c.confirm.tg = c.tg
}

// printable reports whether ev is a plain character (no Ctrl/Alt/Meta).
func printable(ev *tcell.EventKey) bool {
	return ev.Key() == tcell.KeyRune && ev.Modifiers()&(tcell.ModAlt|tcell.ModCtrl|tcell.ModMeta) == 0
}

// typedNote tells the user a dialog their typing opened was cancelled.
const typedNote = "typed text went to the input; nothing ran"

// stillWanted returns a check, for a dialog requested now by a key, that
// the key was not typing after all; when it was, the check says that
// nothing ran.
func (g *typingGuard) stillWanted() func() bool {
	e := g.epoch
	return func() bool {
		if g.epoch == e {
			return true
		}
		g.c.setMessage(typedNote, false)
		return false
	}
}

// live reports whether the burst goes on at now.
func (g *typingGuard) live(now time.Time) bool {
	return len(g.burst) > 0 && now.Sub(g.burstAt) < typingGap
}

// onUIConfirmShown starts the dialog's grace; cancel closes it.
func (g *typingGuard) onUIConfirmShown(cancel func()) {
	now := g.now()
	g.confirmAt, g.cancelConfirm = now, cancel
	g.confirmTyping = !g.lastKey.IsZero() && now.Sub(g.lastKey) < typingGap
	g.confirmBurst = nil
	if g.live(now) {
		g.confirmBurst = g.burst
	}
	g.burst, g.undo = nil, nil
}

// onUIConfirmKey filters a key at the confirm dialog; true: the key was
// taken here.
func (g *typingGuard) onUIConfirmKey(ev *tcell.EventKey) bool {
	now := g.when(ev)
	if now.Sub(g.confirmAt) >= confirmGrace || ev.Key() == tcell.KeyEsc || ev.Key() == tcell.KeyCtrlC {
		return false
	}
	if !printable(ev) || !g.confirmTyping {
		return true // no choice within the grace
	}
	text := string(g.confirmBurst) + string(ev.Rune())
	g.confirmBurst = nil
	g.lastKey = now
	if g.cancelConfirm != nil {
		g.cancelConfirm()
	}
	g.c.setMessage(typedNote, false)
	g.c.app.SetFocus(g.c.input)
	g.c.input.Insert(text)
	return true
}

// onUIPaneKey follows a printable key typed in pane, which binds it or
// not, before it goes on (to the pane, or to the input when unbound).
func (g *typingGuard) onUIPaneKey(pane views.Bound, ev *tcell.EventKey, bound bool) {
	now := g.when(ev)
	live := g.live(now)
	g.lastKey = now
	if bound {
		if !live {
			g.burst, g.undo = nil, nil
		}
		g.burst = append(g.burst, ev.Rune())
		g.burstAt = now
		if ev.Rune() == 'w' { // the wrap toggles: the same key toggles back
			switch pane {
			case g.c.conv:
				g.undo = append(g.undo, g.c.conv.ToggleCodeWrap)
			case g.c.toolOut:
				g.undo = append(g.undo, g.c.toolOut.ToggleWrap)
			}
		}
		return
	}
	if !live {
		g.burst, g.undo = nil, nil
		return
	}
	g.wasTyping()
}

// wasTyping takes back what the burst's keys did and puts their letters
// in the input.
func (g *typingGuard) wasTyping() {
	g.epoch++
	for i := len(g.undo) - 1; i >= 0; i-- {
		g.undo[i]()
	}
	g.c.input.Insert(string(g.burst))
	g.burst, g.undo = nil, nil
}

// onUIGlobalKey follows a printable global key typed at pane; handler is
// what the key does. In a burst the key was typed in a word: false, and it
// goes on as a key the pane does not bind. Otherwise it acts and starts a
// burst, as a pane's own key.
func (g *typingGuard) onUIGlobalKey(pane views.Bound, ev *tcell.EventKey, handler func()) bool {
	if g.live(g.when(ev)) {
		return false
	}
	g.onUIPaneKey(pane, ev, true)
	handler()
	return true
}

// onUIKeyTyped notes a printable key typed outside the panes (the input):
// a confirm dialog that appears right after it appeared while typing.
func (g *typingGuard) onUIKeyTyped(ev *tcell.EventKey) {
	if printable(ev) {
		g.lastKey = g.when(ev)
	}
}

// typingPane is the focused pane whose typed keys go to the input (the
// conversation, the tool output or the timeline: panes without a text
// field), or nil.
func (g *typingGuard) typingPane() views.Bound {
	c := g.c
	switch f := c.app.GetFocus(); f {
	case c.conv:
		return c.conv
	case c.toolOut:
		return c.toolOut
	case c.timeline:
		return c.timeline
	}
	return nil
}

// onUITypedInPane sends typing to the input: in the conversation, the tool
// output or the timeline (panes without a text field), a printable key
// the pane does not bind ("/", letters, digits) moves the focus to the
// input, which then takes the key, as in Claude Code and crush, where
// typing always lands in the prompt. "/restore 1" typed there used to be
// swallowed. The Sessions pane keeps what is typed: its filter line is
// explicit (docs/DECISIONS.md). A pane's own letter keys are followed by
// the typing guard: typed in a word, they go to the input too.
func (g *typingGuard) onUITypedInPane(ev *tcell.EventKey) {
	c := g.c
	if !printable(ev) {
		return
	}
	pane := g.typingPane()
	if pane == nil {
		return
	}
	for _, b := range pane.Bindings() {
		for _, k := range b.Keys {
			if k.Matches(ev) {
				g.onUIPaneKey(pane, ev, true)
				return
			}
		}
	}
	g.onUIPaneKey(pane, ev, false)
	c.app.SetFocus(c.input)
}

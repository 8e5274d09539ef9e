package tui

import (
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/views"
)

// globalBinding is a workspace-wide key: data, k9s-style. When says whether
// it applies right now (nil = always); a binding that does not apply lets
// the key through to the focused widget.
type globalBinding struct {
	views.KeyBinding
	When func() bool
	// Overlays: also active while an overlay (help, dialog, approval) is on top.
	Overlays bool
	// DisabledWhen are the rules that disable it (disabled.go): help shows
	// the reason dimmed, and the key goes on to the focused widget.
	DisabledWhen []rule
}

// globalBindings is the workspace's key registry; the help overlay lists it.
func (c *Controller) globalBindings() []globalBinding {
	return []globalBinding{
		{KeyBinding: views.KeyBinding{Keys: []views.Key{views.K(tcell.KeyCtrlC)}, Description: "interrupt; twice: quit", Handler: c.onUICtrlC, Visible: true, Dangerous: true}, Overlays: true},
		{KeyBinding: views.KeyBinding{Keys: []views.Key{views.K(tcell.KeyEsc)}, Description: "interrupt the running step", Handler: c.onUIInterrupt, Visible: true},
			When: func() bool { return c.holds(ruleRunActive) }},
		{KeyBinding: views.KeyBinding{Keys: []views.Key{views.K(tcell.KeyTab)}, Description: "next pane", Handler: func() { c.cycleFocus(1) }, Visible: true},
			When: func() bool { return !(c.app.GetFocus() == c.input && c.input.WantsTab()) }},
		{KeyBinding: views.KeyBinding{Keys: []views.Key{views.K(tcell.KeyBacktab)}, Description: "previous pane", Handler: func() { c.cycleFocus(-1) }, Visible: true}},
		c.help.binding(),
		{KeyBinding: views.KeyBinding{Keys: []views.Key{views.R('i')}, Description: "back to the input", Handler: func() { c.app.SetFocus(c.input) }, Visible: true},
			When: func() bool { f := c.app.GetFocus(); return f != c.input && f != c.sessions }},
	}
}

// onUIKey is the application's input capture: global bindings first, then
// the focused widget.
func (c *Controller) onUIKey(ev *tcell.EventKey) *tcell.EventKey {
	c.tg.keyAt = c.tg.when(ev)
	overlay := c.pages.top() != ""
	if c.ap.swallows(ev) {
		return nil // typed before the question appeared
	}
	if top := c.pages.top(); (top == "confirm" || top == mcpTrustPage) && c.tg.onUIConfirmKey(ev) {
		return nil // typed before the question appeared
	}
	if b, ok := c.globalBinding(ev, overlay); ok {
		pane := c.tg.typingPane()
		if overlay || pane == nil || !printable(ev) {
			b.Handler()
			return nil
		}
		if c.tg.onUIGlobalKey(pane, ev, b.Handler) {
			return nil
		}
		// Typed in a word: on to the input, as a key the pane does not bind.
	}
	if ev.Key() != tcell.KeyCtrlC {
		c.quitArmed = quitArm{}
	}
	if !overlay {
		c.tg.onUITypedInPane(ev)
	}
	if c.app.GetFocus() == c.input {
		c.tg.onUIKeyTyped(ev)
	}
	return ev
}

// globalBinding is the global binding ev matches that applies now.
func (c *Controller) globalBinding(ev *tcell.EventKey, overlay bool) (globalBinding, bool) {
	for _, b := range c.keys {
		if overlay && !b.Overlays {
			continue
		}
		for _, k := range b.Keys {
			if k.Matches(ev) && (b.When == nil || b.When()) && c.firstHolding(b.DisabledWhen) == 0 {
				return b, true
			}
		}
	}
	return globalBinding{}, false
}

// quitArm is the Ctrl-C that armed the quit: when it was typed, and the
// status message (messageLine.seq) of its "press Ctrl-C again" hint.
type quitArm struct {
	typed time.Time
	hint  int
}

// onUICtrlC first clears a non-empty input (as codex and Claude Code do),
// else interrupts a run; a second Ctrl-C within quitWindow quits. The hint
// saying so lasts exactly as long as that window. The window is counted
// between the keys' own times, not when the UI took them: a long frame (a
// watcher applying its writer's steps, a loaded machine) held the second
// one past it, and it only armed the quit again. A Ctrl-C while the hint
// still shows quits too: a late UI clears the hint late.
func (c *Controller) onUICtrlC() {
	if c.pages.top() == "" && c.input.Text() != "" {
		c.input.Stash()
		c.quitArmed = quitArm{}
		c.msg.setMessageFor("input cleared (Up brings it back) · Ctrl-C again interrupts or quits", false, quitWindow)
		return
	}
	if a := c.quitArmed; !a.typed.IsZero() {
		msg, _ := c.status.Message()
		hintShows := a.hint == c.msg.seq && c.msg.timed() && msg != ""
		if c.tg.keyAt.Sub(a.typed) < quitWindow || hintShows {
			c.onUIQuit()
			return
		}
	}
	hint := "press Ctrl-C again to quit"
	if c.holds(ruleRunActive) {
		c.onUIInterrupt()
		hint = "interrupted · " + hint
	}
	c.msg.setMessageFor(hint, false, quitWindow)
	c.quitArmed = quitArm{typed: c.tg.keyAt, hint: c.msg.seq}
}

// onUIInterrupt cancels the running step (Esc).
func (c *Controller) onUIInterrupt() {
	if c.run.cancel == nil {
		return
	}
	c.run.cancel()
	c.ap.onUIRejectPending()
	c.msg.setMessage("interrupting…", false)
}

// cycleFocus moves the focus along the panes (Tab / Shift-Tab); a side
// pane hidden by a small terminal is shown when it gets the focus.
func (c *Controller) cycleFocus(d int) {
	c.ws.Cycle(d, func(p tview.Primitive) { c.app.SetFocus(p) })
}

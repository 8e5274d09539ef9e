package tui

import (
	"time"

	"github.com/rewind-agent/rewind/views"
)

// buildWidgets creates the panes, overlays and the page stack and wires the
// widget callbacks (which run on the UI goroutine).
func (c *Controller) buildWidgets() {
	c.ws = views.NewWorkspace()
	c.conv = c.ws.Conversation
	c.toolOut = c.ws.ToolOutput
	c.timeline = c.ws.Timeline
	c.sessions = c.ws.Sessions
	c.input = c.ws.Input
	c.status = c.ws.Status
	c.step = &stepItems{conv: c.conv}
	c.msg = newMessageLine(c.status, c.onUIThreadAsync, c.polls.message)
	c.tp = newToolPane(c.toolOut)
	c.help = &helpScreen{overlay: views.NewHelpOverlay()}
	c.prompt = views.NewPromptDialog()

	c.pages = newPageStack(c.app, c.ws)
	c.confirm = &confirmer{dialog: views.NewConfirmDialog(), pages: c.pages, later: c.onUIThreadAsync}
	c.theme = newThemer(c.opts.Home, c.pages, c.msg)
	c.theme.addThemed(c.ws, c.help.overlay, c.confirm.dialog, c.prompt)

	c.conv.SetOnSelect(func(_ int, it views.Item) {
		if it.Kind == views.ItemTool && it.ID != "" {
			c.tp.onUISelect(it)
			c.sa.onUIReplay(it)
		}
	})
	c.help.overlay.SetOnClose(func() { c.pages.pop("help") })
	for _, p := range []helpPane{{"Input", c.input}, {"Conversation", c.conv}, {"Tool output", c.toolOut}, {"Timeline", c.timeline}, {"Sessions", c.sessions}} {
		c.help.addPane(p.title, p.keys)
	}
}

// confirmer is the choice dialog every feature may show (featureCommon):
// it opens on the page stack, and the typing guard drops the keys typed
// in the instant before it showed (typing.go). UI goroutine only.
type confirmer struct {
	dialog *views.ConfirmDialog
	pages  *pageStack
	later  func(f func()) // onUIThreadAsync
	tg     *typingGuard   // set by initTyping
	seq    int            // numbers the dialog shown last (its arming)
}

// confirmShown numbers the confirm dialog shown last: a question that
// remembers it knows whether it is still the one on screen (UI).
func (d *confirmer) confirmShown() int { return d.seq }

// showConfirm shows a choice dialog on the page stack (UI).
func (d *confirmer) showConfirm(title, message string, choices []views.Choice, selected int, onChoose func(int)) {
	choose := func(i int) {
		d.pages.pop("confirm")
		if onChoose != nil {
			onChoose(i)
		}
	}
	d.dialog.Show(title, message, choices, selected, choose)
	d.pages.push(Page{Name: "confirm", Primitive: d.dialog})
	d.tg.onUIConfirmShown(func() { choose(-1) })
	// The typing guard drops keys for confirmGrace: say so until then.
	d.seq++
	seq := d.seq
	d.dialog.SetArmed(false)
	time.AfterFunc(confirmGrace, func() {
		d.later(func() {
			if d.seq == seq {
				d.dialog.SetArmed(true)
			}
		})
	})
}

// convItems copies the conversation's first n items (UI).
func convItems(conv *views.Conversation, n int) []views.Item {
	items := make([]views.Item, 0, n)
	for i := 0; i < n; i++ {
		it, _ := conv.Item(i)
		items = append(items, it)
	}
	return items
}

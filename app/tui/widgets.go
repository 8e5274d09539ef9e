package tui

import (
	"strings"
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
	c.msg = newMessageLine(c.status, c.onUIThreadAsync)
	c.tp = newToolPane(c.toolOut)
	c.help = views.NewHelpOverlay()
	c.prompt = views.NewPromptDialog()

	c.pages = newPageStack(c.app, c.ws)
	c.confirm = &confirmer{dialog: views.NewConfirmDialog(), pages: c.pages, later: c.onUIThreadAsync}
	c.theme = newThemer(c.opts.Home, c.pages, c.msg)
	c.theme.addThemed(c.ws, c.help, c.confirm.dialog, c.prompt)

	c.conv.SetOnSelect(func(_ int, it views.Item) {
		if it.Kind == views.ItemTool && it.ID != "" {
			c.tp.onUISelect(it)
			c.sa.onUIReplay(it)
		}
	})
	c.help.SetOnClose(func() { c.pages.pop("help") })
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

// showHelp opens the help overlay, generated from the registries (UI).
// Over the session browser its keys come first.
func (c *Controller) showHelp() {
	var sections []views.HelpSection
	if c.pages.top() == browserPage {
		sections = append(sections, views.HelpSection{Title: "Session browser (Ctrl-O)", Bindings: c.br.list.Bindings()})
	}
	sections = append(sections, views.HelpSection{Title: "Workspace", Bindings: c.visibleGlobalBindings()})
	for _, s := range []struct {
		title string
		b     views.Bound
	}{
		{"Input", c.input}, {"Conversation", c.conv}, {"Tool output", c.toolOut},
		{"Timeline", c.timeline}, {"Sessions", c.sessions}, {"Approval", c.ap.modal},
		{"Live runs (Ctrl-L)", c.runs.list},
	} {
		if s.b == c.sessions && c.pages.top() == browserPage {
			continue // the browser's keys, listed first
		}
		sections = append(sections, views.HelpSection{Title: s.title, Bindings: s.b.Bindings()})
	}
	c.help.SetContent(sections, c.commands.slashCommands(c.disabledBy))
	c.pages.push(Page{Name: "help", Primitive: c.help})
}

// isTyping reports whether keys go to a text field right now (UI).
func (c *Controller) isTyping() bool {
	switch c.app.GetFocus() {
	case c.input:
		return strings.TrimSpace(c.input.Text()) != ""
	case c.sessions:
		return true
	}
	return false
}

// convItems copies the conversation's first n items (UI).
func (c *Controller) convItems(n int) []views.Item {
	items := make([]views.Item, 0, n)
	for i := 0; i < n; i++ {
		it, _ := c.conv.Item(i)
		items = append(items, it)
	}
	return items
}

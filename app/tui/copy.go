package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/views"
)

// clipboard copies text out of the workspace with OSC 52, which reaches the
// clipboard of the terminal the user sits at, also over ssh (and through
// tmux with `set -g set-clipboard on`), and gives the mouse back to the
// terminal for native selection (/mouse).
type clipboard struct {
	c       clipboardDeps
	pending []byte // written by the next draw, which holds the screen
	noMouse bool   // the terminal has the mouse (native selection)
	// Y walks the code blocks of one message: the item and block last
	// copied, and when.
	blockItem, block int
	blockAt          time.Time
}

// clipboardDeps is what the clipboard reaches: the conversation it copies
// from, the application whose mouse it gives away, and notices.
type clipboardDeps struct {
	featureCommon
	conv *views.Conversation
}

// nextBlockWindow is how soon another Y must come to take the next block.
const nextBlockWindow = 5 * time.Second

// initClipboard registers y / Y in the conversation, F12 and /copy, /mouse.
func (c *Controller) initClipboard() {
	cb := &clipboard{c: clipboardDeps{featureCommon: c.common(), conv: c.conv}}
	c.cb = cb
	inConv := func() bool { return c.app.GetFocus() == c.conv }
	c.keys = append(c.keys,
		globalBinding{KeyBinding: views.KeyBinding{Keys: []views.Key{views.R('y')}, Description: "copy the selected message (conversation; OSC 52)", Handler: cb.onUICopyItem, Visible: true}, When: inConv},
		globalBinding{KeyBinding: views.KeyBinding{Keys: []views.Key{views.K(tcell.KeyF12)}, Description: "give the mouse to the terminal for native selection / take it back", Handler: cb.onUIToggleMouse, Visible: true}, Overlays: true},
		globalBinding{KeyBinding: views.KeyBinding{Keys: []views.Key{views.R('Y')}, Description: "copy a code block of the selected message (again: the next one)", Handler: cb.onUICopyBlock, Visible: true}, When: inConv},
	)
	c.AddCommand(Command{Name: "/copy", Args: "[code]", Description: "copy the last answer (or its code blocks) to the clipboard", Run: cb.cmdCopy})
	c.AddCommand(Command{Name: "/mouse", Description: "give the mouse to the terminal for native selection; again takes it back", Run: func(string) { cb.onUIToggleMouse() }})
	c.app.SetAfterDrawFunc(func(screen tcell.Screen) {
		if cb.pending != nil {
			screen.SetClipboard(cb.pending)
			cb.pending = nil
		}
	})
}

// onUICopy queues text for the clipboard and says what was copied (UI).
func (cb *clipboard) onUICopy(what, text string) {
	c := cb.c
	if strings.TrimSpace(text) == "" {
		c.setMessage("nothing to copy: "+what+" is empty", false)
		return
	}
	cb.pending = []byte(text)
	n := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1
	c.setMessage(fmt.Sprintf("copied %s (%d %s) · OSC 52: in tmux, set -g set-clipboard on", what, n, words.Plural(n, "line", "lines")), false)
}

// onUICopyItem copies the selected conversation item.
func (cb *clipboard) onUICopyItem() {
	c := cb.c
	it, ok := c.conv.Item(c.conv.Selected())
	if !ok {
		c.setMessage("nothing to copy: the conversation is empty", false)
		return
	}
	cb.onUICopy("the message", itemText(it))
}

// onUICopyBlock copies a code block of the selected item: the first, or,
// when Y comes again soon on the same item, the next one.
func (cb *clipboard) onUICopyBlock() {
	c := cb.c
	sel := c.conv.Selected()
	it, ok := c.conv.Item(sel)
	if !ok {
		c.setMessage("nothing to copy: the conversation is empty", false)
		return
	}
	blocks := views.CodeBlocks(itemText(it))
	if len(blocks) == 0 {
		c.setMessage("no code block in the selected message (y copies all of it)", false)
		return
	}
	next := 0
	if sel == cb.blockItem && time.Since(cb.blockAt) < nextBlockWindow {
		next = (cb.block + 1) % len(blocks)
	}
	cb.blockItem, cb.block, cb.blockAt = sel, next, time.Now()
	what := "its code block"
	if len(blocks) > 1 {
		what = fmt.Sprintf("code block %d of %d (Y again: the next)", next+1, len(blocks))
	}
	cb.onUICopy(what, blocks[next])
}

// itemText is what copying an item takes: the markdown of an answer, the
// whole prompt (pastes unfolded), a tool call's arguments and result.
func itemText(it views.Item) string {
	switch {
	case it.Kind == views.ItemUser && it.Full != "":
		return it.Full
	case it.Kind == views.ItemTool:
		parts := []string{it.ToolName + " " + it.KeyArg}
		for _, p := range []string{it.Args, it.Result} {
			if p != "" {
				parts = append(parts, p)
			}
		}
		return strings.Join(parts, "\n")
	}
	return it.Text
}

// cmdCopy copies the last answer, or with "code" its code blocks.
func (cb *clipboard) cmdCopy(arg string) {
	c := cb.c
	for i := c.conv.Len() - 1; i >= 0; i-- {
		it, _ := c.conv.Item(i)
		if it.Kind != views.ItemAssistant {
			continue
		}
		if arg == "code" {
			cb.onUICopy("the last answer's code", strings.Join(views.CodeBlocks(it.Text), "\n\n"))
			return
		}
		cb.onUICopy("the last answer", it.Text)
		return
	}
	c.setMessage("nothing to copy yet: no answer in the conversation", false)
}

// onUIToggleMouse gives the mouse to the terminal (select text natively)
// or takes it back (clicks and the wheel work in the panes again).
func (cb *clipboard) onUIToggleMouse() {
	c := cb.c
	cb.noMouse = !cb.noMouse
	c.app.EnableMouse(!cb.noMouse)
	if cb.noMouse {
		c.setMessage("mouse released: select text with it as usual · /mouse takes it back", false)
		return
	}
	c.setMessage("mouse captured again: click and scroll the panes", false)
}

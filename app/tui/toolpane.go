package tui

import "github.com/rewind-agent/rewind/views"

// toolPane keeps the tool output pane in step with the conversation: when
// the view is replaced (/clear, a revert, a restore, a compaction, a
// D-Mail backtrack, another session) a call that is no longer in it stops
// showing, and selecting a call of a loaded view shows its stored result.
type toolPane struct {
	session string // the session whose calls c.outputs holds
}

// viewReplaced is the typed notice that the conversation now shows another
// view; onUIReload sends it for every reload that replaces the
// conversation, whatever caused it.
type viewReplaced struct {
	session string
	items   []views.Item
}

// onUIViewReplaced drops what belonged to the old view (UI).
func (c *Controller) onUIViewReplaced(ev viewReplaced) {
	if ev.session != c.tp.session {
		if c.tp.session != "" { // call ids are only unique within a session
			c.outputs, c.outOrder = map[string]*callOutput{}, nil
		}
		c.tp.session = ev.session
	}
	id := c.toolOut.Tool().ID
	if id == "" {
		return
	}
	for _, it := range ev.items {
		if it.Kind == views.ItemTool && it.ID == id {
			return
		}
	}
	c.toolOut.SetTool(views.ToolCallInfo{})
}

// onUISelectTool shows the selected call in the tool output pane: its live
// output when this process ran it, else the result stored in the view.
func (c *Controller) onUISelectTool(it views.Item) {
	if _, ok := c.outputs[it.ID]; ok {
		c.showToolOutput(it.ID)
		return
	}
	c.toolOut.SetTool(views.ToolCallInfo{ID: it.ID, Name: it.ToolName, Args: it.KeyArg, Status: it.Status, Duration: it.Duration})
	c.toolOut.SetOutput(it.Result)
}

package tui

import (
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/views"
)

// The tool output pane, one feature: it streams the running call's output,
// keeps the output of the calls this process ran (bounded) so selecting one
// in the conversation shows it again, and stays in step with the
// conversation: when the view is replaced (/clear, a revert, a restore, a
// compaction, a D-Mail backtrack, another session) a call that is no
// longer in it stops showing, and selecting a call of a loaded view shows
// its stored result.

// maxCallOutput bounds the output kept per tool call (the pane keeps less).
const maxCallOutput = 256 << 10

// maxKeptCalls bounds how many calls keep their output.
const maxKeptCalls = 200

// toolPane owns the pane's state (UI goroutine only).
type toolPane struct {
	pane    *views.ToolOutput
	session string                 // the session whose calls outputs holds
	outputs map[string]*callOutput // tool call id → output
	order   []string               // outputs' ids, oldest first
}

// callOutput is what the pane shows for one call.
type callOutput struct {
	info views.ToolCallInfo
	text []byte
}

func newToolPane(pane *views.ToolOutput) *toolPane {
	return &toolPane{pane: pane, outputs: map[string]*callOutput{}}
}

// viewReplaced is the typed notice that the conversation now shows another
// view; onUIReload sends it for every reload that replaces the
// conversation, whatever caused it.
type viewReplaced struct {
	session string
	items   []views.Item
}

// onUICall shows a call that starts running.
func (tp *toolPane) onUICall(ev soul.ToolCall) {
	info := views.ToolCallInfo{ID: ev.ID, Name: ev.Name, Args: oneLine(tools.CallLabel(ev.Name, ev.Arguments), 80), Status: views.ToolRunning}
	tp.record(ev.ID, &info, "")
	tp.pane.SetTool(info)
}

// onUIOutput adds a chunk of a call's live output.
func (tp *toolPane) onUIOutput(ev soul.ToolOutput) {
	tp.record(ev.ID, nil, ev.Text)
	if tp.pane.Tool().ID == ev.ID {
		tp.pane.AppendOutput(ev.Text)
	}
}

// onUIResult ends a call with its status; a call that streamed nothing
// shows its result.
func (tp *toolPane) onUIResult(ev soul.ToolResult, st views.ToolStatus) {
	out := tp.record(ev.ID, nil, "")
	out.info.Status, out.info.Duration = st, ev.Duration
	if len(out.text) == 0 {
		tp.record(ev.ID, nil, ev.Output)
	}
	if tp.pane.Tool().ID == ev.ID {
		tp.pane.SetStatus(st, ev.Duration)
		if lines, _ := tp.pane.Lines(); len(lines) == 0 {
			tp.pane.SetOutput(ev.Output)
		}
	}
}

// onUIBacktrack marks the D-Mail a backtrack delivered: the pane kept its
// "not delivered" result from the run.
func (tp *toolPane) onUIBacktrack(ev soul.Backtrack) {
	for i := len(tp.order) - 1; i >= 0; i-- {
		out := tp.outputs[tp.order[i]]
		if out.info.Name != "SendDMail" {
			continue
		}
		if string(out.text) == tools.DMailNotDelivered {
			out.text = []byte(dmailDelivered(ev.NewGen))
			if tp.pane.Tool().ID == out.info.ID {
				tp.pane.SetOutput(string(out.text))
			}
		}
		return
	}
}

// onUIViewReplaced drops what belonged to the old view.
func (tp *toolPane) onUIViewReplaced(ev viewReplaced) {
	id := tp.pane.Tool().ID
	if ev.session != tp.session {
		if tp.session != "" {
			// Call ids are only unique within a session (kimi-cli numbers
			// them "Shell:0", "Shell:1"… in each): the new view's call of
			// the same id is another call.
			tp.outputs, tp.order = map[string]*callOutput{}, nil
			id = ""
		}
		tp.session = ev.session
	}
	if id == "" {
		tp.pane.SetTool(views.ToolCallInfo{})
		return
	}
	for _, it := range ev.items {
		if it.Kind == views.ItemTool && it.ID == id {
			return
		}
	}
	tp.pane.SetTool(views.ToolCallInfo{})
}

// onUISelect shows the selected call: its live output when this process
// ran it, else the result stored in the view.
func (tp *toolPane) onUISelect(it views.Item) {
	if out, ok := tp.outputs[it.ID]; ok {
		tp.pane.SetTool(out.info)
		tp.pane.SetOutput(string(out.text))
		return
	}
	tp.pane.SetTool(views.ToolCallInfo{ID: it.ID, Name: it.ToolName, Args: it.KeyArg, Status: it.Status, Duration: it.Duration})
	tp.pane.SetOutput(it.Result)
}

// record keeps a call's output for later selection.
func (tp *toolPane) record(id string, info *views.ToolCallInfo, text string) *callOutput {
	out, ok := tp.outputs[id]
	if !ok {
		out = &callOutput{}
		tp.outputs[id] = out
		tp.order = append(tp.order, id)
		if len(tp.order) > maxKeptCalls {
			delete(tp.outputs, tp.order[0])
			tp.order = tp.order[1:]
		}
	}
	if info != nil {
		out.info = *info
	}
	if text != "" && len(out.text) < maxCallOutput {
		out.text = append(out.text, text[:min(len(text), maxCallOutput-len(out.text))]...)
	}
	return out
}

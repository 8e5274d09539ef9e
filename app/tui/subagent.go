package tui

import (
	"context"
	"fmt"
	"strings"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// Sub-agents in the workspace: the Agent call's row says what its child
// is doing (its type, description, step and running tool), and the tool
// output pane streams the child's conversation under the call: its text,
// its tool calls and their output, as the main pane shows the parent's.

// isAgentTool reports whether name is the sub-agent tool or its alias.
func isAgentTool(name string) bool { return name == soul.AgentToolName || name == "Task" }

// subagents is the workspace's view of the runs' children (UI goroutine
// only): the running children and the child session of each Agent call,
// as its events told (a loaded session's calls are looked up in the
// store), by the parent's session and call id.
type subagents struct {
	c       subagentsDeps
	live    map[string]*subagentLive
	session map[string]string
	view    *subagentView // the running child opened from its row (subagent_view.go)
}

// subagentsDeps is what the sub-agents reach besides the common: the
// conversation (the Agent rows), the tool output pane (the child's
// conversation), the watcher (Enter visits a finished child's session).
type subagentsDeps struct {
	featureCommon
	subagentsHost
	conv  *views.Conversation
	tp    *toolPane
	watch *watcher
}

type subagentsHost interface {
	SessionID() string
}

// initSubagents wires the tool output pane's Enter and the conversation's
// selection of an Agent row to the sub-agents (New).
func (c *Controller) initSubagents() {
	s := &subagents{c: subagentsDeps{featureCommon: c.common(), subagentsHost: c, conv: c.conv, tp: c.tp, watch: c.watch}}
	c.sa = s
	c.toolOut.SetOnOpen(s.onUIOpen)
	c.conv.SetOnOpen(func(it views.Item) bool { // Enter on an Agent row there too
		if it.Kind != views.ItemTool || !isAgentTool(it.ToolName) {
			return false
		}
		s.onUIOpen(views.ToolCallInfo{ID: it.ID, Name: it.ToolName})
		return true
	})
}

// subagentLive is what the workspace knows of one running child.
type subagentLive struct {
	base string // the row's key argument before the run
	step int
	tool string
	// inFlight are the child's events since its last StepBegin: what
	// opening its view shows after what it committed.
	inFlight []soul.Event
}

// onUIEvent applies a child's event: its state on the Agent call's
// row, its conversation in the tool output pane.
func (s *subagents) onUIEvent(ev soul.SubagentEvent) {
	c := s.c
	if s.session == nil {
		s.session, s.live = map[string]string{}, map[string]*subagentLive{}
	}
	s.session[c.SessionID()+"\x00"+ev.ParentCallID] = ev.SessionID
	st := s.live[ev.ParentCallID]
	if st == nil {
		st = &subagentLive{}
		c.conv.UpdateItem(ev.ParentCallID, func(it *views.Item) { st.base = it.KeyArg })
		s.live[ev.ParentCallID] = st
	}
	state := ""
	switch inner := ev.Event.(type) {
	case soul.StepBegin:
		st.step, st.tool, st.inFlight = inner.N, "", nil
	case soul.ToolCall:
		st.tool = inner.Name
	case soul.ToolResult:
		st.tool = ""
	case soul.RunEnd:
		state = inner.Reason
		if inner.Reason == "done" {
			state = fmt.Sprintf("done in %d %s", inner.Steps, plural(inner.Steps, "step", "steps"))
		}
		delete(s.live, ev.ParentCallID)
	}
	if state == "" && st.step > 0 {
		state = fmt.Sprintf("step %d", st.step)
		if st.tool != "" {
			state += " · " + st.tool
		}
	}
	if state != "" {
		line := strings.TrimSpace(st.base + " · " + state)
		c.conv.UpdateItem(ev.ParentCallID, func(it *views.Item) { it.KeyArg = line })
	}
	if _, begin := ev.Event.(soul.StepBegin); !begin {
		st.inFlight = append(st.inFlight, ev.Event)
	}
	if text := subagentPaneText(ev.Event); text != "" {
		c.tp.onUIOutput(soul.ToolOutput{ID: ev.ParentCallID, Text: text})
	}
	s.onUIViewEvent(ev)
}

// subagentPaneText is how one of the child's events reads in the tool
// output pane; "" for events it does not show.
func subagentPaneText(e soul.Event) string {
	switch ev := e.(type) {
	case soul.StepBegin:
		if ev.N > 1 {
			return "\n"
		}
	case soul.ContentPart:
		return ev.Text
	case soul.ToolCall:
		arg := oneLine(tools.CallLabel(ev.Name, ev.Arguments), 80)
		if arg != "" {
			arg = " " + arg
		}
		return "\n▸ " + ev.Name + arg + "\n"
	case soul.ToolOutput:
		return ev.Text
	case soul.ToolResult:
		mark := "✓"
		if ev.IsError {
			mark = "✗"
		}
		if ev.Brief != "" {
			return "  " + mark + " " + ev.Brief + "\n"
		}
		return "  " + mark + "\n"
	case soul.StepInterrupted:
		return "\n[" + ev.Reason + "]\n"
	case soul.Error:
		return "\n[error: " + oneLine(ev.Message, 200) + "]\n"
	}
	return ""
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// subagentRows are the sub-agent rows of the listed sessions, by parent
// (oldest first), each marked when a revert of its parent archived it.
func subagentRows(ctx context.Context, db *store.DB, list []store.Session) (map[string][]views.SessionRow, error) {
	ids := make([]string, len(list))
	for i, s := range list {
		ids[i] = s.ID
	}
	kids, err := db.SubagentsOf(ctx, ids)
	if err != nil {
		return nil, err
	}
	out := map[string][]views.SessionRow{}
	for _, k := range kids {
		row := SessionRow(k)
		if row.SubagentArchived, row.SubagentArchivedWith, err = db.SubagentArchived(ctx, k); err != nil {
			return nil, err
		}
		out[k.SubagentOf] = append(out[k.SubagentOf], row)
	}
	return out, nil
}

// onUIOpen is Enter on the tool output pane: an Agent call's child
// session opens read-only (a visit: Esc goes back). While the parent's run
// is active it opens over the workspace, following the child live.
func (s *subagents) onUIOpen(info views.ToolCallInfo) {
	c := s.c
	if !isAgentTool(info.Name) {
		return
	}
	if c.holds(ruleRunActive) {
		s.onUIWatchRunning(info.ID)
		return
	}
	if id := s.session[c.SessionID()+"\x00"+info.ID]; id != "" {
		c.watch.onUIWatch(id)
		return
	}
	o := c.cur()
	if o == nil {
		return
	}
	parent, call := o.sess.ID, info.ID
	c.onWorker(func() {
		id, err := subagentOfCall(c.ctx, c.db, parent, call)
		c.onUIThreadAsync(func() {
			switch {
			case err != nil:
				c.setMessage("cannot find the sub-agent's session: "+oneLine(err.Error(), 120), true)
			case id == "":
				c.setMessage("this Agent call has no session of its own (it did not start)", false)
			default:
				c.watch.onUIWatch(id)
			}
		})
	})
}

// subagentOfCall is the child session the parent's Agent call started
// ("" when it did not start one).
func subagentOfCall(ctx context.Context, db *store.DB, parent, call string) (string, error) {
	kids, err := db.SubagentsOf(ctx, []string{parent})
	if err != nil {
		return "", err
	}
	for _, k := range kids {
		if k.SubagentCall == call {
			return k.ID, nil
		}
	}
	return "", nil
}

// subagentReplayRecords bounds how much of a child's conversation the pane
// replays (its tail; the pane keeps less).
const subagentReplayRecords = 400

// onUIReplay shows, for an Agent row whose run this process did
// not see (a reopened parent), the child's conversation in the tool
// output pane as it streamed there live: read from the child's session on
// a worker, shown if the row is still the pane's.
func (s *subagents) onUIReplay(it views.Item) {
	c := s.c
	if _, live := c.tp.outputs[it.ID]; live || !isAgentTool(it.ToolName) {
		return
	}
	o := c.cur()
	if o == nil {
		return
	}
	parent, call := o.sess.ID, it.ID
	c.onWorker(func() {
		id, err := subagentOfCall(c.ctx, c.db, parent, call)
		if err != nil || id == "" {
			return // the pane keeps the call's stored result
		}
		v, err := c.db.ViewBefore(c.ctx, id, -1, store.ViewPos{}, subagentReplayRecords)
		if err != nil {
			return
		}
		text := subagentReplayText(viewItems(v))
		c.onUIThreadAsync(func() {
			if text != "" && c.SessionID() == parent && c.tp.pane.Tool().ID == call {
				c.tp.pane.SetOutput(text)
			}
		})
	})
}

// subagentReplayText is a stored child conversation as the tool output
// pane shows a running one (subagentPaneText): its answers, each tool call
// with its output and mark; its prompt is the Agent call's own argument.
func subagentReplayText(items []views.Item) string {
	var b strings.Builder
	for _, it := range items {
		switch it.Kind {
		case views.ItemAssistant:
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			b.WriteString(it.Text + "\n")
		case views.ItemTool:
			arg := ""
			if it.KeyArg != "" {
				arg = " " + oneLine(it.KeyArg, 80)
			}
			b.WriteString("\n▸ " + it.ToolName + arg + "\n")
			if r := strings.TrimRight(it.Result, "\n"); r != "" {
				b.WriteString(r + "\n")
			}
			mark := "  ✓\n"
			if it.Status == views.ToolFailed {
				mark = "  ✗\n"
			}
			b.WriteString(mark)
		}
	}
	return strings.TrimLeft(b.String(), "\n")
}

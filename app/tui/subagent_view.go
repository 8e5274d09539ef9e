package tui

import (
	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// The running child's session, opened from its Agent row (Enter in the
// tool output pane) while the parent's run goes on: a read-only
// conversation over the workspace that follows the child as a watcher
// follows a writer. What the child committed is read from its session
// (again at each of its steps); the step in flight is the child's events
// since its last StepBegin, which the workspace keeps per running child.
// Esc goes back to the parent.

const subagentPage = "subagent"

// subagentView is the open child view (UI goroutine only).
type subagentView struct {
	call, id string // the parent's Agent call, the child's session
	conv     *views.Conversation
	step     []soul.Event // the child's events since its last StepBegin
	reads    int          // the latest read of the child's session
}

// onUIWatchRunning opens the view of the child the parent's
// Agent call call runs.
func (s *subagents) onUIWatchRunning(call string) {
	c := s.c
	id := s.session[c.SessionID()+"\x00"+call]
	if id == "" {
		c.setMessage("the sub-agent has not started yet: its session opens once it has", false)
		return
	}
	v := &subagentView{call: call, id: id, conv: views.NewConversation()}
	if st := s.live[call]; st != nil {
		v.step = append(v.step, st.inFlight...)
	}
	v.conv.SetTheme(c.currentTheme())
	v.conv.SetPreview(s.header(call))
	v.conv.SetInputCapture(func(ev *tcell.EventKey) *tcell.EventKey {
		if ev.Key() == tcell.KeyEscape {
			c.pages.pop(subagentPage)
			return nil
		}
		return ev
	})
	s.view = v
	c.pages.push(Page{Name: subagentPage, Primitive: v.conv, Opaque: true, Stop: func() {
		if s.view == v {
			s.view = nil
		}
	}})
	s.onUIRead(v)
}

// header is the view's pinned line: the child's type, task and
// state as its Agent row says them, and the way back.
func (s *subagents) header(call string) string {
	c := s.c
	label := "sub-agent"
	c.conv.UpdateItem(call, func(it *views.Item) { label = it.KeyArg })
	return "↳ " + label + " · read-only · Esc: back to the parent"
}

// onUIRead reads what the child committed, off the UI goroutine,
// and shows it with the step in flight after it.
func (s *subagents) onUIRead(v *subagentView) {
	c := s.c
	v.reads++
	read, id := v.reads, v.id
	c.onWorker(func() {
		view, err := c.db.ViewBefore(c.ctx, id, -1, store.ViewPos{}, subagentReplayRecords)
		c.onUIThreadAsync(func() {
			if s.view != v || read != v.reads {
				return // closed, or a newer read follows
			}
			if err != nil {
				c.setMessage("cannot read the sub-agent's session: "+oneLine(err.Error(), 120), true)
				return
			}
			v.conv.SetItems(viewItems(view))
			for _, e := range v.step {
				v.show(e)
			}
		})
	})
}

// onUIViewEvent follows the open view's child: a new step reads
// the committed ones again, the rest is shown as it streams.
func (s *subagents) onUIViewEvent(ev soul.SubagentEvent) {
	v := s.view
	if v == nil || v.call != ev.ParentCallID {
		return
	}
	v.conv.SetPreview(s.header(v.call))
	switch ev.Event.(type) {
	case soul.StepBegin, soul.RunEnd:
		v.step = nil
		s.onUIRead(v)
		return
	}
	v.step = append(v.step, ev.Event)
	v.show(ev.Event)
}

// show applies one of the child's events to the view, as the workspace
// applies the parent's (onUIApply).
func (v *subagentView) show(e soul.Event) {
	switch ev := e.(type) {
	case soul.ContentPart:
		v.conv.AppendDelta(ev.Text)
	case soul.ReasoningPart:
		v.conv.AppendReasoningDelta(ev.Text)
	case soul.ToolCall:
		v.conv.Append(toolItem(ev.ID, ev.Name, ev.Arguments))
	case soul.ToolResult:
		st := views.ToolOK
		if ev.IsError {
			st = views.ToolFailed
		}
		v.conv.UpdateItem(ev.ID, func(it *views.Item) {
			it.Status, it.Duration, it.Result = st, ev.Duration, excerpt(ev.Output)
		})
	case soul.Error:
		v.conv.Append(views.Item{Kind: views.ItemError, Text: ev.Message})
	}
}

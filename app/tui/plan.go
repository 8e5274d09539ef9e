package tui

import (
	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/views"
)

// Plan mode (soul/plan.go) in the workspace: /plan and Shift-Tab in the
// input switch it, the status bar shows PLAN, and the model's
// ExitPlanMode comes as an approval (the plan shown whole; approve, keep
// planning with feedback, reject). It is the workspace's mode, as yolo is
// a work dir's: a session opened or started while it is on is in it.

func (c *Controller) initPlan() {
	c.plan.Store(c.opts.Soul.Plan)
	c.commands.add(Command{Name: "/plan", Description: "plan mode on/off: only read-only tools run until you approve the model's plan (Shift-Tab in the input)", Run: func(string) { c.onUITogglePlan() }})
	// Before "previous pane": in the input, Shift-Tab is plan mode, as in
	// kimi-cli and Claude Code.
	toggle := globalBinding{KeyBinding: views.KeyBinding{Keys: []views.Key{views.K(tcell.KeyBacktab)}, Description: "plan mode on/off (in the input; elsewhere: previous pane)", Handler: c.onUITogglePlan, Visible: true},
		When: func() bool { return c.app.GetFocus() == c.input }}
	c.keys = append([]globalBinding{toggle}, c.keys...)
}

// onUITogglePlan switches plan mode for the open session's soul and the
// sessions started after.
func (c *Controller) onUITogglePlan() {
	if c.readOnly {
		c.setMessage("plan mode: this workspace runs nothing (read-only)", true)
		return
	}
	on := !c.plan.Load()
	c.plan.Store(on)
	if o := c.cur(); o != nil && o.soul != nil {
		s := o.soul
		c.onWorker(func() { s.SetPlanMode(on) }) // its StatusUpdate comes back through the sink
	}
	if on {
		c.setMessage("plan mode on: only read-only tools run; the model shows its plan for your approval (Shift-Tab or /plan again to leave)", false)
	} else {
		c.setMessage("plan mode off: every tool runs again", false)
	}
	c.refreshStatus()
}

package tui

import (
	"sync/atomic"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/views"
)

// Plan mode (soul/plan.go) in the workspace: /plan and Shift-Tab in the
// input switch it, the status bar shows PLAN, and the model's
// ExitPlanMode comes as an approval (the plan shown whole; approve, keep
// planning with feedback, reject). It is the workspace's mode, as yolo is
// a work dir's: a session opened or started while it is on is in it.

// planMode switches the workspace's plan mode; the mode itself is the
// Controller's (Controller.plan: every session opened reads it).
type planMode struct {
	c planModeDeps
}

// planModeDeps is what the switch reaches besides the common: the mode.
type planModeDeps struct {
	featureCommon
	on *atomic.Bool // Controller.plan
}

func (c *Controller) initPlan() {
	c.plan.Store(c.opts.Soul.Plan)
	pm := &planMode{c: planModeDeps{featureCommon: c.common(), on: &c.plan}}
	c.commands.add(Command{Name: "/plan", Description: "plan mode on/off: only read-only tools run until you approve the model's plan (Shift-Tab in the input)", Run: func(string) { pm.onUIToggle() }})
	// Before "previous pane": in the input, Shift-Tab is plan mode, as in
	// kimi-cli and Claude Code.
	toggle := globalBinding{KeyBinding: views.KeyBinding{Keys: []views.Key{views.K(tcell.KeyBacktab)}, Description: "plan mode on/off (in the input; elsewhere: previous pane)", Handler: pm.onUIToggle, Visible: true},
		When: func() bool { return c.app.GetFocus() == c.input }}
	c.keys = append([]globalBinding{toggle}, c.keys...)
}

// onUIToggle switches plan mode for the open session's soul and the
// sessions started after.
func (pm *planMode) onUIToggle() {
	c := pm.c
	if c.holds(ruleReadOnly) {
		c.setMessage("plan mode: this workspace runs nothing (read-only)", true)
		return
	}
	on := !c.on.Load()
	c.on.Store(on)
	if o := c.cur(); o != nil && o.soul != nil {
		s := o.soul
		c.onWorker(func() { s.SetPlanMode(on) }) // its StatusUpdate comes back through the sink
	}
	if on {
		c.setMessage("plan mode on · Shift-Tab or /plan to leave · only read-only tools run; the model shows its plan for your approval", false)
	} else {
		c.setMessage("plan mode off: every tool runs again", false)
	}
	c.refreshStatus()
}

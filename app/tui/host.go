package tui

import (
	"context"

	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// What a feature controller gets from the core. As lazygit's controllers
// receive a ControllerCommon instead of the Gui, each feature struct here
// holds a small deps struct of its own: the featureCommon every feature
// gets, the views it owns or draws on, the other features it talks to (as
// narrow interfaces), and an interface of the few Controller methods it
// calls beyond the common ones. No feature holds the Controller itself
// (TestNoFeatureHoldsTheController), so what a feature can reach is written
// in one place, next to it; and the Controller keeps only the wiring and
// the state no single feature owns (TestControllerKeepsOnlyTheCore).

// featureCommon is what every feature gets (lazygit's ControllerCommon):
// the core's services and the shared handles. Controller.common builds it.
type featureCommon struct {
	core
	*messageLine
	*confirmer
	themeReader
	ctx   context.Context // cancelled when the workspace shuts down
	db    *store.DB
	app   *tview.Application
	pages *pageStack // the overlays above the workspace
}

// core is the services every feature may call besides the status
// messages (messageLine, messages.go): the goroutines, the status line,
// the disabled rules and the open session (nil before a new session's
// first prompt).
type core interface {
	threads
	statusLine
	rules
	cur() *openSession
}

// common is what every feature gets (wiring).
func (c *Controller) common() featureCommon {
	return featureCommon{core: c, messageLine: c.msg, confirmer: c.confirm, themeReader: c.theme, ctx: c.ctx, db: c.db, app: c.app, pages: c.pages}
}

// threads moves work between the UI goroutine and workers (thread.go):
// onUIThreadAsync and post queue on the ordered event pipeline, onWorker
// starts a goroutine shutdown waits for.
type threads interface {
	onUIThreadAsync(f func())
	onWorker(f func())
	post(e soul.Event)
}

// statusLine is the status bar's model (controller.go): a feature sets its
// part of it, then refreshStatus draws it (UI).
type statusLine interface {
	statusModel() *views.Status
	refreshStatus()
}

// rules say whether an action is disabled now, and refuse it in one line
// (disabled.go).
type rules interface {
	holds(r rule) bool
	firstHolding(rules []rule) rule
	refusal(what string, r rule) string
	refuse(what string, rules ...rule) bool
}

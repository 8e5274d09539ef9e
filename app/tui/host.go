package tui

import (
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/views"
)

// What a feature controller gets from the core. As lazygit's controllers
// receive a ControllerCommon instead of the Gui, each feature struct here
// holds a small deps struct of its own: the views it owns or draws on, and
// an interface of the few Controller methods it calls. No feature holds the
// Controller itself (TestNoFeatureHoldsTheController), so what a feature
// can reach is written in one place, next to it.

// notices shows status messages (messages.go).
type notices interface {
	setMessage(text string, isErr bool)
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
	refuse(what string, rules ...rule) bool
}

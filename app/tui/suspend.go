package tui

import (
	"syscall"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/views"
)

// suspender is the Ctrl-Z feature: the workspace gives the terminal back
// and stops like any job under shell job control, then redraws on fg.
//
// tcell puts the terminal in raw mode, so Ctrl-Z arrives as a key rather
// than as SIGTSTP from the terminal; the workspace must stop itself.
type suspender struct {
	app *tview.Application
	// stop blocks until the process is continued. It sends SIGTSTP to
	// rewind's process group (the shell's job), as the terminal would;
	// the Shell tool's commands run in their own groups and keep running.
	stop func()
}

func newSuspender(app *tview.Application) *suspender {
	return &suspender{app: app, stop: func() { _ = syscall.Kill(0, syscall.SIGTSTP) }}
}

// binding is Ctrl-Z, which always suspends (a session delete is undone
// with Ctrl-Y in the session lists or /undelete).
func (s *suspender) binding() globalBinding {
	return globalBinding{
		KeyBinding: views.KeyBinding{Keys: []views.Key{views.K(tcell.KeyCtrlZ)}, Description: "suspend rewind (fg resumes it)", Handler: s.onUISuspend, Visible: true},
		Overlays:   true, // as in any terminal program, a dialog open or not
	}
}

// onUISuspend restores the terminal, stops, and redraws once continued.
func (s *suspender) onUISuspend() {
	s.app.Suspend(s.stop)
}

package tui

import (
	"fmt"

	"github.com/rewind-agent/rewind/views"
)

// The "Session in use" question: a session another live process writes
// opens read-only, and one question offers to watch it, fork it, or go
// back (quit at startup). Never a second writer.

// inUseQuestion owns the question on screen (UI goroutine only).
type inUseQuestion struct {
	c     inUseDeps
	offer inUseOffer
}

// inUseDeps is what the question reaches besides the common: the watcher
// (whether /continue can take the session over once its writer left) and
// the Controller's dialog and session switches.
type inUseDeps struct {
	featureCommon
	inUseHost
	watch interface{ canContinue() bool }
}

type inUseHost interface {
	onUIFork(id string)
	onUIOpenSession(id string)
	onUINewSession()
	onUIQuit()
}

func (c *Controller) initInUse() {
	c.inUse = &inUseQuestion{c: inUseDeps{featureCommon: c.common(), inUseHost: c, watch: c.watch}}
}

// onUIOffer asks what to do with a session another live process
// writes: never a second writer. From inside the workspace (back is the
// session it left, "" a new one) the third choice goes back, and so does
// Esc; at startup (--session) it quits, and Esc keeps watching: Esc only
// ever closes a dialog (docs/DECISIONS.md).
func (q *inUseQuestion) onUIOffer(id string, pid int, fromWorkspace bool, back string) {
	c := q.c
	msg := fmt.Sprintf("Session %s is open for writing in another rewind process (pid %d).\n\nWatch it read-only (it updates live), or fork it into a new session you can write to.", shortID(id), pid)
	third := views.Choice{Label: "Quit", Key: 'q', Dangerous: true}
	if fromWorkspace {
		third = views.Choice{Label: "Back to your session", Key: 'b'}
		if back == "" {
			third.Label = "Back to a new session"
		}
	}
	c.showConfirm("Session in use", msg, []views.Choice{
		{Label: "Watch read-only", Key: 'w'},
		{Label: "Fork into a new session", Key: 'f'},
		third,
	}, 0, func(i int) {
		q.offer = inUseOffer{}
		switch {
		case i == 0, i < 0 && !fromWorkspace:
			c.setMessage("watching read-only: the other process is the writer", false)
		case i == 1:
			c.onUIFork(id)
		case fromWorkspace && back != "":
			c.setMessage("back to your session", false) // not the watch's news
			c.onUIOpenSession(back)
		case fromWorkspace:
			c.onUINewSession()
		default:
			c.onUIQuit()
		}
	})
	q.offer = inUseOffer{id: id, seq: c.confirmShown()}
}

// inUseOffer is the "Session in use" question on screen: the session and
// the confirm dialog showing it.
type inUseOffer struct {
	id  string
	seq int
}

// onUIWriterLeft takes down the "Session in use" question about id
// once nobody writes it: its choices were about a writer that is gone.
func (q *inUseQuestion) onUIWriterLeft(id string) {
	c := q.c
	if q.offer.id != id || q.offer.seq != c.confirmShown() || c.pages.top() != "confirm" {
		return
	}
	q.offer = inUseOffer{}
	c.pages.pop("confirm")
	msg := "the other process stopped writing this session"
	if c.watch.canContinue() {
		msg += ": /continue writes it here, /fork copies it"
	}
	c.setMessage(msg, false)
}

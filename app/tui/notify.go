package tui

import (
	"context"
	"strings"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul"
)

// Notifications: a run this workspace writes or watches finished, failed or
// waits for approval. Options.Notify picks the terminal bell (default),
// OSC 9 + OSC 777 desktop notifications, or nothing. They are written
// after a draw, on the UI goroutine, so they never land inside tcell's
// output.

type notifyKind int

const (
	notifyFinished notifyKind = iota
	notifyFailed
	notifyApproval
)

func (k notifyKind) String() string {
	switch k {
	case notifyFinished:
		return "run finished"
	case notifyFailed:
		return "run failed"
	}
	return "waiting for approval"
}

// notifier queues notifications and writes them after the next draw (UI
// goroutine).
type notifier struct {
	c     notifierDeps
	mode  string   // Options.Notify: "osc", "off", else the bell
	queue []string // written after the next draw
}

// notifierDeps is what the notice of a run's end reaches besides the
// common: the approvals (a rejection made here is no news).
type notifierDeps struct {
	featureCommon
	ap *approvals
}

// initNotify installs the writer of queued notifications (New), after
// the after-draw hook another feature set (copy.go's clipboard).
func (c *Controller) initNotify() {
	c.notes.c = notifierDeps{featureCommon: c.common(), ap: c.ap}
	prev := c.app.GetAfterDrawFunc()
	c.app.SetAfterDrawFunc(func(s tcell.Screen) {
		if prev != nil {
			prev(s)
		}
		c.notes.onUIAfterDraw(s)
	})
}

// notify queues a notification for the next draw (UI).
func (n *notifier) notify(kind notifyKind, detail string) {
	if n.mode == "off" {
		return
	}
	n.queue = append(n.queue, kind.String()+": "+detail)
}

// onUIRunEnded announces the end of a run (UI). A run ended by a
// rejection or an interrupt made here is no news to the one who made it.
func (n *notifier) onUIRunEnded(ev soul.RunEnd) {
	c := n.c
	rejectedHere := c.ap.rejectedHere
	c.ap.rejectedHere = false
	switch {
	case ev.Reason == "interrupted", ev.Reason == "rejected" && rejectedHere:
		return
	}
	o, status := c.cur(), c.statusModel()
	if status.SessionTitle != "" || o == nil {
		n.notifyRunEnded(ev, status.SessionTitle)
		return
	}
	// The first run gives a new session its title (the soul sets it from
	// the prompt), which this screen has not read yet.
	c.onWorker(func() {
		sess, err := c.db.GetSession(context.WithoutCancel(c.ctx), o.sess.ID)
		c.onUIThreadAsync(func() {
			if err == nil && sess.Title != "" && c.cur() == o && status.SessionTitle == "" {
				status.SessionTitle = sess.Title
				c.refreshStatus()
			}
			n.notifyRunEnded(ev, sess.Title)
		})
	})
}

// notifyRunEnded queues the notification of a run's end in session title.
func (n *notifier) notifyRunEnded(ev soul.RunEnd, title string) {
	if ev.Reason == "done" {
		n.notify(notifyFinished, title)
		return
	}
	n.notify(notifyFailed, ev.Reason+" · "+title)
}

// onUIAfterDraw writes the queued notifications (tview's after-draw hook).
func (n *notifier) onUIAfterDraw(s tcell.Screen) {
	if len(n.queue) == 0 {
		return
	}
	notes := n.queue
	n.queue = nil
	if n.mode != "osc" {
		s.Beep()
		return
	}
	tty, ok := s.Tty()
	if !ok {
		s.Beep()
		return
	}
	for _, n := range notes {
		tty.Write(oscNotification(n))
	}
}

// oscNotification is a desktop notification as OSC 9 (iTerm2, WezTerm,
// Windows Terminal, kitty) followed by OSC 777 (rxvt, foot, Ghostty…);
// terminals ignore the one they do not know. Control characters are
// dropped so the text cannot end the sequence early.
func oscNotification(text string) []byte {
	text = strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return -1
		}
		return r
	}, text)
	if len(text) > 200 {
		text = text[:200]
	}
	return []byte("\x1b]9;rewind: " + text + "\x07\x1b]777;notify;rewind;" + text + "\x07")
}

package tui

import (
	"fmt"
	"strings"
	"time"
)

// Watching (rewind watch, or a session whose lease another live process
// holds): poll.go asks for the records after the last seq read whenever
// store.SessionVersion changes (every versionPoll, one primary-key lookup,
// from a ticker owned by the controller's context; followview.go adds
// them). This file adds what a watcher needs to know about the writer:
// whether it is alive (store.LiveLease), and the elapsed time and step of
// its current run, which the records read show (runTracker): the run
// started at the last user message, and every step after it begins with a
// checkpoint. It reads no view of its own.
// While watching, the input's label says so and names the writer's state;
// prompts are refused (commands.go) but /help, /theme and /exit still work,
// so the input stays editable rather than disabled.

// noWriterLabel is the mode of a watched session no process has written
// since the watcher opened it (a writer that left is "writer gone").
const noWriterLabel = "WATCH · no writer"

// writerGoneLabel is the mode of a watched session whose writer left.
const writerGoneLabel = "WATCH · writer gone"

// writerLeftLabel is the mode of a watched session whose writer left it
// for another session: its process still runs.
const writerLeftLabel = "WATCH · writer left"

// writerPoll is how often a watcher checks the writer's lease.
const writerPoll = time.Second

// runState is what a watcher shows about the writer's current run.
type runState struct {
	running bool
	started time.Time
	step    int
}

// onWorkerFollowWriter checks the writer of a watched session every
// writerPoll and posts the label, step and elapsed time.
func (w *watcher) onWorkerFollowWriter() {
	c := w.c
	next := time.NewTimer(versionPoll) // quickly at first, then every writerPoll
	defer next.Stop()
	shown := false   // a watch status was posted: the UI shows the watch label
	known := false   // the open session's records were read (followview.go)
	var sawID string // the session whose writer was seen alive, if any
	var last watchStatus
	var lastOpen *openSession // the visit last posted for: a new one's label starts empty (onUIInstalled)
	for {
		if o := c.cur(); o != nil && o.soul == nil && c.uiRunning() {
			c.pollStats.writerChecks.Add(1)
			pid, alive, err := c.db.LiveLease(c.ctx, o.sess.ID)
			// The run as the records the version poll read show it (with
			// the live channel up the writer's events say it better).
			var rs runState
			rs, known = w.runState(o.sess.ID)
			if alive || w.liveOn(o) {
				sawID = o.sess.ID
			}
			label := noWriterLabel
			switch {
			case err != nil:
				label = "WATCH · writer unknown"
			case alive:
				label = fmt.Sprintf("WATCH · writer pid %d alive", pid)
			case sawID == o.sess.ID:
				label = writerGoneLabel
			case c.setup:
				label = noModelLabel // opened to read: no model is configured
			}
			st := watchStatus{id: o.sess.ID, label: label, running: alive && rs.running, rs: rs}
			// Only a change is posted: each post redraws the screen (a
			// running writer's clock ticks on its own).
			if !shown || st != last || o != lastOpen {
				c.onUIThreadAsync(func() { w.onUIWatchStatus(st.id, st.label, st.running, st.rs) })
			}
			shown, last, lastOpen = true, st, o
		} else if o != nil && o.soul != nil && shown {
			// Once, not every lap: each post redraws the screen.
			c.onUIThreadAsync(w.onUIStopWatching)
			shown = false
		}
		wait := c.polls.writer
		if !known {
			wait = versionPoll
		}
		next.Reset(wait)
		select {
		case <-c.ctx.Done():
			return
		case <-next.C:
		}
	}
}

// watchStatus is what the writer check posts.
type watchStatus struct {
	id, label string
	running   bool
	rs        runState
}

// onUIWatchStatus shows the writer's state in the status bar and the input.
func (w *watcher) onUIWatchStatus(id, label string, running bool, rs runState) {
	c := w.c
	o := c.cur()
	if o == nil || o.sess.ID != id || o.soul != nil {
		return
	}
	if w.liveOn(o) && strings.HasPrefix(w.label, "WATCH · live") {
		label = w.label // the live channel's: it knows better
	}
	if label == writerGoneLabel && w.label == writerLeftLabel {
		label = w.label // the live channel saw the process still running
	}
	w.watching, w.label = true, label
	switch label {
	case noModelLabel:
		c.input.SetPlaceholder(setupPlaceholder)
		c.refreshStatus()
		return
	case noWriterLabel, writerGoneLabel, writerLeftLabel:
		c.inUse.onUIWriterLeft(id)
		ph := "nobody writes this session now"
		switch label {
		case writerGoneLabel:
			ph = "read-only: the writer is gone"
		case writerLeftLabel:
			ph = "read-only: the writer left it"
		}
		if w.canContinue() {
			ph += " · /continue writes it here, /fork copies it"
		} else {
			ph += " · prompts are not sent (no model to write with)"
		}
		c.input.SetPlaceholder(ph)
	default:
		// The status bar names the writer (its pid, alive or live).
		ph := "read-only: another rewind process writes this session · prompts are not sent"
		if w.importing.Load() && w.origin != "" {
			ph = importingPlaceholder(w.origin)
		} else if w.back != "" && w.visiting == id {
			ph = "Esc: back to your session · read-only: another rewind process writes it"
		}
		c.input.SetPlaceholder(ph)
	}
	// The clock runs from w.started (refreshStatus), which the live
	// channel sets while it is up: it knows whether the writer runs.
	st := c.statusModel()
	st.Elapsed = 0
	if !w.liveOn(o) {
		w.started, st.Step = time.Time{}, 0
		if running {
			w.started, st.Step = rs.started, rs.step
		}
	}
	c.refreshStatus()
}

// onUIStopWatching drops the watch label once the workspace writes again
// (after a fork or a switch to another session).
func (w *watcher) onUIStopWatching() {
	if !w.watching {
		return
	}
	w.watching, w.label = false, ""
	w.c.statusModel().Elapsed = 0
	w.c.refreshStatus()
}

// readOnlyWhy says why the watched session cannot be changed here, for
// the refusal of a prompt or of a command that writes.
func (w *watcher) readOnlyWhy() string {
	if o := w.c.cur(); o != nil && w.c.demoElsewhere(o.sess) {
		return demoReadOnly
	}
	if o := w.c.cur(); o != nil && o.missingDir != "" {
		return "read-only: its work dir " + o.missingDir + " is not on this machine · open it again (Ctrl-O) to fork it into " + w.c.startDir
	}
	switch w.label {
	case noModelLabel:
		return setupRefusal
	case noWriterLabel, writerGoneLabel, writerLeftLabel:
		if !w.canContinue() {
			return "read-only: no process writes it now, and no model is configured here"
		}
		return "read-only: no process writes it now · /continue writes it here"
	}
	return "read-only: another process writes it · fork it to write (f on a generation in the timeline, or /fork)"
}

// modeLabel is the status bar's mode while read-only.
func (w *watcher) modeLabel() string {
	if w.label != "" {
		return w.label
	}
	return "WATCH"
}

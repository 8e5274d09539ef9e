package tui

import "time"

// The "database busy" notice: a write of this workspace waits for another
// process's write lock (a long import, a sqlite3 shell). The poll loop
// reports the wait (leaseWatch.checkBusy); a prompt sent meanwhile says
// how to stop waiting.

// dbBusyTTL bounds how long the "database busy" status stays without news;
// checkBusy clears it as soon as the lock is free.
const dbBusyTTL = time.Hour

// dbBusyNotice shows the wait (UI goroutine only).
type dbBusyNotice struct {
	c    featureCommon
	busy bool // a write waits for another process's write lock
}

// onUIChanged shows that a write waits for another process's write
// lock, and clears it when it is over. again: the wait goes on; the
// status is shown again only if another message replaced it and has
// expired.
func (n *dbBusyNotice) onUIChanged(busy, again bool) {
	c := n.c
	if again && (c.showsAbout(topicDBBusy) || c.fresh()) {
		return
	}
	n.busy = busy
	if !busy {
		if c.showsAbout(topicDBBusy) {
			c.clear()
			c.refreshStatus()
		}
		return
	}
	text := "database busy (another process is writing): waiting…"
	if c.holds(ruleRunActive) {
		text += " · Esc stops waiting"
	}
	c.setAbout(topicDBBusy, text, false, dbBusyTTL)
	c.refreshStatus()
}

// onUIPromptSent says, while writes wait, how to stop a prompt's wait.
func (n *dbBusyNotice) onUIPromptSent() {
	if n.busy {
		n.onUIChanged(true, false)
	}
}

package tui

import "time"

// setNews is setMessage for news a run's end must not wipe (an answer
// from a watcher): it stays its whole messageTTL, whereas progress
// ("compacting…", a retry) is cleared when the run ends well (UI).
func (c *Controller) setNews(text string) {
	c.setMessage(text, false)
	c.msgKeep = true
}

// setMessageFor shows a transient status-bar message for exactly ttl: a
// timer clears it then, unless a newer message replaced it (UI).
func (c *Controller) setMessageFor(text string, isErr bool, ttl time.Duration) {
	c.status.SetMessage(text, isErr)
	c.msgKeep = false
	c.msgUntil = time.Now().Add(ttl)
	c.msgSeq++
	seq := c.msgSeq
	time.AfterFunc(ttl, func() {
		c.onUIThreadAsync(func() {
			if c.msgSeq == seq {
				c.status.ClearMessage()
				c.msgUntil = time.Time{}
			}
		})
	})
}

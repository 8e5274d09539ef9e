package tui

import "time"

// setMessageFor shows a transient status-bar message for exactly ttl: a
// timer clears it then, unless a newer message replaced it (UI).
func (c *Controller) setMessageFor(text string, isErr bool, ttl time.Duration) {
	c.status.SetMessage(text, isErr)
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

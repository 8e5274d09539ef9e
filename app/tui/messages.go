package tui

import (
	"slices"
	"time"

	"github.com/rewind-agent/rewind/views"
)

// setNews is setMessage for news a run's end must not wipe (an answer
// from a watcher): it stays its whole messageTTL, whereas progress
// ("compacting…", a retry) is cleared when the run ends well (UI).
func (c *Controller) setNews(text string) {
	c.setMessage(text, false)
	c.msgKeep = true
}

// notice is a status-bar message as it was set, kept for /status: the bar
// cuts a long one to its width and clears it after a while.
type notice struct {
	at    time.Time
	text  string
	isErr bool
}

// maxNotices bounds the notices /status lists.
const maxNotices = 8

// addNotice keeps a notice for /status (a repeat of the last one once).
func (c *Controller) addNotice(text string, isErr bool) {
	if n := len(c.notices); n > 0 && c.notices[n-1].text == text {
		return
	}
	c.notices = append(c.notices, notice{at: time.Now(), text: text, isErr: isErr})
	if len(c.notices) > maxNotices {
		c.notices = c.notices[1:]
	}
}

// setInfoUnlessError shows an info message unless an error is showing,
// which it would hide; either way /status lists it (UI).
func (c *Controller) setInfoUnlessError(text string) {
	if msg, isErr := c.status.Message(); isErr && msg != "" {
		c.addNotice(text, false)
		return
	}
	c.setMessage(text, false)
}

// setMessageFor shows a transient status-bar message for exactly ttl: a
// timer clears it then, unless a newer message replaced it (UI). The
// message is also kept, whole, among the notices /status lists.
func (c *Controller) setMessageFor(text string, isErr bool, ttl time.Duration) {
	c.addNotice(text, isErr)
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

// clearMessageOf clears the status bar's message if it is still the one
// set as seq: progress that is over, a warning about a session left.
func (c *Controller) clearMessageOf(seq int) {
	if seq != 0 && c.msgSeq == seq {
		c.status.ClearMessage()
		c.msgUntil = time.Time{}
	}
}

// info shows text as an info banner at the end of the conversation (UI).
func (c *Controller) info(text string) {
	c.conv.Append(views.Item{Kind: views.ItemBanner, Banner: views.BannerInfo, Text: text})
	c.conv.ScrollToEnd()
}

// noticeLog is a copy of the last notices, oldest first (/status) (UI).
func (c *Controller) noticeLog() []notice { return slices.Clone(c.notices) }

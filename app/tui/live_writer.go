package tui

import (
	"github.com/rewind-agent/rewind/app/live"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/store"
)

// The writer's side of the live channel (app/live): a session this
// workspace writes is published on its socket from the moment it is leased
// until it is released, so `rewind watch`, another workspace and `rewind
// runs` see the run as it happens. Approval answers from watchers (when
// Options.AllowRemoteApproval) close the local prompt and say who answered.

// onWorkerPublish starts publishing sess (worker). Failing to publish only
// costs live watching: the note says so, the session still opens.
func (c *attacher) onWorkerPublish(sess store.Session, workDir string) (*live.Publisher, string) {
	if c.opts.Home == "" {
		return nil, ""
	}
	pub, err := live.Listen(live.Options{
		Home:                c.opts.Home,
		Hello:               live.Hello{SessionID: sess.ID, Title: sess.Title, WorkDir: workDir, Model: c.opts.Model},
		AllowRemoteApproval: c.opts.AllowRemoteApproval,
		OnRemoteAnswer: func(req *soul.ApprovalRequest, a live.Answer) {
			if f := c.opts.ApprovalAnswered; f != nil {
				f(req.ToolCallID, a.PID)
			}
			c.later(func() { c.remoteAnswered(req, a) })
		},
	})
	if err != nil {
		return nil, "watching this session from elsewhere is off: " + oneLine(err.Error(), 120)
	}
	return pub, ""
}

// publishingSink is the soul's sink for an open session: every event goes
// to the watchers first, then to this workspace.
func (c *attacher) publishingSink(pub *live.Publisher) soul.Sink {
	if pub == nil {
		return c.sink
	}
	return func(e soul.Event) {
		pub.Publish(e)
		c.sink(e)
	}
}

// closePublisher stops publishing o (any goroutine).
func closePublisher(o *openSession) {
	if o != nil && o.pub != nil {
		o.pub.Close()
	}
}

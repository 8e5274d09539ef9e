package tui

import (
	"fmt"

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
func (c *Controller) onWorkerPublish(sess store.Session, workDir string) (*live.Publisher, string) {
	if c.opts.Home == "" {
		return nil, ""
	}
	pub, err := live.Listen(live.Options{
		Home:                c.opts.Home,
		Hello:               live.Hello{SessionID: sess.ID, Title: sess.Title, WorkDir: workDir, Model: c.opts.Model},
		AllowRemoteApproval: c.opts.AllowRemoteApproval,
		OnRemoteAnswer: func(req *soul.ApprovalRequest, a live.Answer) {
			c.onUIThreadAsync(func() { c.onUIRemoteAnswered(req, a) })
		},
	})
	if err != nil {
		return nil, "watching this session from elsewhere is off: " + oneLine(err.Error(), 120)
	}
	return pub, ""
}

// publishingSink is the soul's sink for an open session: every event goes
// to the watchers first, then to this workspace.
func (c *Controller) publishingSink(pub *live.Publisher) soul.Sink {
	if pub == nil {
		return c.onWorkerSink
	}
	return func(e soul.Event) {
		pub.Publish(e)
		c.onWorkerSink(e)
	}
}

// answerApproval answers req from this screen and tells the watchers (UI).
func (c *Controller) answerApproval(req *soul.ApprovalRequest, d soul.ApprovalDecision, feedback string) {
	if !req.Answer(d, feedback) {
		return // a watcher answered first
	}
	if o := c.cur(); o != nil && o.pub != nil {
		o.pub.AnnounceAnswer(req.ToolCallID, d, "the writer")
	}
}

// onUIRemoteAnswered closes the approval prompt a watcher answered.
func (c *Controller) onUIRemoteAnswered(req *soul.ApprovalRequest, a live.Answer) {
	c.setMessage(fmt.Sprintf("%s of %s answered from a watcher (pid %d): %s", req.Action, req.Tool, a.PID, decisionText(a.Decision)), false)
	for i, p := range c.pendingApp {
		if p == req {
			c.pendingApp = append(c.pendingApp[:i], c.pendingApp[i+1:]...)
			return
		}
	}
	if c.curApp == req {
		c.onUINextApproval()
	}
}

func decisionText(d soul.ApprovalDecision) string {
	switch d {
	case soul.ApproveOnce:
		return "approved once"
	case soul.ApproveForSession:
		return "approved for the session"
	case soul.RejectWithFeedback:
		return "rejected with feedback"
	}
	return "rejected"
}

// closePublisher stops publishing o (any goroutine).
func closePublisher(o *openSession) {
	if o != nil && o.pub != nil {
		o.pub.Close()
	}
}

package tui

import (
	"time"

	"github.com/rewind-agent/rewind/store"
)

// Poll periods: the open session's version (one primary-key lookup), the
// session list, and the clock.
const (
	versionPoll  = 100 * time.Millisecond
	sessionsPoll = 2 * time.Second
	tickPeriod   = time.Second
	sessionLimit = 500
)

// startPollers starts the background loops; they stop with c.ctx.
func (c *Controller) startPollers() {
	c.onWorker(func() {
		ver := time.NewTicker(versionPoll)
		list := time.NewTicker(sessionsPoll)
		tick := time.NewTicker(tickPeriod)
		defer ver.Stop()
		defer list.Stop()
		defer tick.Stop()
		var last store.Version
		var lastID string
		var lost *openSession
		for {
			select {
			case <-c.ctx.Done():
				return
			case <-ver.C:
				o := c.cur()
				if o == nil {
					continue
				}
				if o.lease != nil && lost != o {
					if err := o.lease.Err(); err != nil {
						lost = o
						c.onUIThreadAsync(func() { c.onUILeaseLost(o, err) })
					}
				}
				v, err := c.db.SessionVersion(c.ctx, o.sess.ID)
				if err != nil || (v == last && o.sess.ID == lastID) {
					continue
				}
				last, lastID = v, o.sess.ID
				// A writer's own conversation is live from its events; a
				// watcher (no soul) follows the other process's writes.
				// Mid-run, a watcher's conversation follows the writer's
				// live channel (watch.go), which reloads at step boundaries.
				ev, err := c.loadSessionView(c.ctx, o.sess.ID, o.soul != nil || c.wl.inRun.Load())
				if err == nil {
					c.post(ev)
				}
			case <-list.C:
				c.br.onWorkerListPane()
			case <-tick.C:
				c.post(evTick{})
			}
		}
	})
}

// onUIThreadAsync is onUIThread for work that can be dropped: posts through
// the pipeline so it lands in the next batch.
func (c *Controller) onUIThreadAsync(f func()) { c.post(evFunc{f}) }

// evFunc runs f on the UI goroutine in order with the other events.
type evFunc struct{ f func() }

func (evFunc) EventType() string { return "tui.func" }

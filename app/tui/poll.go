package tui

import (
	"time"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
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
		c.onWorkerListSessions()
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
				ev, err := loadSessionView(c.ctx, c.db, o.sess.ID, o.soul != nil)
				if err == nil {
					c.post(ev)
				}
			case <-list.C:
				c.onWorkerListSessions()
			case <-tick.C:
				c.post(evTick{})
			}
		}
	})
}

// onWorkerListSessions posts the session pane's list when it changed.
func (c *Controller) onWorkerListSessions() {
	rows, sig, err := listSessionRows(c.ctx, c.db, sessionLimit)
	if err != nil || sig == c.loadSessSig() {
		return
	}
	c.storeSessSig(sig)
	c.post(evSessions{rows: rows})
}

// onWorkerPreview loads the last n messages of a session for a session
// list (the side pane or the browser) and hands them back to it.
func (c *Controller) onWorkerPreview(list *views.SessionList, id string, n int) {
	v, err := c.db.View(c.ctx, id)
	if err != nil {
		return
	}
	text := previewText(v, n)
	c.onUIThreadAsync(func() { list.SetPreview(id, text) })
}

// onWorkerSearch runs a full-text search for a session list (the side pane
// or the browser) and hands the hits back to it.
func (c *Controller) onWorkerSearch(list *views.SessionList, q string) {
	hits, err := c.db.Search(c.ctx, store.SearchOptions{Query: q, Limit: 200})
	if err != nil {
		c.post(evNote{text: "search: " + err.Error(), isErr: true})
		return
	}
	out := make([]views.SearchHit, len(hits))
	for i, h := range hits {
		out[i] = views.SearchHit{SessionID: h.SessionID, Title: h.Title, WorkDir: h.WorkDir, Gen: h.Gen, Seq: h.Seq, Role: h.Role, Snippet: h.Snippet, Time: h.CreatedAt}
	}
	c.onUIThreadAsync(func() { list.SetHits(q, out) })
}

// onUIThreadAsync is onUIThread for work that can be dropped: posts through
// the pipeline so it lands in the next batch.
func (c *Controller) onUIThreadAsync(f func()) { c.post(evFunc{f}) }

// evFunc runs f on the UI goroutine in order with the other events.
type evFunc struct{ f func() }

func (evFunc) EventType() string { return "tui.func" }

func (c *Controller) loadSessSig() string {
	c.sigMu.Lock()
	defer c.sigMu.Unlock()
	return c.sessSig
}

func (c *Controller) storeSessSig(s string) {
	c.sigMu.Lock()
	c.sessSig = s
	c.sigMu.Unlock()
}

package tui

import (
	"fmt"
	"strings"
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

// onWorkerListSessions posts the session list.
func (c *Controller) onWorkerListSessions() {
	list, err := c.db.ListSessions(c.ctx, store.ListOptions{Limit: sessionLimit})
	if err != nil {
		return
	}
	rows := make([]views.SessionRow, len(list))
	var sig strings.Builder
	for i, s := range list {
		title := s.Title
		if title == "" {
			title = "(untitled)"
		}
		rows[i] = views.SessionRow{ID: s.ID, Title: title, WorkDir: s.WorkDir, Updated: s.UpdatedAt,
			Messages: s.Messages, Tokens: s.Tokens, Generations: s.Generations}
		fmt.Fprintf(&sig, "%s|%d|%s|%d;", s.ID, s.UpdatedAt.UnixMilli(), s.Title, s.Generations)
	}
	if sig.String() == c.loadSessSig() {
		return
	}
	c.storeSessSig(sig.String())
	c.post(evSessions{rows: rows})
}

// onWorkerPreview loads the last messages of a session for the list.
func (c *Controller) onWorkerPreview(id string) {
	v, err := c.db.View(c.ctx, id)
	if err != nil {
		return
	}
	items := viewItems(v)
	if len(items) > 6 {
		items = items[len(items)-6:]
	}
	var b strings.Builder
	for _, it := range items {
		switch it.Kind {
		case views.ItemUser:
			b.WriteString("> ")
		case views.ItemTool:
			b.WriteString("⚙ " + it.ToolName + " " + it.KeyArg + "\n")
			continue
		}
		b.WriteString(oneLine(it.Text, 200))
		b.WriteString("\n")
	}
	text := b.String()
	c.onUIThreadAsync(func() { c.sessions.SetPreview(id, text) })
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

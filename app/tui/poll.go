package tui

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/rewind-agent/rewind/store"
)

// Poll periods: the open session's version, the session list, and the
// clock. Each poll first asks the database's data version (a PRAGMA on a
// held connection, no table read) and queries only when something was
// committed since, so an idle workspace reads nothing; the list poll then
// asks the list's stamp (store.ListVersion), which lease heartbeats do not
// move, and re-reads the list only when it moved; the list is also
// re-read every idleListRefresh for its relative ages. The clock ticks every
// second only while a run is timed (the status bar's elapsed time).
const (
	versionPoll     = 100 * time.Millisecond
	sessionsPoll    = 2 * time.Second
	tickPeriod      = time.Second
	idleListRefresh = time.Minute
	sessionLimit    = 500
)

// pollPeriods are the poll loop's periods (and the open runs view's,
// runs.go, and the writer check's, follow.go), and how long a status
// message stays; tests shorten them.
type pollPeriods struct {
	version, sessions, tick, listRefresh, runs time.Duration
	writer                                     time.Duration // writerPoll
	message                                    time.Duration // messageTTL
	liveCheck                                  time.Duration // liveRetry: a live connection's check that its session is still open
}

var defaultPolls = pollPeriods{versionPoll, sessionsPoll, tickPeriod, idleListRefresh, runsPoll, writerPoll, messageTTL, liveRetry}

// pollStats counts the session-list polls and the reads they made, the
// runs-view pollers running, and the reads of the open session: whole
// views, and the records after a seq (followview.go), so the idle cost and
// the cost of following are visible (tests).
type pollStats struct {
	listPolls, listLoads, runsPollers atomic.Int64
	viewReads                         atomic.Int64 // whole views of the open session
	deltaReads                        atomic.Int64 // store.ViewSince calls
	deltaRecords                      atomic.Int64 // records they returned
	writerChecks                      atomic.Int64 // rounds of the writer check (follow.go)
	previews                          atomic.Int64 // session-list previews handed to the UI (browser.go)
	prependReread                     atomic.Int64 // records an earlier page made the timeline's turns read again (followview.go)
	adopts                            atomic.Int64 // whole reads posted and followed from (onWorkerAdopt)
}

// changeGate remembers the last data version a poll acted on.
type changeGate struct {
	last  int64
	known bool
}

// changed reports whether v differs from the last version seen (always true
// the first time, and when the version could not be read: err != nil).
func (g *changeGate) changed(v int64, err error) bool {
	if err != nil {
		return true
	}
	ch := !g.known || v != g.last
	g.last, g.known = v, true
	return ch
}

// startPollers starts the background loops; they stop with c.ctx.
func (c *Controller) startPollers() {
	p := c.polls
	c.onWorker(func() {
		ver := time.NewTicker(p.version)
		list := time.NewTicker(p.sessions)
		tick := time.NewTicker(p.tick)
		defer ver.Stop()
		defer list.Stop()
		defer tick.Stop()
		var last store.Version
		var lastID string
		var lw leaseWatch
		var verGate, listGate, stampGate changeGate
		var listOpen string
		var listAt time.Time
		for {
			select {
			case <-c.ctx.Done():
				return
			case <-ver.C:
				// While a write of ours waits for another process's lock
				// it holds the writer connection, which DataVersion needs
				// too: the polls pause (the lock holder's commits are read
				// after) so that the clock and the busy status go on.
				if lw.checkBusy(c) {
					continue
				}
				o := c.cur()
				if o == nil {
					continue
				}
				lw.check(c, o)
				// A session this workspace writes changes only by its own
				// commits (its lease keeps other writers out): counting them
				// costs no query, which is most of an idle writer's CPU at
				// ten polls a second. A watched one changes by anyone's, and
				// so does one whose lease was lost.
				changed := false
				if o.soul != nil && lw.lost != o {
					changed = verGate.changed(c.db.Writes(), nil)
				} else {
					changed = verGate.changed(c.dataVersion())
				}
				if !changed && o.sess.ID == lastID {
					continue
				}
				v, err := c.db.SessionVersion(c.ctx, o.sess.ID)
				if err != nil || (v == last && o.sess.ID == lastID) {
					continue
				}
				last, lastID = v, o.sess.ID
				// Only the records after the last seq read are loaded
				// (followview.go). A writer's own conversation is live from
				// its events; a watcher (no soul) follows the other
				// process's writes. Mid-run, a watcher's conversation
				// follows the writer's live channel (watch.go), which takes
				// the committed records at step boundaries.
				c.watch.onWorkerCatchUp(o, catchUp{conv: !c.watch.inRun.Load()}, -1)
			case <-list.C:
				if lw.busy {
					continue
				}
				c.pollStats.listPolls.Add(1)
				// A commit moves the data version, but most are not list
				// changes (another writer's lease heartbeat, every 2 s):
				// the list's own stamp tells.
				changed := listGate.changed(c.dataVersion()) && stampGate.changed(c.db.ListVersion(c.ctx))
				open := c.SessionID()
				if !changed && open == listOpen && time.Since(listAt) < p.listRefresh {
					continue
				}
				listOpen, listAt = open, time.Now()
				c.pollStats.listLoads.Add(1)
				c.br.onWorkerListPane()
			case <-tick.C:
				if c.ticking.Load() {
					c.post(evTick{})
				}
			}
		}
	})
}

// dataVersionWait bounds how long a poll waits for the writer connection
// DataVersion asks on: a write of this process may hold it for the busy
// timeout while another process holds the lock. A poll that gives up
// counts as a change (one read more), and the clock's ticks go on.
const dataVersionWait = 200 * time.Millisecond

func (c *Controller) dataVersion() (int64, error) {
	ctx, cancel := context.WithTimeout(c.ctx, dataVersionWait)
	defer cancel()
	return c.db.DataVersion(ctx)
}

// onUIThreadAsync is onUIThread for work that can be dropped: posts through
// the pipeline so it lands in the next batch.
func (c *Controller) onUIThreadAsync(f func()) { c.post(evFunc{f}) }

// evFunc runs f on the UI goroutine in order with the other events.
type evFunc struct{ f func() }

func (evFunc) EventType() string { return "tui.func" }

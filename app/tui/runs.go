package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/app/live"
	"github.com/rewind-agent/rewind/views"
)

// The runs feature: Ctrl-L or /runs shows every session a live rewind
// writes on this machine (app/live's sockets, as `rewind runs` does) with
// what its run is doing, full screen. While the view is open a worker
// re-reads the writers' hellos every runsPoll and the list follows (the
// selection stays on its session); closing the view stops it. Enter
// watches the selected run here, read-only; on the workspace's own session
// it just closes the view.

// runsPoll is how often the open runs view asks the writers what they do.
const runsPoll = time.Second

// runsPage names the runs view on the page stack.
const runsPage = "runs"

// runsView is the runs feature controller. Its fields are UI state.
type runsView struct {
	c    runsDeps
	list *views.RunList
	page *tview.Flex // the list above the status bar
}

// runsDeps is what the runs view reaches: the live channel's home and the
// database (titles), its page, the watcher its Enter hands a run to, the
// poll periods and counters, workers and notices.
type runsDeps struct {
	featureCommon
	runsHost
	home      string
	watch     *watcher
	polls     *pollPeriods
	pollStats *pollStats
}

type runsHost interface {
	SessionID() string
}

// initRuns registers Ctrl-L and /runs (New).
func (c *Controller) initRuns() {
	r := &runsView{list: views.NewRunList(), c: runsDeps{featureCommon: c.common(), runsHost: c, home: c.opts.Home,
		watch: c.watch, polls: &c.polls, pollStats: &c.pollStats}}
	c.runs = r
	c.theme.addThemed(r.list)
	c.help.addPane("Live runs (Ctrl-L)", r.list)
	r.page = tview.NewFlex().SetDirection(tview.FlexRow).AddItem(r.list, 0, 1, true).AddItem(c.status, 1, 0, false)
	r.list.SetOnWatch(r.onUIWatch)
	r.list.SetOnClose(func() { c.pages.pop(runsPage) })
	c.keys = append(c.keys, globalBinding{KeyBinding: views.KeyBinding{Keys: []views.Key{views.K(tcell.KeyCtrlL)},
		Description: "live runs on this machine (updates live; Enter watches one)", Handler: r.onUIOpen, Visible: true}})
	c.AddCommand(Command{Name: "/runs", Description: "live runs on this machine: state, step, elapsed, tokens; Enter watches one", Run: func(string) { r.onUIOpen() }})
}

// onUIOpen shows the runs view and starts its poller; closing the view
// stops it.
func (r *runsView) onUIOpen() {
	c := r.c
	if c.home == "" {
		c.setMessage("no rewind home: live runs cannot be listed", true)
		return
	}
	if c.pages.has(runsPage) {
		return
	}
	r.list.Reset()
	r.page.SetBackgroundColor(c.currentTheme().Background)
	ctx, cancel := context.WithCancel(c.ctx)
	c.pages.push(Page{Name: runsPage, Primitive: r.page,
		Start: func() { c.onWorker(func() { r.onWorkerPoll(ctx) }) },
		Stop:  cancel,
	})
}

// onWorkerPoll lists the live runs now and every polls.runs until ctx ends
// (the view closes), handing a changed list to the view.
func (r *runsView) onWorkerPoll(ctx context.Context) {
	c := r.c
	c.pollStats.runsPollers.Add(1)
	defer c.pollStats.runsPollers.Add(-1)
	tick := time.NewTicker(c.polls.runs)
	defer tick.Stop()
	sig, shown := "", false
	for {
		rows, err := r.onWorkerList(ctx)
		if s := runsSignature(rows, err); (s != sig || !shown) && ctx.Err() == nil {
			sig, shown = s, true
			c.onUIThreadAsync(func() {
				if ctx.Err() == nil {
					r.onUISetRuns(rows, err)
				}
			})
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// onWorkerList asks every live writer what it does, with the session's
// title from the database (a rename shows at once).
func (r *runsView) onWorkerList(ctx context.Context) ([]views.RunRow, error) {
	c := r.c
	hellos, err := live.List(ctx, c.home)
	if err != nil {
		return nil, fmt.Errorf("list live runs: %w", err)
	}
	own := c.SessionID()
	now := time.Now()
	rows := make([]views.RunRow, len(hellos))
	for i, h := range hellos {
		title := h.Title
		if s, err := c.db.GetSession(ctx, h.SessionID); err == nil && s.Title != "" {
			title = s.Title
		}
		rows[i] = views.RunRow{SessionID: h.SessionID, Title: h.RunTitle(title), WorkDir: h.WorkDir, State: h.Run.Label(),
			Activity: runActivity(h.Run.State), Step: h.Run.Step, Elapsed: h.Run.Elapsed(now), Tokens: h.Run.Tokens,
			Current: h.SessionID == own, RemoteApproval: h.RemoteApproval}
		if h.Origin != "" { // another agent's run, followed
			rows[i].State = views.ImportMark(h.Origin) + " followed"
		}
	}
	return rows, nil
}

// runActivity is the colour class of a run's state.
func runActivity(state string) views.RunActivity {
	switch state {
	case live.StateIdle, "":
		return views.RunIdle
	case live.StateApproval:
		return views.RunWaiting
	case live.StateRetrying:
		return views.RunRetrying
	}
	return views.RunBusy
}

// runsSignature changes when anything the view shows changes (the elapsed
// time to the second).
func runsSignature(rows []views.RunRow, err error) string {
	var b strings.Builder
	if err != nil {
		b.WriteString(err.Error())
	}
	for _, r := range rows {
		fmt.Fprintf(&b, "%s|%s|%s|%s|%d|%d|%d|%t|%t;", r.SessionID, r.Title, r.WorkDir, r.State, r.Step,
			r.Elapsed/time.Second, r.Tokens, r.Current, r.RemoteApproval)
	}
	return b.String()
}

// onUISetRuns shows a listing (UI).
func (r *runsView) onUISetRuns(rows []views.RunRow, err error) {
	if err != nil {
		r.c.setMessage("runs: "+err.Error(), true)
	}
	r.list.SetRuns(rows)
}

// onUIWatch closes the view and watches the chosen run here; the
// workspace's own session is already shown.
func (r *runsView) onUIWatch(row views.RunRow) {
	c := r.c
	c.pages.pop(runsPage)
	if row.SessionID == c.SessionID() {
		return
	}
	c.watch.onUIWatch(row.SessionID)
}

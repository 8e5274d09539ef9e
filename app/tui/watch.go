package tui

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/app/live"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// Watching live: when the open session is written by another process
// (rewind watch, or a session whose lease is held elsewhere), this feature
// connects to the writer's live channel (app/live) and feeds its soul
// events through the same pipeline as the workspace's own Soul, so the
// watcher shows what the writer shows as it happens: streaming text, folded
// thinking, live tool output and the same status numbers.
//
// The database stays the truth: at every step boundary (StepBegin, RunEnd)
// the committed view is read from SQLite and the live events only add the
// step in flight. A step the database already holds when its StepBegin is
// read (a watcher behind, or one that connected just as it committed) is
// not shown twice. When the writer goes away, the committed view is
// reloaded and the watcher says so; it reconnects if a writer comes back.
// Without a writer the version poll (poll.go, follow.go) is all there is.

// liveRetry is how often a watcher looks for the writer's socket, and how
// soon it notices the open session changed.
const liveRetry = 500 * time.Millisecond

// watcher is the follow/watch feature controller: it owns the state of
// following a session another process writes (the writer's lease and run,
// follow.go; its live channel, here), the loops that follow it and the
// entry point that starts watching a session (onUIWatch). The Controller
// keeps only a pointer to it.
type watcher struct {
	c watchDeps

	watching bool   // (UI) the input shows the watch label
	label    string // (UI) the status bar's mode label while watching

	// live (any) is the open session whose writer's events feed the
	// conversation: the connection belongs to the visit that dialled it,
	// and one left open a moment after the workspace left that visit
	// (until its check) says nothing of the next visit, even of the same
	// session (liveOn).
	live atomic.Pointer[openSession]
	// importing (any): the writer is `rewind import --follow` of a codex or
	// Claude Code file, which saves a call before its result: a call
	// without one is still running, not cut off.
	importing atomic.Bool
	inRun     atomic.Bool // (any) the writer is mid-run: polls keep the conversation
	// standalone (live loop): the writer runs a /compact between runs,
	// which ends at its StatusUpdate (no RunEnd follows).
	standalone bool

	viewMu sync.Mutex
	view   followedView // (workers, viewMu) what was read of the open session (followview.go)
	shown  convAt       // (UI) what the conversation shows of it
	// front is how many items earlier pages put before the first
	// committed one (UI): onUIFollow counts its items from there.
	front int

	// back is the session the workspace wrote before the runs view's
	// Enter watched visiting (UI): Esc there goes back to it.
	back, visiting string

	origin  string     // (UI) the agent a followed import's writer reads (live.Hello.Origin)
	pid     int        // (UI) the writer's pid while connected
	started time.Time  // (UI) when the writer's run started; zero while idle
	remote  bool       // (UI) the writer takes approval answers from watchers
	conn    *live.Conn // (UI) for answers
}

// watchDeps is what following a session reaches: the database and the
// live channel's home, the widgets it updates, the approvals, time travel
// and browser features it hands their parts to, the open session, the
// conversation's reloads and the session switches, the poll counters,
// workers, the status line and notices.
type watchDeps struct {
	featureCommon
	watchHost
	demoElsewhere func(sess store.Session) bool // Options.demoElsewhere
	*stepItems                                  // where the step attempt's items start (apply.go)
	reader        *viewReader                   // reads the open session's view
	home          string                        // Options.Home: the live channel's sockets
	startDir      string                        // Options.WorkDir
	setup         bool                          // no model is configured (Options.Setup)
	input         *views.Input
	conv          *views.Conversation
	timeline      *views.Timeline
	pollStats     *pollStats
	polls         *pollPeriods
	pg            *pager
	inUse         *inUseQuestion
	ap            *approvals
	tt            *timeTravel
	br            *browser
}

type watchHost interface {
	uiRunning() bool
	leaseHolderPID() int
	onUIReload(ev evReload)
	onUIShowHeader(tl views.TimelineModel, title string, gen int)
	onUIOpenSession(id string)
	onUISwitch(what string, load func(ctx context.Context) (store.Session, *views.Item, error), installed, then func())
	onUISwitchTo(what string, readOnly bool, at *hitAt, load func(ctx context.Context) (store.Session, *views.Item, error), installed, then func())
	onWorkerSink(e soul.Event)
	onWorkerReload(banner *views.Item)
}

// initWatcher builds the watcher and starts its loops: the writer's lease
// and run (follow.go) and its live channel (New).
func (c *Controller) initWatcher() {
	w := c.watch // allocated by initFeatures: features built before it name it
	*w = watcher{c: watchDeps{featureCommon: c.common(), watchHost: c, demoElsewhere: c.opts.demoElsewhere, stepItems: c.step, reader: c.reader, home: c.opts.Home, startDir: c.opts.WorkDir, setup: c.opts.Setup != "",
		input: c.input, conv: c.conv, timeline: c.timeline, pollStats: &c.pollStats, polls: &c.polls, pg: c.pg, inUse: c.inUse, ap: c.ap, tt: c.tt, br: c.br}}
	// Ahead of the other Esc bindings (Esc Esc's rewind picker): a visit's
	// Esc is the way back.
	c.keys = append([]globalBinding{{KeyBinding: views.KeyBinding{Keys: []views.Key{views.K(tcell.KeyEsc)},
		Description: "back to your session (watching a run opened from the runs view)", Handler: w.onUIBack, Visible: true},
		When: w.canGoBack}}, c.keys...)
	c.AddCommand(Command{Name: "/continue", Description: "write the watched session here once no other process writes it", Run: func(string) { w.onUIContinueHere() }})
	c.onWorker(w.onWorkerFollowWriter)
	if c.opts.Home != "" {
		c.onWorker(w.onWorkerWatchLive)
	}
}

// onUIWatch opens session id in the workspace read-only and follows its
// writer (the runs view's Enter; UI goroutine). The session is read on a
// worker; the workspace never takes the session's lease, so the writer is
// undisturbed. Opening the session already open read-only only focuses the
// input.
func (w *watcher) onUIWatch(id string) {
	c := w.c
	if o := c.cur(); o != nil && o.sess.ID == id {
		if o.soul != nil {
			c.setMessage("this workspace writes that session: there is nothing to watch", false)
		}
		c.pages.focusWorkspace(c.input)
		return
	}
	if c.refuse("watching another session", ruleRunActive) {
		return
	}
	var back string
	if o := c.cur(); o != nil && o.soul != nil {
		back = o.sess.ID
	}
	c.onUISwitchTo("watch", true, nil, func(ctx context.Context) (store.Session, *views.Item, error) {
		sess, err := c.db.GetSession(ctx, id)
		return sess, nil, err
	}, nil, func() { // read-only: as it is installed (onUISwitchTo)
		c.pages.focusWorkspace(c.input)
		c.br.onUIOpened(false)
		// Whether a process writes it is the writer check's to say (the
		// status bar and the input): a finished sub-agent has no writer.
		msg := "watching " + shortID(id) + " read-only"
		if back != "" {
			w.back, w.visiting = back, id
			msg = "Esc: back · " + msg // first: a narrow bar keeps it (the input says to what)
		}
		c.setMessage(msg, false)
	})
}

// canGoBack reports whether Esc goes back from a visit: the visited
// session is still shown, read-only, with nothing else on the way (a
// preview, a run, the slash menu).
func (w *watcher) canGoBack() bool {
	c := w.c
	o := c.cur()
	return w.back != "" && o != nil && o.sess.ID == w.visiting && c.holds(ruleReadOnly) && !c.holds(ruleRunActive) &&
		!c.tt.previewing && c.app.GetFocus() == c.input && !c.input.WantsTab()
}

// onUIBack reopens the session the workspace wrote before the visit.
func (w *watcher) onUIBack() {
	back := w.back
	w.back, w.visiting = "", ""
	w.c.setMessage("back to your session", false) // not the visit's "watching live…"
	w.c.onUIOpenSession(back)
}

// onUIContinueHere makes the workspace the writer of the watched session
// once no other process writes it: it takes the lease (onUISwitch, as
// taking a session back after a lost lease does) and reloads what is
// saved. A writer that came back first keeps the session, and the
// workspace goes on watching.
func (w *watcher) onUIContinueHere() {
	c := w.c
	o := c.cur()
	switch {
	case o == nil || o.soul != nil:
		c.setMessage("this workspace already writes its session: nothing to continue", false)
		return
	case c.refuse("/continue", ruleRunActive):
		return
	case c.demoElsewhere(o.sess):
		c.setMessage(demoReadOnly, true)
		return
	case c.refuse("/continue", ruleNoModel):
		return
	case !w.writerGone():
		c.setMessage("another process writes this session: watch it, or /fork it to write your own copy", true)
		return
	}
	c.onUISwitch("continue the session", func(ctx context.Context) (store.Session, *views.Item, error) {
		sess, err := c.db.GetSession(ctx, o.sess.ID)
		return sess, nil, err
	}, nil, func() { // "you write this session now" once a prompt can go
		w.back, w.visiting = "", ""
		if c.holds(ruleReadOnly) {
			c.setMessage(fmt.Sprintf("another process (pid %d) writes this session again: still watching", c.leaseHolderPID()), true)
			return
		}
		c.input.SetPlaceholder("Ask anything · / for commands · Alt-Enter for a newline")
		c.setMessage("you write this session now: prompts go to the model", false)
	})
}

// canContinue reports whether /continue could make this workspace the
// writer of the open session (a model to write with; the demo writes only
// its own dir).
func (w *watcher) canContinue() bool {
	o := w.c.cur()
	return !w.c.holds(ruleNoModel) && (o == nil || !w.c.demoElsewhere(o.sess))
}

// liveOn reports whether the writer's live channel feeds the visit o (an
// open session).
func (w *watcher) liveOn(o *openSession) bool {
	return o != nil && w.live.Load() == o
}

// onUIInstalled forgets the mode label of the session visit before o: what
// a writer of o does is the writer check's and o's live channel's to say
// (a label of the last visit's channel said "live" for a visit without
// one).
func (w *watcher) onUIInstalled(o *openSession) {
	if !w.liveOn(o) {
		w.label = ""
	}
}

// showSavedTokens shows tokens, the open session's token count as saved
// (what rewind sessions says), in the status bar (UI).
func (w *watcher) showSavedTokens(tokens int) {
	st := w.c.statusModel()
	st.Tokens = tokens
	if st.MaxContext > 0 {
		st.ContextPercent = float64(tokens) * 100 / float64(st.MaxContext)
	}
}

// writerGone reports whether the watched session has no writer, as the
// watcher last saw it.
func (w *watcher) writerGone() bool {
	switch w.label {
	case noWriterLabel, writerGoneLabel, writerLeftLabel:
		return true
	}
	return false
}

// onWorkerWatchLive connects to the writer of the open session whenever
// there is one and this workspace does not write it.
func (w *watcher) onWorkerWatchLive() {
	c := w.c
	t := time.NewTimer(0)
	defer t.Stop()
	var refusedFor *openSession // the session whose writer's refusal was said
	for {
		select {
		case <-c.ctx.Done():
			return
		case <-t.C:
		}
		if o := c.cur(); o != nil && o.soul == nil && c.uiRunning() {
			conn, err := live.Dial(c.ctx, c.home, o.sess.ID)
			var refused *live.RefusedError
			switch {
			case err == nil:
				refusedFor = nil
				w.onWorkerFollowLive(o, conn)
			case errors.As(err, &refused) && refusedFor != o:
				refusedFor = o
				msg := "not streamed: " + refused.Reason + "; steps show as they are saved"
				c.onUIThreadAsync(func() { c.setMessage(msg, false) })
			}
		}
		t.Reset(liveRetry)
	}
}

// onWorkerFollowLive applies the writer's events until it goes away, the
// open session changes or the workspace quits.
func (w *watcher) onWorkerFollowLive(o *openSession, conn *live.Conn) {
	c := w.c
	defer conn.Close()
	h := conn.Hello
	// A followed import has a start (its elapsed clock) but streams
	// nothing: its records are what polls show, so it is never mid-run.
	w.inRun.Store(!h.Run.Started.IsZero() && h.Origin == "")
	w.standalone = h.Run.Standalone
	w.importing.Store(h.Origin != "")
	w.live.Store(o)
	if h.Origin != "" {
		// Read before the writer was known: its calls without a result
		// showed as cut off.
		w.onWorkerCatchUp(o, catchUp{conv: true, force: true, boundary: true}, -1)
	}
	c.onUIThreadAsync(func() { w.onUILiveConnected(o, conn, h) })
	check := time.NewTicker(c.polls.liveCheck)
	defer check.Stop()
	skip := false
	for open := true; open; {
		select {
		case <-c.ctx.Done():
			return
		case <-check.C:
			if c.cur() != o {
				conn.Close()
			}
		case e, ok := <-conn.Events():
			if !ok {
				open = false
				break
			}
			skip = w.onWorkerLiveEvent(o, e, skip)
		}
	}
	w.live.CompareAndSwap(o, nil)
	w.inRun.Store(false)
	imported := w.importing.Swap(false)
	if c.cur() != o || c.ctx.Err() != nil {
		return
	}
	// The writer is gone: what it committed is all there is (a followed
	// file's calls still without a result are read again, as cut off).
	w.onWorkerCatchUp(o, catchUp{conv: true, boundary: true, force: imported}, -1)
	// A writer that switched to another session is still running.
	left := store.PIDAlive(h.PID)
	// The saved count, as rewind sessions says it: the writer's last
	// published figure may predate its last step's usage.
	tokens := -1
	if sess, err := c.db.GetSession(c.ctx, o.sess.ID); err == nil {
		tokens = sess.Tokens
	}
	c.onUIThreadAsync(func() { w.onUILiveGone(o, h, left, tokens) })
}

// onWorkerLiveEvent applies one event of the writer. skip says the step in
// flight is already committed (shown from the database); it returns the
// new skip.
func (w *watcher) onWorkerLiveEvent(o *openSession, e soul.Event, skip bool) bool {
	c := w.c
	switch ev := e.(type) {
	case soul.StepBegin:
		w.inRun.Store(true)
		skip = w.onWorkerCatchUp(o, catchUp{conv: true, boundary: true}, ev.Checkpoint)
		c.onUIThreadAsync(w.onUILiveRunStarted)
		if !skip {
			c.post(ev)
		}
		return skip
	case soul.RunEnd:
		w.inRun.Store(false)
		w.onWorkerCatchUp(o, catchUp{conv: true, boundary: true}, -1)
		c.post(ev)
		c.onUIThreadAsync(w.onUILiveRunEnded)
		return false
	case *soul.ApprovalRequest:
		if !skip {
			c.onUIThreadAsync(func() { c.ap.onUIWatched(ev, w.conn, w.remote) })
		}
		return skip
	case live.Answered:
		c.onUIThreadAsync(func() { c.ap.onUIWatchedAnswered(ev) })
		return skip
	case live.AnswerResult:
		c.onUIThreadAsync(func() { c.ap.onUIWatchedResult(ev) })
		return skip
	case soul.CompactionBegin:
		w.standalone = !ev.Auto && !w.inRun.Load()
		w.inRun.Store(true)
		c.onUIThreadAsync(w.onUILiveRunStarted)
	case soul.StatusUpdate:
		if w.standalone { // the /compact between runs is over
			w.standalone = false
			w.inRun.Store(false)
			c.onUIThreadAsync(w.onUILiveRunEnded)
		}
	case soul.Backtrack:
		// The D-Mail's banner is the one its records make, as a reopened
		// session shows it: the writer's offers /undo, which only the
		// writer can do, and beside the records' banner it doubled when
		// the view read held the writer's next step already.
		c.post(e)
		c.onWorkerReload(nil)
		return skip
	case soul.CompactionEnd:
		// Numbers and generation changes are never stale.
	default:
		if skip {
			return true
		}
	}
	c.onWorkerSink(e) // as for this workspace's own Soul (reloads after a backtrack or compaction)
	return skip
}

// onUILiveConnected shows the writer's numbers at once.
func (w *watcher) onUILiveConnected(o *openSession, conn *live.Conn, h live.Hello) {
	c := w.c
	if c.cur() != o {
		return
	}
	w.pid, w.started, w.remote, w.conn, w.origin = h.PID, h.Run.Started, h.RemoteApproval, conn, h.Origin
	if h.Origin != "" {
		c.input.SetPlaceholder(importingPlaceholder(h.Origin))
	}
	st := c.statusModel()
	if h.Run.MaxContext > 0 || h.Run.Tokens > 0 { // a followed codex or Claude Code run has no context size
		st.Step, st.Tokens = 0, h.Run.Tokens
		if !h.Run.Started.IsZero() { // an idle writer keeps its last run's count
			st.Step = h.Run.Step
		}
		st.MaxContext, st.ContextPercent = h.Run.MaxContext, h.Run.ContextPercent
	}
	if h.Model != "" {
		st.Model = h.Model
	}
	w.label = fmt.Sprintf("WATCH · live · pid %d", h.PID)
	msg := fmt.Sprintf("watching live: the writer is pid %d (%s)", h.PID, h.Run.Label())
	if w.back != "" && w.visiting == o.sess.ID {
		msg = "Esc: back · " + msg // first: a narrow bar keeps it (the input says to what)
	}
	c.setMessage(msg, false)
	c.refreshStatus()
}

// importingPlaceholder is the input's line while the writer is rewind
// importing another agent's file as it grows.
func importingPlaceholder(origin string) string {
	return "read-only: rewind imports this " + views.ImportMark(origin) + " run as its file grows · prompts are not sent"
}

// onUILiveRunStarted starts the elapsed clock at the writer's first step.
func (w *watcher) onUILiveRunStarted() {
	if w.started.IsZero() {
		w.started = time.Now()
	}
}

// onUILiveRunEnded stops the clock and closes an approval the run dropped.
func (w *watcher) onUILiveRunEnded() {
	c := w.c
	w.started = time.Time{}
	c.ap.closeWatched()
	c.refreshStatus()
}

// onUILiveGone says the writer left and what is shown now: left, its
// process still runs (it switched sessions); else it is gone.
func (w *watcher) onUILiveGone(o *openSession, h live.Hello, left bool, tokens int) {
	c := w.c
	w.conn, w.started = nil, time.Time{}
	c.ap.closeWatched()
	if c.cur() != o {
		return
	}
	if tokens >= 0 {
		w.showSavedTokens(tokens)
		c.statusModel().Step = 0
	}
	w.label = writerGoneLabel
	what := "is gone"
	if left {
		w.label, what = writerLeftLabel, "left this session"
	}
	c.statusModel().RunningTool = ""
	if h.Origin != "" {
		w.label = writerGoneLabel
		c.setMessage("stopped following the "+views.ImportMark(h.Origin)+" run: its file stopped growing and its writer is gone; showing what was imported", true)
	} else {
		c.setMessage(fmt.Sprintf("the writer (pid %d) %s: showing what it committed, from the database", h.PID, what), true)
	}
	// The input says so too: the writer check posts only changes, and one
	// that saw the lease free while the channel was up has posted already.
	w.onUIWatchStatus(o.sess.ID, w.label, false, runState{})
}

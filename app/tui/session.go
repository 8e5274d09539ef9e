package tui

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// openInitial resolves the session named by the options and shows its view.
// It runs before the UI starts, so it may touch widgets directly.
func (c *Controller) openInitial(ctx context.Context) error {
	o := c.opts
	id := o.SessionID
	switch o.Mode {
	case ModeNew:
		c.showWelcome()
		return nil
	case ModeContinue:
		list, err := c.db.ListSessions(ctx, store.ListOptions{WorkDir: o.WorkDir, Limit: 1})
		if err != nil {
			return fmt.Errorf("list sessions: %w", err)
		}
		if len(list) == 0 {
			c.showWelcome()
			c.msg.setMessage("no earlier session in this directory: starting a new one", false)
			return nil
		}
		id = list[0].ID
	case ModeWatch:
		if id == "" {
			s, err := c.db.NewestLiveSession(ctx)
			if err != nil {
				return fmt.Errorf("no running session to watch (start one with `rewind`, or pass an id): %w", err)
			}
			id = s.ID
		}
	}
	sess, err := c.db.GetSession(ctx, id)
	if err != nil {
		return err
	}
	if o.Soul.Yolo { // --yolo covers the session it opens, wherever it works
		c.ap.yolo.set(workDirOf(sess, o.WorkDir), true)
	}
	a, err := c.attach.onWorkerAttach(ctx, o.Soul, sess, o.ReadOnly)
	if err != nil {
		return err
	}
	c.onUIInstall(a)
	ev, v, err := c.reader.readWhole(ctx, sess.ID, false)
	if err != nil {
		return err
	}
	c.watch.onWorkerAdopt(a.o, v, ev, false) // the pollers go on from this read
	c.onUIApply(ev)
	return nil
}

// releaseLater gives up a session the workspace left (its lease and live
// channel) on a worker; shutdown does it if the worker never runs.
func (c *Controller) releaseLater(old *openSession) {
	if old == nil || old.lease == nil {
		return
	}
	c.attach.unclaimed.add(old)
	done := c.attach.releases.start(old.sess.ID)
	c.onWorker(func() {
		c.attach.unclaimed.claim(old)
		c.attach.releases.release(context.WithoutCancel(c.ctx), old, done)
	})
}

// unclaimed holds the sessions leased on a worker whose installation on
// the UI goroutine has not run yet, and replaced ones whose release has not
// run yet: if the workspace quits first, shutdown releases them (lease and
// live channel) instead of leaking them.
type unclaimed struct {
	mu  sync.Mutex
	set map[*openSession]bool
}

func (u *unclaimed) add(o *openSession) {
	u.mu.Lock()
	if u.set == nil {
		u.set = map[*openSession]bool{}
	}
	u.set[o] = true
	u.mu.Unlock()
}

func (u *unclaimed) claim(o *openSession) {
	u.mu.Lock()
	delete(u.set, o)
	u.mu.Unlock()
}

func (u *unclaimed) drain() []*openSession {
	u.mu.Lock()
	defer u.mu.Unlock()
	out := make([]*openSession, 0, len(u.set))
	for o := range u.set {
		out = append(out, o)
	}
	clear(u.set)
	return out
}

// onUIInstall makes a prepared session the open one (UI goroutine, or
// before the UI starts). The previous session's lease is released on a
// worker.
func (c *Controller) onUIInstall(a attachment) {
	c.attach.unclaimed.claim(a.o)
	c.releaseLater(c.open.Swap(a.o))
	sess := a.o.sess
	c.readOnly = a.readOnly
	c.statusM.SessionTitle = sess.Title
	c.statusM.Generation = sess.CurrentGen
	c.statusM.Tokens = sess.Tokens
	c.statusM.Step = 0
	c.ap.onUIInstalled(a.o)
	c.watch.onUIInstalled(a.o)
	if a.o.soul != nil {
		st := a.o.soul.Status()
		c.statusM.Tokens, c.statusM.ContextPercent = st.Tokens, st.ContextPercent
	} else if c.statusM.MaxContext > 0 {
		c.statusM.ContextPercent = float64(sess.Tokens) * 100 / float64(c.statusM.MaxContext)
	}
	if a.readOnly {
		c.input.SetPlaceholder("read-only: watching this session · /help, /theme, /exit")
	} else {
		c.input.SetPlaceholder("Ask anything · / for commands · Alt-Enter for a newline")
	}
	c.msg.clearAbout(topicOpenWarning) // the warning of the session left
	if a.note != "" {
		c.msg.setAbout(topicOpenWarning, a.note, true, c.msg.ttl)
	}
	if a.o.missingDir != "" {
		o := a.o
		c.post(evFunc{f: func() { c.md.onUIOffer(o) }})
	}
	if c.ws != nil {
		c.refreshStatus()
	}
}

// onUILeaseLost stops writing when another process took the session over
// (this one was paused, or its heartbeat stale, long enough): never two
// writers. The lost lease and live channel are given up, so no list names
// this process as the writer; once the other writer is gone the workspace
// takes the session back (leaseWatch, onUIRetake). A database that is
// only busy does not lose the lease (store.Lease).
func (c *Controller) onUILeaseLost(o *openSession) {
	if c.cur() != o || c.readOnly {
		return
	}
	if c.run.cancel != nil {
		c.run.cancel()
	}
	c.readOnly = true
	done := c.attach.releases.start(o.sess.ID)
	c.onWorker(func() { c.attach.releases.release(context.WithoutCancel(c.ctx), o, done) })
	c.input.SetPlaceholder("read-only: another process writes this session · /help, /theme, /exit")
	c.msg.setMessage("another process took this session over: read-only until it exits (or fork the session from the list)", true)
	c.refreshStatus()
}

// onUIRetake takes back a session whose lease was lost once its other
// writer is gone: a new lease and loop, and the view reloaded with what the
// other writer committed.
func (c *Controller) onUIRetake(o *openSession) {
	if c.cur() != o || !c.readOnly || c.holds(ruleRunActive) {
		return
	}
	c.onUISwitch("take the session back", func(ctx context.Context) (store.Session, *views.Item, error) {
		sess, err := c.db.GetSession(ctx, o.sess.ID)
		return sess, nil, err
	}, nil, func() {
		if !c.readOnly {
			c.msg.setMessage("the other writer is gone: this workspace writes the session again", false)
		}
	})
}

// leaseWatch is the poll loop's view of the open session's lease and of
// the database's write lock (worker).
type leaseWatch struct {
	lost    *openSession // whose lease was lost
	checked time.Time    // when lost's lease was last looked at
	busy    bool         // a write waits for another process's write lock
	told    time.Time    // when the UI was last told busy
}

// check notices a lost lease (onUILeaseLost), then looks every writerPoll
// whether the session became free again (onUIRetake).
func (w *leaseWatch) check(c *Controller, o *openSession) {
	if o.lease == nil {
		return
	}
	if w.lost != o {
		if o.lease.Err() != nil {
			w.lost, w.checked = o, time.Now()
			c.onUIThreadAsync(func() { c.onUILeaseLost(o) })
		}
		return
	}
	if time.Since(w.checked) < c.polls.writer {
		return
	}
	w.checked = time.Now()
	if _, alive, err := c.db.LiveLease(c.ctx, o.sess.ID); err == nil && !alive {
		c.onUIThreadAsync(func() { c.onUIRetake(o) })
	}
}

// checkBusy tells the UI when writes start or stop waiting for another
// process's write lock (no SQLite call), and every writerPoll while they
// wait, so the status comes back after another message replaced it. It
// reports whether they wait.
func (w *leaseWatch) checkBusy(c *Controller) bool {
	_, busy := c.db.Busy()
	defer func() { w.busy = busy }()
	switch {
	case busy != w.busy:
		w.told = time.Now()
		c.onUIThreadAsync(func() { c.dbBusy.onUIChanged(busy, false) })
	case busy && time.Since(w.told) >= c.polls.writer:
		w.told = time.Now()
		c.onUIThreadAsync(func() { c.dbBusy.onUIChanged(true, true) })
	}
	return busy
}

// joinNotes joins status-bar notes, skipping empty ones.
func joinNotes(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + " · " + b
}

// workDir is the directory the agent works in: the open session's, else
// the one rewind was started in (any goroutine). /status shows it, and the
// session lists' "this dir" is it.
func (c *Controller) workDir() string {
	if o := c.cur(); o != nil {
		return workDirOf(o.sess, c.opts.WorkDir)
	}
	return c.opts.WorkDir
}

// workDirOf is the directory the agent works in for sess.
func workDirOf(sess store.Session, fallback string) string {
	if sess.WorkDir != "" {
		return sess.WorkDir
	}
	return fallback
}

// releaseLease gives up the open session's lease (any goroutine; idempotent).
func (c *Controller) releaseLease() {
	o := c.cur()
	for _, o := range append(c.attach.unclaimed.drain(), o) {
		if o == nil || o.lease == nil {
			continue
		}
		closePublisher(o)
		_ = o.lease.Release(context.Background())
	}
}

// onWorkerCreateSession creates the new session of a first prompt and
// posts its installation (the soul's events, posted after it, find it open).
func (c *Controller) onWorkerCreateSession(ctx context.Context, cfg soul.Config) (*openSession, error) {
	var sess store.Session
	err := c.db.RetryBusy(ctx, func() (err error) {
		sess, err = c.db.CreateSession(ctx, store.NewSession{Title: c.opts.NewSessionTitle, WorkDir: c.opts.WorkDir, Model: c.opts.Model, Agent: c.opts.Agent.Ref})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	a, err := c.attach.onWorkerAttach(ctx, cfg, sess, false)
	if err != nil {
		return nil, err
	}
	if a.o.soul == nil {
		return nil, fmt.Errorf("create session: %s is held by another process", shortID(sess.ID))
	}
	c.onUIThreadAsync(func() {
		c.onUIInstall(a)
		c.br.onUIRefresh()
	})
	return a.o, nil
}

func (c *Controller) showWelcome() {
	if c.opts.Welcome != "" {
		c.conv.Append(views.Item{Kind: views.ItemBanner, Banner: views.BannerInfo, Text: c.opts.Welcome})
	}
}

// onUINewSession leaves the open session (it stays in the list) for a new
// one, created with the first prompt (/new).
func (c *Controller) onUINewSession() {
	if c.cur() == nil {
		c.msg.setMessage("this is already a new session: type a prompt to start it", false)
		return
	}
	c.releaseLater(c.open.Swap(nil))
	c.readOnly = false
	c.statusM.SessionTitle, c.statusM.Generation, c.statusM.Tokens, c.statusM.ContextPercent, c.statusM.Step = "", 0, 0, 0, 0
	c.input.SetPlaceholder("Ask anything · / for commands · Alt-Enter for a newline")
	c.onUIReload(evReload{})
	c.toolOut.Clear()
	c.br.onUIRefresh()
	c.msg.setMessage("new session in "+c.opts.WorkDir+": it starts with your first prompt", false)
}

// onUIFork forks a session's current generation into a new session and
// opens that for writing.
func (c *Controller) onUIFork(id string) {
	if c.refuse("forking", ruleRunActive) {
		return
	}
	c.onUIForkInto(id, -1, -1, func(fork string) string {
		return fmt.Sprintf("Forked session %s into %s: this copy is yours to write; the original is unchanged.", shortID(id), shortID(fork))
	}, nil)
}

// onUIForkInto forks generation gen (< 0: the current one) of session id,
// up to checkpoint cp (< 0: the whole view), into a new session, opens it
// for writing, shows banner(new id) and then runs then (UI). Every fork
// goes through here, so each says, as resuming does, when the agent now
// works in another dir (the fork's, its source's).
func (c *Controller) onUIForkInto(id string, gen, cp int, banner func(fork string) string, then func()) {
	c.onUISwitch("fork", func(ctx context.Context) (store.Session, *views.Item, error) {
		fork, err := c.db.ForkSession(ctx, id, gen, cp)
		if err != nil {
			return store.Session{}, nil, err
		}
		text := banner(fork.ID)
		if wd := c.br.workDirBanner(fork); wd != nil {
			text += "\n" + wd.Text
		}
		return fork, &views.Item{Kind: views.ItemBanner, Banner: views.BannerInfo, Text: text}, nil
	}, func() {
		c.br.onUIOpened(false)
		if then != nil {
			then()
		}
	}, nil)
}

// onUIOpenSession switches the workspace to another session (session list
// Enter).
func (c *Controller) onUIOpenSession(id string) { c.onUIOpenSessionAt(id, nil) }

// hitAt is a search hit's record, where a session opens.
type hitAt struct {
	gen int // the generation the hit names
	pos store.ViewPos
}

// onUIOpenSessionAt switches the workspace to session id, at its tail or
// (at) at a search hit; the open session itself moves to the hit.
func (c *Controller) onUIOpenSessionAt(id string, at *hitAt) {
	focus := tview.Primitive(c.input)
	if at != nil {
		focus = c.conv // reading the hit: ↑/↓ and PgUp/PgDn move through it
	}
	same := c.cur() != nil && c.cur().sess.ID == id
	if same && at == nil {
		c.pages.focusWorkspace(focus)
		if c.readOnly && c.watch.writerGone() {
			c.watch.onUIContinueHere() // Enter on the watched session nobody writes: write it here
		}
		return
	}
	if c.refuse("switching sessions", ruleRunActive) {
		return
	}
	if same {
		c.pages.focusWorkspace(focus)
		c.onWorker(func() { c.onWorkerReloadAt(nil, *at) })
		return
	}
	var back string // where the offer's Back returns
	if o := c.cur(); o != nil {
		back = o.sess.ID
	}
	c.onUISwitchTo("open session", false, at, func(ctx context.Context) (store.Session, *views.Item, error) {
		sess, err := c.db.GetSession(ctx, id)
		return sess, c.br.workDirBanner(sess), err
	}, func() {
		c.pages.focusWorkspace(focus)
		c.br.onUIOpened(false)
	}, func() { // its answers switch again
		if o := c.cur(); o != nil && o.sess.ID == id && o.watchPID != 0 {
			c.inUse.onUIOffer(id, o.watchPID, true, back)
		}
	})
}

// onUISwitch opens another session without a database call on the UI
// goroutine: load (the session to open, and a banner) and the lease run on a
// worker, then the session is installed and installed run, its view loaded
// and then run (UI). The workspace is busy meanwhile, so nothing else
// starts; a session it writes stays busy until its view is shown, and then
// runs with it: a prompt sent before ran, and the view, read before the
// prompt was saved, then replaced the conversation and took the prompt and
// its answer off the screen. A read-only one (watched) ends at its
// installation, as then does.
func (c *Controller) onUISwitch(what string, load func(ctx context.Context) (store.Session, *views.Item, error), installed, then func()) {
	c.onUISwitchTo(what, false, nil, load, installed, then)
}

// onUISwitchTo is onUISwitch that opens the session read-only when asked
// (watching: no lease is taken), and at a search hit (at) instead of its
// tail.
func (c *Controller) onUISwitchTo(what string, readOnly bool, at *hitAt, load func(ctx context.Context) (store.Session, *views.Item, error), installed, then func()) {
	c.run.op = what
	c.refreshStatus()
	cfg := c.opts.Soul
	c.onWorker(func() {
		sess, banner, err := load(c.ctx)
		var a attachment
		if err == nil {
			a, err = c.attach.onWorkerAttach(c.ctx, cfg, sess, readOnly)
		}
		c.onUIThreadAsync(func() {
			if err != nil {
				c.run.op = ""
				c.msg.setMessage(what+": "+err.Error(), true)
				c.refreshStatus()
				return
			}
			c.onUIInstall(a)
			if installed != nil {
				installed()
			}
			done := func() {
				c.run.op = ""
				c.refreshStatus()
				if then != nil {
					then()
				}
			}
			if a.o.soul == nil {
				// Read-only: nothing is sent to it, so the switch ends now
				// and its view follows.
				done()
				done = nil
			}
			c.onWorker(func() {
				if at != nil {
					reloadViewAt(c, banner, *at, done)
				} else {
					reloadView(c, banner, done)
				}
			})
		})
	})
}

func shortID(id string) string {
	if len(id) > 10 {
		return id[:10]
	}
	return id
}

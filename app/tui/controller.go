package tui

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/app/live"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/agentspec"
	"github.com/rewind-agent/rewind/soul/instructions"
	"github.com/rewind-agent/rewind/soul/tools"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// messageTTL is how long a transient status-bar message stays.
const messageTTL = 6 * time.Second

// quitWindow is how long after the first Ctrl-C a second one quits.
const quitWindow = 2 * time.Second

// Controller owns the workspace: widgets, the Soul of the open session, the
// event pipeline and the registries. Fields marked (UI) are touched only on
// the UI goroutine; the rest say how they are guarded.
type Controller struct {
	opts Options
	plan atomic.Bool // plan mode, the workspace's (plan.go)
	db   *store.DB
	app  *tview.Application
	ui   uiState // the UI goroutine, the event pipeline and the workers (thread.go)

	ctx    context.Context // cancelled when the controller shuts down
	cancel context.CancelFunc

	// Widgets (UI).
	conv     *views.Conversation
	toolOut  *views.ToolOutput
	timeline *views.Timeline
	sessions *views.SessionList
	input    *views.Input
	status   *views.StatusBar
	prompt   *views.PromptDialog
	ws       *views.Workspace // the layout: panes, input, status bar
	pages    *pageStack

	// What every feature gets besides the core (featureCommon, host.go):
	// the status messages, the confirm dialog and the theme (UI).
	msg     *messageLine // messages.go
	confirm *confirmer   // widgets.go
	theme   *themer      // theme.go

	// Registries (UI; built once in New, extended by feature files).
	commands *commandRegistry
	keys     []globalBinding

	// The open session: swapped atomically on the UI goroutine (workers and
	// pollers read it); nil until a new session's first prompt.
	open     atomic.Pointer[openSession]
	attach   *attacher   // the database side of opening a session (attach.go)
	reader   *viewReader // reads the open session's view (view_reader.go)
	readOnly bool        // (UI) no writes: watching, or the lease is held elsewhere

	// Run state (UI).
	run       runningOp  // the operation in flight (commands.go)
	step      *stepItems // where the step attempt's items start (apply.go)
	statusM   views.Status
	quitArmed quitArm
	quitting  bool

	// The features the core calls (UI), wired in features.go; cb, runs
	// and suspend only the tests reach.
	help    *helpScreen    // help.go
	prompts *prompter      // the prompt in flight (prompt.go)
	dbBusy  *dbBusyNotice  // writes wait for another process's lock (db_busy.go)
	ap      *approvals     // approvals.go
	tg      *typingGuard   // typing.go
	tt      *timeTravel    // timetravel.go
	br      *browser       // browser.go
	watch   *watcher       // watch.go, follow.go, followview.go
	tp      *toolPane      // toolpane.go
	notes   *notifier      // notifications written after the next draw (notify.go)
	md      *missingDir    // missing_dir.go
	pg      *pager         // the window over the open session's view (window.go)
	setup   *setupScreen   // setup.go
	inUse   *inUseQuestion // the "Session in use" question (in_use.go)
	sa      *subagents     // the run's sub-agents (subagent.go)
	cb      *clipboard     // copy.go
	runs    *runsView      // runs.go
	suspend *suspender     // suspend.go

	// Polling (poll.go): periods, whether the clock ticks (a run is being
	// timed; set by refreshStatus), and how often the list was polled/read.
	polls     pollPeriods
	ticking   atomic.Bool
	pollStats pollStats
}

// openSession is one session opened in the workspace.
type openSession struct {
	sess         store.Session
	instructions []instructions.File // the AGENTS.md files its soul follows
	agent        *agentspec.Agent    // the agent its soul runs (nil when read-only)
	soul         *soul.Soul          // nil when read-only
	lease        *store.Lease        // nil when read-only
	pub          *live.Publisher     // nil when read-only (or publishing failed)
	// missingDir is its work dir when that is not on this machine: it is
	// open read-only (missing_dir.go).
	missingDir string
	// watchPID is the pid that held its lease elsewhere when it was
	// opened (0: this workspace holds it, or none did): the "Session in
	// use" question offers to watch or fork.
	watchPID int
}

// cur is the open session or nil (any goroutine).
func (c *Controller) cur() *openSession { return c.open.Load() }

// New builds the controller and its widgets and opens the session named by
// o. It does not start the terminal; Run does.
func New(ctx context.Context, o Options) (*Controller, error) {
	if o.DB == nil {
		return nil, errors.New("tui: no database")
	}
	if o.Mode == ModeWatch {
		o.ReadOnly = true
	}
	if !o.ReadOnly && o.Client == nil {
		return nil, errors.New("tui: no model client")
	}
	if o.Tools == nil {
		o.Tools = tools.Default()
	}
	if o.Agent == nil {
		o.Agent = agentspec.Default()
	}
	if o.Model == "" && o.Client != nil {
		o.Model = o.Client.Model()
	}
	c := &Controller{
		opts:     o,
		db:       o.DB,
		app:      tview.NewApplication(),
		readOnly: o.ReadOnly,
		polls:    defaultPolls,
	}
	if o.polls != nil {
		c.polls = *o.polls
	}
	c.ui.started, c.ui.stopped = make(chan struct{}), make(chan struct{})
	c.ui.posts = newPoster()
	c.ctx, c.cancel = context.WithCancel(context.WithoutCancel(ctx))
	c.ui.events = newBatcher(FlushInterval, c.onWorkerDeliver)
	c.buildWidgets()
	c.notes = &notifier{mode: o.Notify}
	c.commands = newCommandRegistry()
	c.registerCommands()
	c.keys = c.globalBindings()
	c.initFeatures()
	c.input.SetCommands(c.commands.slashCommands(c.disabledBy))

	if _, err := c.theme.load(o.Theme); err != nil {
		c.msg.setMessage(err.Error(), true)
	}
	if o.Notice != "" {
		c.msg.setMessage(o.Notice, false)
	}
	if err := o.DB.Damaged(); err != nil { // every write will say it again
		c.msg.setMessage(err.Error(), true)
	}
	c.statusM = views.Status{Model: o.Model, Demo: o.Demo, MaxContext: o.Soul.MaxContextSize, Thinking: string(c.opts.Soul.Thinking)}
	if c.statusM.MaxContext == 0 {
		c.statusM.MaxContext = soul.DefaultMaxContextSize
	}
	if o.Soul.Yolo {
		c.statusM.Mode = "YOLO"
	}
	if err := c.openInitial(ctx); err != nil {
		c.cancel()
		return nil, err
	}
	return c, nil
}

// Run starts the terminal UI and blocks until quit. It may be called once.
func (c *Controller) Run(ctx context.Context) error {
	// Only the cells a frame changes are sent to the terminal.
	screen, serr := views.NewFrameScreen(c.opts.Screen)
	if serr == nil {
		c.app.SetScreen(screen) // which starts it
		serr = screen.InitErr()
	}
	if serr != nil {
		return fmt.Errorf("tui: %w", serr)
	}
	c.app.EnableMouse(true)
	c.app.EnablePaste(true)
	c.app.SetRoot(c.pages.root, true)
	c.app.SetInputCapture(c.onUIKey)
	c.app.SetFocus(c.input)

	// The first draw happens after Run starts; mark the UI running from
	// inside the loop so workers never queue before it.
	go c.runPoster(func() {
		c.ui.running.Store(true)
		close(c.ui.started)
		c.onUIStarted()
	})
	go func() {
		select {
		case <-ctx.Done():
			c.onUIThread(c.onUIQuit)
		case <-c.ui.stopped:
		}
	}()
	c.startPollers()
	err := c.app.Run()
	c.ui.running.Store(false)
	if err == nil {
		// The loop ran, so only the poster stopped it. (When the screen
		// failed to start, the poster stays blocked in its first update.)
		<-c.ui.posts.exited
	}
	close(c.ui.stopped)
	c.shutdownWorkers()
	if err != nil {
		return fmt.Errorf("tui: %w", err)
	}
	return nil
}

// onUIStarted runs once the loop is live: pending offers (watch/fork) and
// the first poll results can now be shown.
func (c *Controller) onUIStarted() {
	c.refreshStatus()
	c.br.onUIOpened(true)
	c.setup.onUIShow()
	if o := c.cur(); o != nil && o.watchPID != 0 {
		c.inUse.onUIOffer(o.sess.ID, o.watchPID, false, "")
	}
}

// onUIQuit starts an orderly shutdown: cancel what runs, wait for it off the
// UI goroutine, then let the poster stop the application once its last
// update ran (calling app.Stop here could strand a queued update).
func (c *Controller) onUIQuit() {
	if c.quitting {
		return
	}
	c.quitting = true
	if c.run.cancel != nil {
		c.run.cancel()
	}
	c.ap.onUIRejectPending()
	c.msg.setMessage("quitting…", false)
	go func() {
		c.shutdownWorkers()
		c.ui.posts.close()
	}()
}

// shutdownWorkers cancels the controller context, waits for every worker
// (a run returns once its context is cancelled and its step is rolled back),
// stops the event pipeline and releases the lease. Safe to call twice.
func (c *Controller) shutdownWorkers() {
	c.ui.workMu.Lock()
	c.ui.closing = true
	c.ui.workMu.Unlock()
	c.cancel()
	c.ui.workers.Wait()
	c.ui.events.stop()
	c.releaseLease()
}

// post queues a synthetic event on the ordered pipeline (any goroutine).
func (c *Controller) post(e soul.Event) { c.ui.events.push(e) }

// onWorkerSink is the soul.Sink: it runs on the soul's goroutine. Events that
// change the generation also load the new view here, off the UI thread.
func (c *Controller) onWorkerSink(e soul.Event) {
	c.ui.events.push(e)
	switch ev := e.(type) {
	case soul.Backtrack:
		banner := backtrackBanner(ev)
		c.onWorkerReload(&banner)
	case soul.CompactionEnd:
		banner := compactBanner(ev)
		c.onWorkerReload(&banner)
	case soul.StepInterrupted:
		if ev.KeptGeneration > 0 { // new generations: the timeline shows them
			r := evReload{keepConv: true}
			var err error
			if o := c.cur(); o != nil {
				r, err = c.reader.loadSessionView(context.WithoutCancel(c.ctx), o.sess.ID, true)
			}
			if err == nil {
				c.post(r)
			}
		}
	}
}

// onWorkerReload loads the session's current view and posts it; the
// watcher follows the session from there (followview.go).
func (c *Controller) onWorkerReload(banner *views.Item) { reloadView(c, banner, nil) }

// onWorkerReloadAt loads the open session's view around a search hit's
// record and posts it, the hit marked (store.ViewAround: the pages around
// it only, whatever the session's length). A window that reaches the end of
// the view is followed from there, as onWorkerReload's; one that stops
// short of it is not (window.go). A hit in an archived generation the
// current view does not share loads the current view, then shows that
// generation around the hit as the timeline's preview of it does.
func (c *Controller) onWorkerReloadAt(banner *views.Item, at hitAt) { reloadViewAt(c, banner, at, nil) }

// reloadView is onWorkerReload that runs then on the UI goroutine as the
// view is shown, in the same update (a switch ends there: onUISwitchTo),
// or after what it posted when it posts no view (worker). A function, not
// a method: the Controller's methods only go down (host_test.go).
func reloadView(c *Controller, banner *views.Item, then func()) {
	o := c.cur()
	if o == nil {
		c.post(evReload{banner: banner, shown: then})
		return
	}
	ev, v, err := c.reader.readWhole(context.WithoutCancel(c.ctx), o.sess.ID, false)
	if err != nil {
		c.post(evNote{text: "cannot reload the session: " + err.Error(), isErr: true})
		postThen(c, then)
		return
	}
	ev.banner, ev.shown = banner, then
	if c.reader.hold != nil {
		c.reader.hold()
	}
	if !c.watch.onWorkerAdopt(o, v, ev, true) {
		postThen(c, then)
	}
}

// postThen runs then, if any, after what was posted: no view was.
func postThen(c *Controller, then func()) {
	if then != nil {
		c.onUIThreadAsync(then)
	}
}

// reloadViewAt is onWorkerReloadAt that runs then as reloadView does.
func reloadViewAt(c *Controller, banner *views.Item, at hitAt, then func()) {
	o := c.cur()
	if o == nil {
		c.post(evReload{banner: banner, shown: then})
		return
	}
	ctx, id := context.WithoutCancel(c.ctx), o.sess.ID
	// o.sess is the session as it was opened: a compaction, revert or
	// D-Mail since (in this process or another) made a newer generation
	// current, so the current generation is read afresh.
	ver, err := c.db.SessionVersion(ctx, id)
	if err != nil {
		reloadView(c, banner, then)
		c.post(evNote{text: "cannot read the session's current generation: " + flat(err.Error()), isErr: true})
		return
	}
	if at.gen != ver.CurrentGen {
		// a revert's generation shares the turns before it with the one it archived
		if ok, err := c.db.ViewHolds(ctx, id, ver.CurrentGen, at.pos); err != nil || !ok {
			reloadView(c, banner, then)
			c.tt.onWorkerArchivedHit(id, at)
			return
		}
	}
	c.reader.stats.viewReads.Add(1)
	v, err := c.db.ViewAround(ctx, id, -1, at.pos, c.reader.sizes.hit, c.reader.sizes.hit)
	var ev evReload
	if err == nil {
		var i int
		v, i = alignAround(v, at.pos)
		if ev, err = c.reader.reloadOf(ctx, id, v, false); err == nil && i >= 0 {
			if mark := hitItem(v.Records, i, ev.items); mark >= 0 {
				ev.mark = &mark
			}
			for j := i; j >= 0; j-- {
				if r := v.Records[j]; r.Kind == store.KindCheckpoint {
					cp := r.CheckpointID
					ev.hitCP = &cp
					break
				}
			}
		}
	}
	if err != nil { // the hit left the view since the search (a revert, a compaction)
		reloadView(c, banner, then)
		c.post(evNote{text: "the search hit is not in this conversation any more (showing its newest messages): " + flat(err.Error()), isErr: true})
		return
	}
	ev.shown = then
	if v.Later {
		c.post(ev) // the banner would sit in the middle of the conversation: the status bar says it
		return
	}
	ev.banner = banner
	if !c.watch.onWorkerAdopt(o, v, ev, true) {
		postThen(c, then)
	}
}

// onWorkerDeliver runs on the batcher's goroutine: one UI update per batch.
func (c *Controller) onWorkerDeliver(batch []soul.Event) {
	// Events posted before the loop started (New's, the first polls', an
	// MCP server failing at once) wait for it instead of being dropped;
	// shutdown (c.ctx) releases the wait.
	select {
	case <-c.ui.started:
	default:
		select {
		case <-c.ui.started:
		case <-c.ctx.Done():
			return
		}
	}
	c.onUIThread(func() {
		for _, e := range batch {
			c.onUIApply(e)
		}
	})
}

// uiRunning reports whether the UI loop takes updates (any goroutine).
func (c *Controller) uiRunning() bool { return c.ui.running.Load() }

// leaseHolderPID is the pid that held the open session's lease when it
// was opened (0: this workspace holds it, or none did) (UI).
func (c *Controller) leaseHolderPID() int {
	if o := c.cur(); o != nil {
		return o.watchPID
	}
	return 0
}

// isQuitting reports whether the workspace is shutting down (UI).
func (c *Controller) isQuitting() bool { return c.quitting }

// statusModel is the status bar's model, for the features that set a part
// of it (UI).
func (c *Controller) statusModel() *views.Status { return &c.statusM }

// refreshStatus pushes the status model to the bar (UI).
func (c *Controller) refreshStatus() {
	s := c.statusM
	if c.holds(ruleRunActive) && !c.run.start.IsZero() {
		s.Elapsed = time.Since(c.run.start)
	} else if !c.watch.started.IsZero() {
		s.Elapsed = time.Since(c.watch.started) // a watched writer's run
	}
	c.ticking.Store(s.Elapsed > 0 || c.msg.timed())
	if o := c.cur(); o != nil && s.SessionTitle == "" {
		s.SessionTitle = o.sess.Title
	}
	switch {
	case c.onSetupScreen() && c.cur() == nil:
		s.Mode = "NO MODEL"
	case c.readOnly:
		s.Mode = c.watch.modeLabel()
	}
	s.Plan = c.plan.Load()
	c.status.SetStatus(s)
	c.conv.SetWorkDir(homeShort(c.workDir()))
	c.refreshWelcome()
}

// Screen-level helpers for tests and feature files.

// SessionID is the open session ("" before a new session's first prompt).
func (c *Controller) SessionID() string {
	if o := c.cur(); o != nil {
		return o.sess.ID
	}
	return ""
}

package tui

import (
	"context"
	"errors"
	"fmt"

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
			c.setMessage("no earlier session in this directory: starting a new one", false)
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
	if err := c.attach(ctx, sess, o.ReadOnly); err != nil {
		return err
	}
	ev, err := loadSessionView(ctx, c.db, sess.ID, false)
	if err != nil {
		return err
	}
	c.onUIApply(ev)
	return nil
}

// attach makes sess the open session: with a lease and a Soul when writing,
// read-only when asked or when another live process holds the lease (the
// user is then offered watch or fork once the UI runs). UI goroutine (or
// before the UI starts), with no worker running.
func (c *Controller) attach(ctx context.Context, sess store.Session, readOnly bool) error {
	c.releaseLease()
	c.watchPID = 0
	o := &openSession{sess: sess}
	if c.opts.Client == nil {
		readOnly = true // watch without a model configured: nothing could be written
	}
	if !readOnly {
		lease, err := c.db.AcquireLease(ctx, sess.ID)
		switch {
		case errors.Is(err, store.ErrLeaseHeld):
			pid, _, _ := c.db.LiveLease(ctx, sess.ID)
			c.watchPID = max(pid, 1)
			readOnly = true
		case err != nil:
			return fmt.Errorf("lease session %s: %w", sess.ID, err)
		default:
			o.lease = lease
			o.soul = soul.New(c.soulConfig(sess), c.db, sess.ID, c.opts.Client, c.opts.Tools, workDirOf(sess, c.opts.WorkDir), c.onWorkerSink)
		}
	}
	c.readOnly = readOnly
	c.open.Store(o)
	c.statusM.SessionTitle = sess.Title
	c.statusM.Generation = sess.CurrentGen
	c.statusM.Tokens = sess.Tokens
	c.statusM.Step = 0
	if c.statusM.MaxContext > 0 {
		c.statusM.ContextPercent = float64(sess.Tokens) * 100 / float64(c.statusM.MaxContext)
	}
	if readOnly {
		c.input.SetPlaceholder("read-only: watching this session · /help, /theme, /exit")
	} else {
		c.input.SetPlaceholder("Ask anything · / for commands · Alt-Enter for a newline")
	}
	if c.ws != nil {
		c.refreshStatus()
	}
	return nil
}

// onUILeaseLost stops writing when the session's lease was taken over (the
// heartbeat failed for long enough that another process took the session):
// never two writers.
func (c *Controller) onUILeaseLost(o *openSession, err error) {
	if c.cur() != o || c.readOnly {
		return
	}
	if c.runCancel != nil {
		c.runCancel()
	}
	c.readOnly = true
	c.input.SetPlaceholder("read-only: the session lease was lost · /help, /theme, /exit")
	c.setMessage("lost the session lease ("+oneLine(err.Error(), 80)+"): read-only now; fork the session from the list to keep writing", true)
	c.refreshStatus()
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
	if o == nil || o.lease == nil {
		return
	}
	_ = o.lease.Release(context.Background())
}

// ensureSession creates the new session on the first prompt (UI).
func (c *Controller) ensureSession() (*openSession, error) {
	if o := c.cur(); o != nil {
		return o, nil
	}
	sess, err := c.db.CreateSession(c.ctx, store.NewSession{Title: c.opts.NewSessionTitle, WorkDir: c.opts.WorkDir, Model: c.opts.Model})
	if err != nil {
		return nil, fmt.Errorf("create session: %w", err)
	}
	if err := c.attach(c.ctx, sess, false); err != nil {
		return nil, err
	}
	return c.cur(), nil
}

func (c *Controller) showWelcome() {
	if c.opts.Welcome != "" {
		c.conv.Append(views.Item{Kind: views.ItemBanner, Banner: views.BannerInfo, Text: c.opts.Welcome})
	}
}

// onUIOfferWatchOrFork asks what to do with a session another live process
// writes: never a second writer.
func (c *Controller) onUIOfferWatchOrFork(id string, pid int) {
	msg := fmt.Sprintf("Session %s is open for writing in another rewind process (pid %d).\n\nWatch it read-only (it updates live), or fork it into a new session you can write to.", shortID(id), pid)
	c.showConfirm("Session in use", msg, []views.Choice{
		{Label: "Watch read-only", Key: 'w'},
		{Label: "Fork into a new session", Key: 'f'},
		{Label: "Quit", Key: 'q', Dangerous: true},
	}, 0, func(i int) {
		switch i {
		case 0:
			c.setMessage("watching read-only: the other process is the writer", false)
		case 1:
			c.onUIFork(id)
		default:
			c.onUIQuit()
		}
	})
}

// onUIFork forks the open session's current generation into a new session
// and opens that for writing.
func (c *Controller) onUIFork(id string) {
	if c.busy != "" {
		c.setMessage("wait for the run to finish (or press Esc) before forking", true)
		return
	}
	src, err := c.db.GetSession(c.ctx, id)
	if err != nil {
		c.setMessage("fork: "+err.Error(), true)
		return
	}
	c.onUIForkInto(id, src.CurrentGen, func(fork string) string {
		return fmt.Sprintf("Forked session %s into %s: this copy is yours to write; the original is unchanged.", shortID(id), shortID(fork))
	})
}

// onUIForkInto forks generation gen of session id into a new session, opens
// it for writing and shows banner(new id). It reports whether it did.
func (c *Controller) onUIForkInto(id string, gen int, banner func(fork string) string) bool {
	fork, err := c.db.ForkSession(c.ctx, id, gen, -1)
	if err != nil {
		c.setMessage("fork: "+err.Error(), true)
		return false
	}
	if err := c.attach(c.ctx, fork, false); err != nil {
		c.setMessage("fork: "+err.Error(), true)
		return false
	}
	c.onUIReloadSession(&views.Item{Kind: views.ItemBanner, Banner: views.BannerInfo, Text: banner(fork.ID)})
	return true
}

// onUIOpenSession switches the workspace to another session (session list
// Enter).
func (c *Controller) onUIOpenSession(id string) {
	if o := c.cur(); o != nil && o.sess.ID == id {
		c.app.SetFocus(c.input)
		return
	}
	if c.busy != "" {
		c.setMessage("a run is active: press Esc to stop it before switching sessions", true)
		return
	}
	sess, err := c.db.GetSession(c.ctx, id)
	if err != nil {
		c.setMessage("open session: "+err.Error(), true)
		return
	}
	if err := c.attach(c.ctx, sess, false); err != nil {
		c.setMessage("open session: "+err.Error(), true)
		return
	}
	c.onUIReloadSession(nil)
	c.app.SetFocus(c.input)
	if c.watchPID != 0 {
		c.onUIOfferWatchOrFork(sess.ID, c.watchPID)
	}
}

// onUIReloadSession reloads the open session's view on a worker.
func (c *Controller) onUIReloadSession(banner *views.Item) {
	c.onWorker(func() { c.onWorkerReload(banner) })
}

func shortID(id string) string {
	if len(id) > 10 {
		return id[:10]
	}
	return id
}

// soulConfig is the configured loop with sess's file checkpoint tracker.
// Without one the agent still works; file rewinds then have nothing to undo,
// so the user is told once.
func (c *Controller) soulConfig(sess store.Session) soul.Config {
	cfg := c.opts.Soul
	if c.opts.Files == nil {
		return cfg
	}
	files, err := c.opts.Files(sess)
	if err != nil {
		c.setMessage("file checkpoints are off for this session: "+oneLine(err.Error(), 120), true)
		return cfg
	}
	cfg.Files = files
	return cfg
}

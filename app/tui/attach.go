package tui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"

	"github.com/rewind-agent/rewind/app/live"
	"github.com/rewind-agent/rewind/app/timetravel"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/agentspec"
	"github.com/rewind-agent/rewind/soul/instructions"
	"github.com/rewind-agent/rewind/store"
)

// attacher is the database side of opening a session: the lease, the
// live channel, and the Soul built from the options, the work dir's yolo
// and the workspace's plan mode. It runs on workers (or before the UI
// starts), never on the UI goroutine; the Controller installs what it
// prepared (onUIInstall).
type attacher struct {
	opts *Options // the model may change (/model): read at each attach
	db   *store.DB
	// unclaimed are the sessions leased here whose installation or release
	// has not run yet (session.go).
	unclaimed unclaimed
	// releases are the leases of sessions the workspace left, being given
	// up on workers.
	releases releases
	yoloIn   func(workDir string) bool // YOLO set for a work dir (approvals.go)
	plan     *atomic.Bool              // plan mode is the workspace's (plan.go)
	sink     soul.Sink                 // the Controller's: events to the pipeline
	later    func(f func())            // onUIThreadAsync
	// remoteAnswered closes the approval a watcher answered (UI).
	remoteAnswered func(req *soul.ApprovalRequest, a live.Answer)
}

// attachment is a session made ready to open: the database side of opening
// it (lease, the Soul's first view read) is done, off the UI goroutine.
type attachment struct {
	o        *openSession
	readOnly bool
	note     string // a status-bar warning (file checkpoints off)
}

// onWorkerAttach prepares sess for opening: with a lease and a Soul when
// writing, read-only when asked or when another live process holds the
// lease. It runs every database call of opening a session, so it must run
// on a worker (or before the UI starts), never on the UI goroutine.
// cfg is the loop's configuration, read on the UI goroutine (/yolo changes it).
func (c *attacher) onWorkerAttach(ctx context.Context, cfg soul.Config, sess store.Session, readOnly bool) (attachment, error) {
	a := attachment{o: &openSession{sess: sess}}
	if c.opts.Client == nil {
		readOnly = true // watch without a model configured: nothing could be written
	}
	if dir := workDirOf(sess, c.opts.WorkDir); !readOnly && timetravel.DirMissing(dir) {
		// Every tool would fail there: read-only, a fork offered instead
		// (missing_dir.go); a session another process writes is watched.
		if pid, _, err := c.db.LiveLease(ctx, sess.ID); err == nil && pid == 0 {
			readOnly = true
			a.o.missingDir = dir
		}
	}
	if c.opts.demoElsewhere(sess) {
		readOnly = true // the scripted model works only in its scratch dir
	}
	if !readOnly {
		c.releases.wait(ctx, sess.ID) // a session just left: its lease is the workspace's own
		var lease *store.Lease
		err := c.db.RetryBusy(ctx, func() (err error) {
			lease, err = c.db.AcquireLease(ctx, sess.ID)
			return err
		})
		switch {
		case errors.Is(err, store.ErrLeaseHeld):
			pid, _, _ := c.db.LiveLease(ctx, sess.ID)
			a.o.watchPID = max(pid, 1)
			readOnly = true
		case err != nil:
			return attachment{}, fmt.Errorf("lease session %s: %w", sess.ID, err)
		default:
			c.unclaimed.add(a.o)
			cfg, note := c.soulConfig(cfg, sess)
			dir := workDirOf(sess, c.opts.WorkDir)
			pub, pnote := c.onWorkerPublish(sess, dir)
			a.o.lease, a.o.pub, a.note, a.o.instructions = lease, pub, joinNotes(note, pnote), cfg.Instructions
			cfg.Yolo = c.yoloIn(dir) // yolo belongs to a work dir
			agent, anote := c.onWorkerAgent(ctx, sess)
			a.note = joinNotes(a.note, anote)
			cfg.Agent, a.o.agent = agent, agent
			cfg.Plan = c.plan.Load()               // plan mode is the workspace's
			if !agent.Offers(soul.AgentToolName) { // exactly the agent file's tools
				cfg.Subagents = nil
			}
			a.o.soul = soul.New(cfg, c.db, sess.ID, c.opts.Client, agent.ToolSet(c.opts.Tools), dir, c.publishingSink(pub))
			if pub != nil {
				// Before its first run the writer publishes the session's
				// numbers from the store (`rewind runs`, watchers).
				pub.Publish(a.o.soul.Status())
			}
		}
	}
	a.readOnly = readOnly
	// A sub-agent a revert of its parent archived opens, and says so.
	a.note = joinNotes(a.note, timetravel.SubagentArchived(ctx, c.db, sess))
	return a, nil
}

// onWorkerAgent is the agent sess goes on with: the one it was started
// with, unless the command line named another (Options.AgentOf). One that
// does not load now is a status note, and the workspace's agent runs it.
func (c *attacher) onWorkerAgent(ctx context.Context, sess store.Session) (*agentspec.Agent, string) {
	if c.opts.AgentOf == nil {
		return c.opts.Agent, ""
	}
	a, err := c.opts.AgentOf(ctx, sess)
	if err != nil {
		return c.opts.Agent, oneLine(err.Error(), 300) + " · running " + c.opts.Agent.Name
	}
	return a, ""
}

// soulConfig is the configured loop with sess's file checkpoint tracker.
// Without one the agent still works; file rewinds then have nothing to undo,
// so the user is told once (the returned note). Worker.
func (c *attacher) soulConfig(cfg soul.Config, sess store.Session) (soul.Config, string) {
	agents, err := instructions.Load(c.opts.Home, workDirOf(sess, c.opts.WorkDir))
	cfg.Instructions = agents
	if err != nil {
		return cfg, "project instructions: " + flat(err.Error())
	}
	if c.opts.Files == nil {
		return cfg, ""
	}
	files, err := c.opts.Files(sess)
	var fu *timetravel.FilesUnavailable
	switch {
	case errors.As(err, &fu):
		// The point first; /status shows the whole notice.
		return cfg, "file rewinds off: " + fu.Short + " · " + oneLine(fu.Reason, 200)
	case err != nil:
		return cfg, "file rewinds off: " + oneLine(err.Error(), 200)
	}
	cfg.Files = files
	return cfg, ""
}

// workDirOf is the directory the agent works in for sess.
// demoReadOnly says why the demo opens a session of another work dir
// read-only.
const demoReadOnly = "demo: other sessions open read-only — the scripted model works only in its scratch dir"

// demoElsewhere is whether sess is a session the demo must not write: one
// whose work dir is not the demo's scratch dir, where the scripted model
// would write hello.go into a real project (docs/DECISIONS.md).
func (o *Options) demoElsewhere(sess store.Session) bool {
	return o.Demo && filepath.Clean(workDirOf(sess, o.WorkDir)) != filepath.Clean(o.WorkDir)
}

// releases are the leases being given up on workers, by session: opening
// one of those sessions again waits for its release, or it found the
// workspace's own lease still held and watched the session read-only.
type releases struct {
	m    sync.Map // session ID → chan struct{}, closed once released
	hold func()   // tests: runs before a release (holds it back)
}

// start notes that id's lease is being released (any goroutine, before
// the worker that releases it starts); done ends that.
func (r *releases) start(id string) (done func()) {
	ch := make(chan struct{})
	r.m.Store(id, ch)
	return func() {
		r.m.CompareAndDelete(id, ch)
		close(ch)
	}
}

// wait waits until no release of id's lease is under way, or ctx ends.
func (r *releases) wait(ctx context.Context, id string) {
	if ch, ok := r.m.Load(id); ok {
		select {
		case <-ch.(chan struct{}):
		case <-ctx.Done():
		}
	}
}

// release gives up o's lease and live channel (worker).
func (r *releases) release(ctx context.Context, o *openSession, done func()) {
	defer done()
	if r.hold != nil {
		r.hold()
	}
	closePublisher(o)
	_ = o.lease.Release(ctx)
}

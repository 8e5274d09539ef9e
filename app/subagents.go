package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/rewind-agent/rewind/app/live"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/store"
)

// This file gives the soul its sub-agents (the Agent tool): each run is a
// session of its own in the same database, held by this process's lease
// while it runs and published on its own live channel (rewind watch CHILD).

// subagentHost opens sub-agent sessions for the soul (soul.SubagentHost).
type subagentHost struct {
	db   *store.DB
	home string // REWIND_HOME: the live channel's socket; "" none
}

var _ soul.SubagentHost = (*subagentHost)(nil)

// SubagentsConfig is the soul's Subagents for sessions of db, with the
// configured limit of sub-agents running at once; the types are the agent
// file's (soul/agentspec).
func SubagentsConfig(db *store.DB, cfg Config) *soul.Subagents {
	return &soul.Subagents{Host: &subagentHost{db: db, home: cfg.Home}, MaxRunning: cfg.MaxRunningSubagents}
}

func (h *subagentHost) StartSubagent(ctx context.Context, r soul.SubagentStart) (soul.SubagentRun, error) {
	run := soul.SubagentRun{ArchivedWith: -1}
	var sess store.Session
	var err error
	if r.Resume != "" {
		if sess, err = h.resumable(ctx, r); err != nil {
			return run, err
		}
		archived, gen, err := h.db.SubagentArchived(ctx, sess)
		if err != nil {
			return run, err
		}
		if archived {
			run.ArchivedWith = gen
		}
	} else {
		err = h.db.RetryBusy(ctx, func() (err error) {
			sess, err = h.db.CreateSession(store.LockWait(ctx), store.NewSession{Title: r.Description, WorkDir: r.WorkDir, Model: r.Model, Agent: r.Agent,
				Subagent: store.SubagentOrigin{Of: r.Parent, CallID: r.CallID, Type: r.Type}})
			return err
		})
		if err != nil {
			return run, fmt.Errorf("create the sub-agent's session: %w", err)
		}
	}
	var lease *store.Lease
	err = h.db.RetryBusy(ctx, func() (err error) {
		lease, err = h.db.AcquireLease(ctx, sess.ID)
		return err
	})
	switch {
	case errors.Is(err, store.ErrLeaseHeld):
		return run, fmt.Errorf("sub-agent %s is running elsewhere; wait for it to finish, or start a new one", sess.ID)
	case err != nil:
		return run, fmt.Errorf("lease sub-agent session %s: %w", sess.ID, err)
	}
	run.SessionID, run.Type = sess.ID, sess.SubagentType
	var pub *live.Publisher
	if h.home != "" {
		// Watching it is a convenience: without a channel the run goes on.
		pub, _ = live.Listen(live.Options{Home: h.home, Hello: live.Hello{SessionID: sess.ID, Title: sess.Title, WorkDir: r.WorkDir,
			Model: r.Model, SubagentOf: r.Parent, SubagentType: sess.SubagentType}})
	}
	if pub != nil {
		run.Publish = pub.Publish
	}
	run.Close = func() {
		if pub != nil {
			pub.Close()
		}
		lease.Release(context.WithoutCancel(ctx))
	}
	return run, nil
}

// resumable is the sub-agent session r.Resume names, if it is one of the
// parent's.
func (h *subagentHost) resumable(ctx context.Context, r soul.SubagentStart) (store.Session, error) {
	sess, err := h.db.GetSession(ctx, r.Resume)
	switch {
	case errors.Is(err, store.ErrSessionNotFound):
		return sess, fmt.Errorf("there is no sub-agent %s: pass the agent_id an earlier Agent call returned", r.Resume)
	case err != nil:
		return sess, fmt.Errorf("find sub-agent %s: %w", r.Resume, err)
	case sess.SubagentOf == "":
		return sess, fmt.Errorf("session %s is not a sub-agent run: pass the agent_id an earlier Agent call returned", sess.ID)
	case sess.SubagentOf != r.Parent:
		return sess, fmt.Errorf("sub-agent %s belongs to another session: start a new one", sess.ID)
	}
	return sess, nil
}

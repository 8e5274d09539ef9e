package tui

import (
	"context"
	"fmt"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// A session whose work dir is not on this machine (imported from another
// one, or the dir removed since) cannot be continued in place: every tool
// would fail with "bad work dir". It opens read-only, and one question
// offers to keep reading it or to fork it into the dir rewind was started
// in, where the fork is writable (docs/DECISIONS.md).

// onUIOfferMissingDir asks what to do with o, open read-only because its
// work dir is missing.
func (c *Controller) onUIOfferMissingDir(o *openSession) {
	if c.cur() != o || c.quitting {
		return
	}
	here := c.opts.WorkDir
	msg := fmt.Sprintf("This session works in %s, which is not on this machine (imported from elsewhere, or removed since): its tools would fail there, so it is open read-only.\n\nFork it into %s, the dir rewind was started in, to continue it there? The original stays as it is.", o.missingDir, here)
	choices := []views.Choice{
		{Label: "Read-only: read, search and export it", Key: 'r'},
		{Label: "Fork into " + here, Key: 'f'},
	}
	if here == "" || c.opts.Client == nil { // no model: a fork could not be written either
		choices = choices[:1]
	}
	c.showConfirm("Work dir not on this machine", msg, choices, 0, func(i int) {
		if i == 1 {
			c.onUIForkHere(o.sess.ID, here)
		}
	})
}

// onUIForkHere forks session id's current view into a new session that
// works in dir, and switches to it.
func (c *Controller) onUIForkHere(id, dir string) {
	if c.refuse("forking", ruleRunActive) {
		return
	}
	c.onUISwitch("fork", func(ctx context.Context) (store.Session, *views.Item, error) {
		fork, err := c.db.ForkSession(ctx, id, -1, -1)
		if err != nil {
			return store.Session{}, nil, err
		}
		if err := c.db.SetWorkDir(ctx, fork.ID, dir); err != nil {
			return store.Session{}, nil, err
		}
		fork.WorkDir = dir
		text := fmt.Sprintf("Forked session %s into this new session %s, which works in %s: yours to continue; the original is unchanged.", shortID(id), shortID(fork.ID), dir)
		return fork, &views.Item{Kind: views.ItemBanner, Banner: views.BannerInfo, Text: text}, nil
	}, func() {
		c.br.onUIOpened(false)
		c.onWorker(c.br.onWorkerListPane)
		c.app.SetFocus(c.input)
	})
}

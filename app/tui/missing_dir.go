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

// missingDir is the question about a session whose work dir is missing.
type missingDir struct {
	c missingDirDeps
}

// missingDirDeps is what the question reaches besides the common: the dir
// rewind was started in, whether a model is configured, the session lists
// and the input (after a fork), and the session switch.
type missingDirDeps struct {
	featureCommon
	missingDirHost
	input    *views.Input
	lists    sessionLists
	startDir string // Options.WorkDir
	noModel  bool   // Options.Client is nil: a fork could not be written either
}

type missingDirHost interface {
	isQuitting() bool
	onUISwitch(what string, load func(ctx context.Context) (store.Session, *views.Item, error), installed, then func())
}

// sessionLists is the session browser as the features that open or change
// a session see it (browser.go): the lists are told of the switch and
// re-listed.
type sessionLists interface {
	onUIOpened(withBanner bool)
	onUIRefresh()
	onWorkerListPane()
}

func (c *Controller) initMissingDir() {
	c.md = &missingDir{c: missingDirDeps{featureCommon: c.common(), missingDirHost: c, input: c.input, lists: c.br,
		startDir: c.opts.WorkDir, noModel: c.opts.Client == nil}}
}

// onUIOffer asks what to do with o, open read-only because its work dir is
// missing.
func (m *missingDir) onUIOffer(o *openSession) {
	c := m.c
	if c.cur() != o || c.isQuitting() {
		return
	}
	here := c.startDir
	msg := fmt.Sprintf("This session works in %s, which is not on this machine (imported from elsewhere, or removed since): its tools would fail there, so it is open read-only.\n\nFork it into %s, the dir rewind was started in, to continue it there? The original stays as it is.", o.missingDir, here)
	choices := []views.Choice{
		{Label: "Read-only: read, search and export it", Key: 'r'},
		{Label: "Fork into " + here, Key: 'f'},
	}
	if here == "" || c.noModel {
		choices = choices[:1]
	}
	c.showConfirm("Work dir not on this machine", msg, choices, 0, func(i int) {
		if i == 1 {
			m.onUIForkHere(o.sess.ID, here)
		}
	})
}

// onUIForkHere forks session id's current view into a new session that
// works in dir, and switches to it.
func (m *missingDir) onUIForkHere(id, dir string) {
	c := m.c
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
		c.lists.onUIOpened(false)
		c.onWorker(c.lists.onWorkerListPane)
		c.app.SetFocus(c.input)
	}, nil)
}

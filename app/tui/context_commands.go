package tui

import (
	"context"
	"fmt"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// /compact and /clear: each runs a soul operation that makes a new
// generation of the open session's context (the old one archived), as an
// operation of the workspace (Esc cancels it), and reloads the view.

// contextCommands are the commands above; they hold no state of their own.
type contextCommands struct {
	c contextCommandsDeps
}

// contextCommandsDeps is what they reach besides the common: the
// Controller's operations and reload.
type contextCommandsDeps struct {
	featureCommon
	contextCommandsHost
}

type contextCommandsHost interface {
	startOp(op string, f func(ctx context.Context) error)
	onWorkerReload(banner *views.Item)
}

func (c *Controller) initContextCommands() {
	cc := &contextCommands{c: contextCommandsDeps{featureCommon: c.common(), contextCommandsHost: c}}
	c.commands.add(Command{Name: "/compact", Description: "summarise the context into a new generation (the original is archived)", DisabledWhen: []rule{ruleRunActive, ruleReadOnly}, Run: cc.cmdCompact})
	c.commands.add(Command{Name: "/clear", Description: "start an empty context (the current one is archived, /restore brings it back)", DisabledWhen: []rule{ruleRunActive, ruleReadOnly}, Run: cc.cmdClear})
}

// needSoul returns the writable open session or says why there is none.
func (cc *contextCommands) needSoul(what string) (*openSession, bool) {
	o := cc.c.cur()
	if o == nil || o.soul == nil {
		cc.c.setMessage("nothing to "+what+" yet: the session is empty", false)
		return nil, false
	}
	return o, true
}

func (cc *contextCommands) cmdCompact(string) {
	c := cc.c
	o, ok := cc.needSoul("compact")
	if !ok {
		return
	}
	before := c.statusModel().Generation
	c.startOp("compaction", func(ctx context.Context) error {
		err := o.soul.Compact(ctx)
		if err == nil && o.soul.Status().Generation == before {
			c.post(evNote{text: "nothing to compact yet: the context holds only the last messages, which compaction keeps", news: true})
		}
		return err
	})
}

// genOp runs a generation-changing soul operation and reloads the view
// with a banner saying what happened.
func (cc *contextCommands) genOp(op string, f func(ctx context.Context, s *soul.Soul) (store.Generation, error), banner func(g store.Generation, prev int) string) {
	c := cc.c
	o, ok := cc.needSoul(op)
	if !ok {
		return
	}
	prev := c.statusModel().Generation
	c.startOp(op, func(ctx context.Context) error {
		g, err := f(ctx, o.soul)
		if err != nil {
			return err
		}
		c.onWorkerReload(&views.Item{Kind: views.ItemBanner, Banner: views.BannerBacktrack, Text: banner(g, prev)})
		return nil
	})
}

func (cc *contextCommands) cmdClear(string) {
	cc.genOp("clear", func(ctx context.Context, s *soul.Soul) (store.Generation, error) { return s.Clear(ctx) },
		func(g store.Generation, prev int) string {
			return fmt.Sprintf("Context cleared: generation %d starts empty · generation %d is archived (/restore %d brings it back)", g.Gen, prev, prev)
		})
}

package tui

import (
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// inputHistoryLoad is how many earlier prompts of the work dir the input
// gets at start (Up/Down and Ctrl-R walk them).
const inputHistoryLoad = 500

// inputHistory keeps the prompts of the work dir: it loads them into the
// input and records each one sent.
type inputHistory struct {
	c inputHistoryDeps
}

// inputHistoryDeps is what the input history reaches besides the common:
// the work dir whose history it is and what handles a prompt once
// recorded.
type inputHistoryDeps struct {
	featureCommon
	inputHistoryHost
	workDir string // Options.WorkDir
}

type inputHistoryHost interface {
	onUISubmit(text, shown string)
}

// initInputHistory gives the input the prompts typed earlier in this work
// dir, from the database. New calls it before the UI runs, so it may read
// the store here.
func (c *Controller) initInputHistory() {
	h := &inputHistory{c: inputHistoryDeps{featureCommon: c.common(), inputHistoryHost: c, workDir: c.opts.WorkDir}}
	c.input.SetOnSend(h.onUISend)
	prompts, err := c.db.InputHistory(c.ctx, c.opts.WorkDir, inputHistoryLoad)
	if err != nil {
		c.msg.setMessage("input history unavailable: "+err.Error(), true)
		return
	}
	c.input.SetHistory(prompts)
}

// onUISend is Enter in the input: the prompt joins the work dir's history
// (written on a worker) and goes on as a command or a prompt.
func (h *inputHistory) onUISend(text, shown string) {
	c := h.c
	c.onWorker(func() {
		// A write lock held elsewhere delays the entry (the status bar says
		// the database is busy) rather than failing it, until the quit:
		// it waits for every worker, so the wait ends with it
		// (store.LockWait), not a whole busy timeout later.
		if err := c.db.RetryBusy(c.ctx, func() error {
			return c.db.AddInputHistory(store.LockWait(c.ctx), c.workDir, text)
		}); err != nil && c.ctx.Err() == nil {
			c.post(evNote{text: "cannot save the input history: " + err.Error(), isErr: true})
		}
	})
	c.onUISubmit(text, shown)
}

// promptItem is the conversation item of a prompt: long pastes folded as
// the input showed them, the whole text a keypress away.
func promptItem(text, shown string) views.Item {
	it := views.Item{Kind: views.ItemUser, Text: text}
	if shown != text {
		it.Text, it.Full = shown, text
	}
	return it
}

package tui

import (
	"fmt"
	"time"

	"github.com/rewind-agent/rewind/app/live"
	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/views"
)

// The runs feature: /runs lists every session a live rewind writes on this
// machine (app/live's sockets, as `rewind runs` does) with what its run is
// doing; choosing one opens it here, read-only while its writer lives.

// maxRunChoices bounds the runs offered (digits 1–9 choose).
const maxRunChoices = 9

// initRuns registers /runs (New).
func (c *Controller) initRuns() {
	c.AddCommand(Command{Name: "/runs", Description: "live runs on this machine: state, step, elapsed, tokens; choose one to watch it", Run: func(string) { c.onUIRuns() }})
}

// onUIRuns lists the live runs on a worker and shows them.
func (c *Controller) onUIRuns() {
	if c.opts.Home == "" {
		c.setMessage("no rewind home: live runs cannot be listed", true)
		return
	}
	c.onWorker(func() {
		runs, err := live.List(c.ctx, c.opts.Home)
		if err != nil {
			c.post(evNote{text: "runs: " + err.Error(), isErr: true})
			return
		}
		for i, h := range runs {
			if s, err := c.db.GetSession(c.ctx, h.SessionID); err == nil && s.Title != "" {
				runs[i].Title = s.Title
			}
		}
		c.onUIThreadAsync(func() { c.onUIShowRuns(runs) })
	})
}

// onUIShowRuns offers the runs; the chosen one opens in the workspace.
func (c *Controller) onUIShowRuns(runs []live.Hello) {
	if len(runs) == 0 {
		c.setMessage("no live runs: a running `rewind` or `rewind -p` shows up here", false)
		return
	}
	runs = runs[:min(len(runs), maxRunChoices)]
	now := time.Now()
	choices := make([]views.Choice, 0, len(runs)+1)
	for i, h := range runs {
		title := h.Title
		if title == "" {
			title = "(untitled)"
		}
		choices = append(choices, views.Choice{Key: rune('1' + i), Label: fmt.Sprintf("%s · %s · step %d · %s · %s tok · %s",
			oneLine(title, 40), h.Run.Label(), h.Run.Step, h.Run.Elapsed(now).Round(time.Second), views.FormatTokens(h.Run.Tokens), oneLine(h.WorkDir, 40))})
	}
	choices = append(choices, views.Choice{Label: "Close", Key: 'q'})
	c.showConfirm("Live runs", fmt.Sprintf("%d %s on this machine. Choose one to watch it here.", len(runs), words.Plural(len(runs), "session is", "sessions are")), choices, 0, func(i int) {
		if i < len(runs) {
			c.watch.onUIWatch(runs[i].SessionID)
		}
	})
}

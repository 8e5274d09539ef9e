package tui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/store"
)

// Jumping in a long session's timeline: g asks for a checkpoint, / for
// words to find in the session's messages; either loads the records
// around the place from the store on a worker (onWorkerReloadAt, as a
// search hit opens) and selects its row, which previews it. Checkpoint
// numbers are the ones /revert and `rewind revert ID N` take.

// timelineFind is the last / query and its hits (UI goroutine).
type timelineFind struct {
	session string
	query   string
	hits    []store.SearchHit // newest first, in the current view only
	next    int               // the hit the next / Enter goes to
}

// findLimit bounds the hits one / reads.
const findLimit = 500

// initTimelineJump wires g and / of the timeline.
func (c *Controller) initTimelineJump() {
	c.timeline.SetOnGoTo(c.onUITimelineGoTo)
	c.timeline.SetOnFind(c.onUITimelineFind)
}

// onUITimelineGoTo asks for a checkpoint number and goes there.
func (c *Controller) onUITimelineGoTo() {
	o := c.cur()
	if o == nil {
		c.setMessage("nothing to go to yet: no checkpoints in this conversation", false)
		return
	}
	c.prompt.SetTheme(c.theme)
	c.prompt.Show("Go to checkpoint", "Checkpoint number (as /revert N takes it):", "", func(text string, ok bool) {
		c.pages.pop("prompt")
		c.app.SetFocus(c.timeline)
		if !ok || text == "" {
			return
		}
		n, err := strconv.Atoi(strings.TrimSpace(text))
		if err != nil || n < 0 {
			c.setMessage(fmt.Sprintf("%q is not a checkpoint number: g takes one as the timeline shows it", oneLine(text, 20)), true)
			return
		}
		c.onUIGoToCheckpoint(o.sess.ID, n)
	})
	c.pages.push(Page{Name: "prompt", Primitive: c.prompt})
}

// onUIGoToCheckpoint selects checkpoint n's row, loading the records
// around it when the timeline does not hold it.
func (c *Controller) onUIGoToCheckpoint(id string, n int) {
	if c.selectHitTurn(n) {
		return
	}
	c.onWorker(func() {
		at, err := c.db.FindCheckpoint(c.ctx, id, -1, n)
		switch {
		case errors.Is(err, store.ErrCheckpointNotFound):
			c.post(evNote{text: fmt.Sprintf("checkpoint %d is not in this conversation", n), isErr: true})
			return
		case err != nil:
			c.post(evNote{text: "go to checkpoint: " + oneLine(err.Error(), 100), isErr: true})
			return
		}
		c.onWorkerJump(id, hitAt{gen: at.Generation.Gen, pos: at.Pos}, fmt.Sprintf("checkpoint %d · End: the newest", n))
	})
}

// onWorkerJump loads the records around at in the open session id and
// keeps the focus on the timeline, whose row of at is selected.
func (c *Controller) onWorkerJump(id string, at hitAt, note string) {
	if o := c.cur(); o == nil || o.sess.ID != id {
		return
	}
	c.onWorkerReloadAt(nil, at)
	c.post(evFunc{f: func() {
		c.app.SetFocus(c.timeline)
		if it, ok := c.timeline.SelectedItem(); ok {
			c.tt.onUITimelineSelect(it) // the preview of the row jumped to
		}
		c.setMessage(note, false)
	}})
}

// onUITimelineFind asks for words and goes to the newest message of the
// session's current view holding them; the same words again go to the
// next older one.
func (c *Controller) onUITimelineFind() {
	o := c.cur()
	if o == nil {
		c.setMessage("nothing to find in yet: the session is empty", false)
		return
	}
	initial := ""
	if c.find.session == o.sess.ID {
		initial = c.find.query
	}
	c.prompt.SetTheme(c.theme)
	c.prompt.Show("Find in this session", "Words (as in the browser's / search; the same again: the next older):", initial, func(text string, ok bool) {
		c.pages.pop("prompt")
		c.app.SetFocus(c.timeline)
		if !ok || text == "" {
			return
		}
		if c.find.session == o.sess.ID && c.find.query == text && len(c.find.hits) > 0 {
			c.onUIFindNext(o.sess.ID)
			return
		}
		id := o.sess.ID
		c.onWorker(func() {
			ver, err := c.db.SessionVersion(c.ctx, id)
			var hits []store.SearchHit
			if err == nil {
				hits, err = c.db.Search(c.ctx, store.SearchOptions{Query: text, SessionID: id, Limit: findLimit})
			}
			if err != nil {
				c.post(evNote{text: "find: " + oneLine(err.Error(), 100), isErr: true})
				return
			}
			kept := hits[:0]
			for _, h := range hits {
				if !h.Archived && h.Gen == ver.CurrentGen {
					kept = append(kept, h)
				}
			}
			c.onUIThreadAsync(func() {
				c.find = timelineFind{session: id, query: text, hits: kept}
				if len(kept) == 0 {
					c.setMessage(fmt.Sprintf("no message of this conversation holds “%s”", oneLine(text, 40)), true)
					return
				}
				c.onUIFindNext(id)
			})
		})
	})
	c.pages.push(Page{Name: "prompt", Primitive: c.prompt})
}

// onUIFindNext goes to the next hit of the last / query.
func (c *Controller) onUIFindNext(id string) {
	f := &c.find
	if f.next >= len(f.hits) {
		f.next = 0 // wrap to the newest
	}
	h := f.hits[f.next]
	f.next++
	n := len(f.hits)
	more := ""
	if n == findLimit {
		more = "+"
	}
	note := fmt.Sprintf("“%s”: %d of %s%s %s · / Enter: the next older", oneLine(f.query, 30), f.next, words.Thousands(n), more, words.Plural(n, "message", "messages"))
	c.onWorker(func() { c.onWorkerJump(id, hitAt{gen: h.Gen, pos: h.Pos()}, note) })
}

package tui

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
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

// timelineJump is the g and / feature of the timeline (UI goroutine).
type timelineJump struct {
	c    jumpDeps
	find timelineFind // the last / query
}

// jumpDeps is what g and / reach: the database, the timeline and the
// prompt they ask in, time travel (the preview of the row jumped to), the
// open session and its reload around a place, workers and notices.
type jumpDeps struct {
	featureCommon
	jumpHost
	timeline *views.Timeline
	prompt   *views.PromptDialog
	tt       *timeTravel
}

type jumpHost interface {
	onWorkerReloadAt(banner *views.Item, at hitAt)
}

// initTimelineJump wires g and / of the timeline.
func (c *Controller) initTimelineJump() {
	j := &timelineJump{c: jumpDeps{featureCommon: c.common(), jumpHost: c, timeline: c.timeline,
		prompt: c.prompt, tt: c.tt}}
	c.timeline.SetOnGoTo(j.onUITimelineGoTo)
	c.timeline.SetOnFind(j.onUITimelineFind)
}

// onUITimelineGoTo asks for a checkpoint number and goes there.
func (j *timelineJump) onUITimelineGoTo() {
	c := j.c
	o := c.cur()
	if o == nil {
		c.setMessage("nothing to go to yet: no checkpoints in this conversation", false)
		return
	}
	c.prompt.SetTheme(c.currentTheme())
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
		j.onUIGoToCheckpoint(o.sess.ID, n)
	})
	c.pages.push(Page{Name: "prompt", Primitive: c.prompt})
}

// onUIGoToCheckpoint selects checkpoint n's row, loading the records
// around it when the timeline does not hold it.
func (j *timelineJump) onUIGoToCheckpoint(id string, n int) {
	c := j.c
	if selectHitTurn(c.timeline, n) {
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
		j.onWorkerJump(id, hitAt{gen: at.Generation.Gen, pos: at.Pos}, fmt.Sprintf("checkpoint %d · End: the newest", n))
	})
}

// onWorkerJump loads the records around at in the open session id and
// keeps the focus on the timeline, whose row of at is selected.
func (j *timelineJump) onWorkerJump(id string, at hitAt, note string) {
	c := j.c
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
func (j *timelineJump) onUITimelineFind() {
	c := j.c
	o := c.cur()
	if o == nil {
		c.setMessage("nothing to find in yet: the session is empty", false)
		return
	}
	initial := ""
	if j.find.session == o.sess.ID {
		initial = j.find.query
	}
	c.prompt.SetTheme(c.currentTheme())
	c.prompt.Show("Find in this session", "Words (as in the browser's / search; the same again: the next older):", initial, func(text string, ok bool) {
		c.pages.pop("prompt")
		c.app.SetFocus(c.timeline)
		if !ok || text == "" {
			return
		}
		if j.find.session == o.sess.ID && j.find.query == text && len(j.find.hits) > 0 {
			j.onUIFindNext(o.sess.ID)
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
				j.find = timelineFind{session: id, query: text, hits: kept}
				if len(kept) == 0 {
					c.setMessage(fmt.Sprintf("no message of this conversation holds “%s”", oneLine(text, 40)), true)
					return
				}
				j.onUIFindNext(id)
			})
		})
	})
	c.pages.push(Page{Name: "prompt", Primitive: c.prompt})
}

// onUIFindNext goes to the next hit of the last / query.
func (j *timelineJump) onUIFindNext(id string) {
	c := j.c
	f := &j.find
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
	c.onWorker(func() { j.onWorkerJump(id, hitAt{gen: h.Gen, pos: h.Pos()}, note) })
}

package tui

import (
	"fmt"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// A session's conversation is shown through a window: opening it reads the
// tail of its view (tailRecords records), and scrolling to the top reads
// the page before (pageRecords more), like a chat app. Opening a session
// therefore costs the same whatever its length (a 240,000-message import
// included), and memory grows only with what the user scrolls through.
const (
	tailRecords = 1000
	pageRecords = 1000
)

// window is the part of the open session's view the conversation holds
// (UI goroutine).
type window struct {
	session string
	gen     int
	start   store.ViewPos  // the first record loaded
	earlier int            // messages of the view before start; 0: all loaded
	records []store.Record // the records loaded, in order (the timeline's)
	loading bool           // an earlier page is being read
}

// windowOf is the window a view page shows.
func windowOf(v store.View) window {
	w := window{session: v.SessionID, gen: v.Generation.Gen, start: v.Start(), records: v.Records}
	if v.Earlier {
		w.earlier = max(1, v.Generation.Messages-messagesIn(v.Records))
	}
	return w
}

func messagesIn(rs []store.Record) int {
	n := 0
	for _, r := range rs {
		if r.Kind == store.KindMessage {
			n++
		}
	}
	return n
}

// marker is the line above the first loaded item ("" when all are loaded).
func (w window) marker() string {
	if w.earlier == 0 {
		return ""
	}
	what := fmt.Sprintf("↑ %s earlier %s", words.Thousands(w.earlier), words.Plural(w.earlier, "message", "messages"))
	if w.loading {
		return what + " · loading…"
	}
	return what + " · scroll up to load them"
}

// timelineMarker is the line above the timeline's first row: how many
// checkpoints come before the loaded part (a view numbers them from 0),
// and how to reach them ("" when all are loaded). The count comes first:
// a narrow pane cuts the line's end.
func (w window) timelineMarker() string {
	switch {
	case w.earlier == 0:
		return ""
	case w.loading:
		return "↑ loading the earlier turns…"
	}
	for _, r := range w.records {
		if r.Kind == store.KindCheckpoint && r.CheckpointID > 0 {
			return fmt.Sprintf("↑ %s earlier checkpoints: scroll up to load, or /revert N", words.Thousands(r.CheckpointID))
		}
	}
	return "↑ earlier turns: scroll up to load them"
}

// alignPage drops the records a page starts with up to the first turn or
// step boundary (a checkpoint or a user message), unless the page starts
// the view: a tool call and its results are then never split between two
// pages. A page without a boundary is kept whole.
func alignPage(v store.View) store.View {
	if !v.Earlier {
		return v
	}
	for i, r := range v.Records {
		if r.Kind == store.KindCheckpoint || r.Role == "user" {
			v.Records = v.Records[i:]
			return v
		}
	}
	return v
}

// onUILoadEarlier reads the page before the window on a worker and
// prepends its items to the conversation (the conversation calls it when
// scrolled to its top). The timeline is rebuilt over everything loaded, so
// the checkpoints of the page appear in it too.
func (c *Controller) onUILoadEarlier() {
	if !c.tt.previewing { // the conversation shows a preview: its top is not the window's
		c.loadEarlier()
	}
}

// onUITimelineTop loads the page before the window when the timeline's
// selection moves up past its first row, a preview shown or not (the page
// goes in front of the conversation the preview hides).
func (c *Controller) onUITimelineTop() { c.loadEarlier() }

// loadEarlier reads the page before the window (UI).
func (c *Controller) loadEarlier() {
	w := c.win
	if w.earlier == 0 || w.loading {
		return
	}
	c.win.loading = true
	c.showWindowMarker()
	c.onWorker(func() {
		ctx := c.ctx
		page, err := c.db.ViewBefore(ctx, w.session, w.gen, w.start, pageRecords)
		var ev evReload
		if err == nil {
			page = alignPage(page)
			loaded := page
			loaded.Records = append(append(make([]store.Record, 0, len(page.Records)+len(w.records)), page.Records...), w.records...)
			ev, err = c.reloadOf(ctx, w.session, loaded, true)
			var interrupted map[int][]message.Message // the page's dimmed partial answers
			if gens, gerr := c.db.Generations(ctx, w.session); gerr == nil {
				interrupted = interruptedIn(ctx, c.db, page, gens)
			}
			ev.items = viewItemsWith(page, interrupted)
			nw := windowOf(loaded)
			ev.win = &nw
			c.watch.onWorkerPrepend(w.session, w.gen, w.start, page.Records)
		}
		c.onUIThreadAsync(func() {
			if c.win.session != w.session || c.win.gen != w.gen || c.win.start != w.start {
				return // the view was replaced meanwhile
			}
			c.win.loading = false
			if err != nil {
				c.showWindowMarker()
				c.setMessage("cannot load the earlier messages: "+oneLine(err.Error(), 100), true)
				return
			}
			c.win = *ev.win
			if c.tt.previewing {
				c.tt.live = append(ev.items, c.tt.live...)
			} else {
				c.conv.Prepend(ev.items, c.win.marker())
			}
			c.stepStart += len(ev.items)
			c.watch.front += len(ev.items)
			c.timeline.SetModel(ev.timeline)
			c.timeline.SetEarlier(c.win.timelineMarker())
		})
	})
}

// showWindowMarker shows the window's marker above the conversation, or
// none while the conversation shows something else (a preview).
func (c *Controller) showWindowMarker() {
	c.timeline.SetEarlier(c.win.timelineMarker())
	if c.tt.previewing {
		c.conv.SetEarlier("")
		return
	}
	c.conv.SetEarlier(c.win.marker())
}

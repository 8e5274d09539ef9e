package tui

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// A session's conversation is shown through a window: opening it reads the
// tail of its view (windowSizes.tail records), and scrolling to the top
// reads the page before (windowSizes.page more), like a chat app. Opening
// a session therefore costs the same whatever its length (a
// 240,000-message import included), and memory grows only with what the
// user scrolls through.
//
// Opened at a search hit, the window is the records around the hit's
// (windowSizes.hit either side, store.ViewAround): scrolling up reads the
// page before, scrolling down the page after, until the window reaches the
// end of the view; from there it is the tail window, which live appends
// extend. G/End, or a prompt sent, jumps to the end (the tail is read
// again).

// windowSizes are the window's reads, in records (viewReader.sizes).
type windowSizes struct {
	tail, page, hit int
}

// defaultWindow is the window's reads unless Options.window replaces them
// (tests page through sessions of hundreds of turns, not thousands).
var defaultWindow = windowSizes{tail: 1000, page: 1000, hit: 500}

// window is the part of the open session's view the conversation holds
// (UI goroutine).
type window struct {
	session string
	gen     int
	start   store.ViewPos  // the first record loaded
	earlier int            // messages of the view before start; 0: all loaded
	later   int            // messages of the view after the last record loaded; 0: loaded to its end
	records []store.Record // the records loaded, in order (the timeline's)
	// The view's checkpoints before and after the records loaded
	// (store.CheckpointsOutside): the timeline's lines above and below.
	cpEarlier, cpLater int
	loading            bool // a page is being read (one at a time)
	down               bool // the page being read is the later one
}

// windowOf is the window a view page shows: its tail (ViewBefore), or the
// records around a search hit's (ViewAround, v.Later).
func windowOf(v store.View) window {
	w := window{session: v.SessionID, gen: v.Generation.Gen, start: v.Start(), records: v.Records}
	before := v.Generation.Messages - messagesIn(v.Records) // a tail page: every other message is before it
	if v.Later {
		before = v.MessagesBefore
		w.later = max(1, v.Generation.Messages-before-messagesIn(v.Records))
	}
	if v.Earlier {
		w.earlier = max(1, before)
	}
	return w
}

// countCheckpoints sets the counts of the view's checkpoints either side
// of the window (its timeline's lines), read through the checkpoint index;
// a window holding the whole view reads nothing.
func (w *window) countCheckpoints(ctx context.Context, db *store.DB) error {
	if w.earlier == 0 && w.later == 0 || len(w.records) == 0 {
		return nil
	}
	last := store.ViewPos{}
	if w.later > 0 {
		last = w.end()
	}
	var err error
	w.cpEarlier, w.cpLater, err = db.CheckpointsOutside(ctx, w.session, w.gen, w.start, last)
	return err
}

// end is the position of the last record loaded (the zero ViewPos when
// none is).
func (w window) end() store.ViewPos {
	if n := len(w.records); n > 0 {
		return store.ViewPos{SessionID: w.records[n-1].SessionID, Seq: w.records[n-1].Seq}
	}
	return store.ViewPos{}
}

// withEarlier is the window with the page before it loaded.
func (w window) withEarlier(page store.View) window {
	w.records = append(append(make([]store.Record, 0, len(page.Records)+len(w.records)), page.Records...), w.records...)
	w.start = store.ViewPos{SessionID: w.records[0].SessionID, Seq: w.records[0].Seq}
	earlier, cpEarlier := w.earlier, w.cpEarlier
	w.earlier, w.cpEarlier = 0, 0
	if page.Earlier {
		w.earlier = max(1, earlier-messagesIn(page.Records))
		w.cpEarlier = max(0, cpEarlier-checkpointsIn(page.Records))
	}
	w.loading, w.down = false, false
	return w
}

// withLater is the window with the page after it loaded.
func (w window) withLater(page store.View) window {
	w.records = append(w.records[:len(w.records):len(w.records)], page.Records...)
	later, cpLater := w.later, w.cpLater
	w.later, w.cpLater = 0, 0
	if page.Later {
		w.later = max(1, later-messagesIn(page.Records))
		w.cpLater = max(0, cpLater-checkpointsIn(page.Records))
	}
	w.loading, w.down = false, false
	return w
}

func checkpointsIn(rs []store.Record) int {
	n := 0
	for _, r := range rs {
		if r.Kind == store.KindCheckpoint {
			n++
		}
	}
	return n
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
	if w.loading && !w.down {
		return what + " · loading…"
	}
	return what + " · scroll up to load them"
}

// laterMarker is the line below the last loaded item ("" when the window
// reaches the end of the view).
func (w window) laterMarker() string {
	if w.later == 0 {
		return ""
	}
	what := fmt.Sprintf("↓ %s later %s", words.Thousands(w.later), words.Plural(w.later, "message", "messages"))
	if w.loading && w.down {
		return what + " · loading…"
	}
	return what + " · scroll down to load them · End: the newest"
}

// timelineMarker is the line above the timeline's first row: how many
// checkpoints come before the loaded part, and how to reach them ("" when
// all are loaded). The count comes first: a narrow pane drops the " · "
// parts after it (Timeline.SetEarlier).
func (w window) timelineMarker() string {
	switch {
	case w.earlier == 0:
		return ""
	case w.loading && !w.down:
		return "↑ loading the earlier turns…"
	case w.cpEarlier == 0: // messages before the first checkpoint only
		return "↑ earlier messages · scroll up to load them"
	}
	return fmt.Sprintf("↑ %s earlier %s · scroll up to load, or /revert N",
		words.Thousands(w.cpEarlier), words.Plural(w.cpEarlier, "checkpoint", "checkpoints"))
}

// timelineLaterMarker is the line below the timeline's last row when the
// loaded part stops before the end of the view (a search hit's window):
// how many checkpoints come after it ("" when none do).
func (w window) timelineLaterMarker() string {
	switch {
	case w.later == 0:
		return ""
	case w.loading && w.down:
		return "↓ loading the later turns…"
	case w.cpLater == 0:
		return "↓ later messages · down to load them"
	}
	return fmt.Sprintf("↓ %s later %s · down to load them",
		words.Thousands(w.cpLater), words.Plural(w.cpLater, "checkpoint", "checkpoints"))
}

// alignPage drops the records a page starts with up to the first turn or
// step boundary (a checkpoint or a user message), unless the page starts
// the view: a tool call and its results are then never split between two
// pages. A page without a boundary is kept whole.
func alignPage(v store.View) store.View {
	if !v.Earlier {
		return v
	}
	if i := slices.IndexFunc(v.Records, boundary); i >= 0 {
		v.Records = v.Records[i:]
	}
	return v
}

// alignEnd drops the records a page ends with from its last turn or step
// boundary after records[keep] on, unless the page ends the view: the next
// page then starts at the boundary, so a tool call and its results are
// never split between two pages. A page without such a boundary is kept
// whole.
func alignEnd(v store.View, keep int) store.View {
	if !v.Later {
		return v
	}
	for i := len(v.Records) - 1; i > keep; i-- {
		if boundary(v.Records[i]) {
			for i-1 > keep && v.Records[i-1].Kind == store.KindCheckpoint {
				i-- // the turn's checkpoint goes with its prompt
			}
			v.Records = v.Records[:i]
			return v
		}
	}
	return v
}

// alignAround aligns the window around a search hit's record (at) at both
// ends, as alignPage and alignEnd align pages, never dropping the hit's
// record; i is its index in the window (-1 when v does not hold it).
func alignAround(v store.View, at store.ViewPos) (store.View, int) {
	i := slices.IndexFunc(v.Records, func(r store.Record) bool {
		return r.Seq == at.Seq && (at.SessionID == "" || r.SessionID == at.SessionID)
	})
	if i < 0 {
		return v, -1
	}
	v = alignEnd(v, i)
	if j := slices.IndexFunc(v.Records[:i+1], boundary); v.Earlier && j > 0 {
		v.MessagesBefore += messagesIn(v.Records[:j])
		v.Records, i = v.Records[j:], i-j
	}
	return v, i
}

// boundary reports whether a turn or a step starts at r.
func boundary(r store.Record) bool { return r.Kind == store.KindCheckpoint || r.Role == "user" }

// pager moves the window over the open session's view: the pages before
// and after it as the conversation or the timeline scrolls past an end,
// and the jump to the end (UI goroutine only).
type pager struct {
	c   pagerDeps
	win window // the part of the open session's view the conversation holds
}

// pagerDeps is what the pager reaches besides the common: the panes it
// fills, time travel (a preview holds the conversation the pages go
// into), the watcher (it follows the view the pages extend) and the
// Controller's reads of a view.
type pagerDeps struct {
	featureCommon
	pagerHost
	*stepItems             // where the step attempt's items start (apply.go)
	reader     *viewReader // reads the open session's view
	conv       *views.Conversation
	timeline   *views.Timeline
	tt         *timeTravel
	watch      *watcher
}

type pagerHost interface {
	onWorkerReload(banner *views.Item)
}

// initPager wires the conversation's and the timeline's ends to the pager
// (New).
func (c *Controller) initPager() {
	pg := &pager{c: pagerDeps{featureCommon: c.common(), pagerHost: c, stepItems: c.step, reader: c.reader, conv: c.conv, timeline: c.timeline, tt: c.tt, watch: c.watch}}
	c.pg = pg
	c.conv.SetOnTop(pg.onUILoadEarlier)
	c.conv.SetOnBottom(pg.onUILoadLater)
	c.conv.SetOnEnd(func() { pg.onUIJumpToEnd(nil) })
	c.timeline.SetOnTop(pg.onUITimelineTop)
	c.timeline.SetOnBottom(pg.onUITimelineBottom)
}

// pageItems is the conversation items of a page of session id's view,
// the partial answers of its interrupted steps dimmed.
func pageItems(ctx context.Context, db *store.DB, id string, page store.View) []views.Item {
	var notes pageNotes
	if gens, err := db.Generations(ctx, id); err == nil {
		notes = notesFor(ctx, db, page, gens)
	}
	return viewItemsWith(page, notes)
}

// onUILoadEarlier reads the page before the window on a worker and
// prepends its items to the conversation (the conversation calls it when
// scrolled to its top). The timeline is rebuilt over everything loaded, so
// the checkpoints of the page appear in it too.
func (pg *pager) onUILoadEarlier() {
	c := pg.c
	if !c.tt.previewing { // the conversation shows a preview: its top is not the window's
		pg.loadEarlier(false)
	}
}

// onUITimelineTop loads the page before the window when the timeline's
// selection moves up past its first row, a preview shown or not (the page
// goes in front of the conversation the preview hides).
func (pg *pager) onUITimelineTop() { pg.loadEarlier(true) }

// loadEarlier reads the page before the window (UI); asked by the
// timeline, its selection then moves on into the page.
func (pg *pager) loadEarlier(fromTimeline bool) {
	c := pg.c
	w := pg.win
	if w.earlier == 0 || w.loading {
		return
	}
	pg.win.loading = true
	pg.showWindowMarker()
	c.onWorker(func() {
		ctx := c.ctx
		page, err := c.db.ViewBefore(ctx, w.session, w.gen, w.start, c.reader.sizes.page)
		var ev evReload
		if err == nil {
			page = alignPage(page)
			nw := w.withEarlier(page)
			loaded := page
			loaded.Records, loaded.Later = nw.records, nw.later > 0
			ev, err = c.reader.reloadOf(ctx, w.session, loaded, true)
			ev.items = pageItems(ctx, c.db, w.session, page)
			ev.win = &nw
			c.watch.onWorkerPrepend(w.session, w.gen, w.start, page.Records)
		}
		c.onUIThreadAsync(func() {
			if pg.win.session != w.session || pg.win.gen != w.gen || pg.win.start != w.start {
				return // the view was replaced meanwhile
			}
			pg.win.loading = false
			if err != nil {
				pg.showWindowMarker()
				c.setMessage("cannot load the earlier messages: "+flat(err.Error()), true)
				return
			}
			pg.win = *ev.win
			if c.tt.previewing {
				c.tt.live = append(ev.items, c.tt.live...)
			} else {
				c.conv.Prepend(ev.items, pg.win.marker())
			}
			c.shiftStepStart(len(ev.items))
			c.watch.front += len(ev.items)
			pg.setTimelineModel(ev.timeline, fromTimeline, -1)
			c.timeline.SetEarlier(pg.win.timelineMarker(), pg.win.cpEarlier)
		})
	})
}

// onUILoadLater reads the page after the window on a worker and appends
// its items to the conversation (the conversation calls it when scrolled
// to its bottom above the later marker: opened at a search hit). The page
// that reaches the end of the view makes the window the tail window: the
// followed view starts from everything loaded, so live appends extend it.
func (pg *pager) onUILoadLater() {
	c := pg.c
	if !c.tt.previewing { // the conversation shows a preview: its bottom is not the window's
		pg.loadLater(false)
	}
}

// onUITimelineBottom loads the page after the window when the timeline's
// selection moves down past its last row, a preview shown or not (the
// page goes after the conversation the preview hides).
func (pg *pager) onUITimelineBottom() { pg.loadLater(true) }

// loadLater reads the page after the window (UI); asked by the timeline,
// its selection then moves on into the page.
func (pg *pager) loadLater(fromTimeline bool) {
	c := pg.c
	w := pg.win
	if w.later == 0 || w.loading {
		return
	}
	pg.win.loading, pg.win.down = true, true
	pg.showWindowMarker()
	o := c.cur()
	c.onWorker(func() {
		ctx := c.ctx
		page, err := c.db.ViewAfter(ctx, w.session, w.gen, w.end(), c.reader.sizes.page)
		var ev evReload
		var nw window
		var items []views.Item
		if err == nil {
			page = alignEnd(page, 0)
			nw = w.withLater(page)
			loaded := page
			loaded.Records, loaded.Earlier = nw.records, nw.earlier > 0
			// at the end, the items of everything loaded: the followed view's
			ev, err = c.reader.reloadOf(ctx, w.session, loaded, nw.later > 0)
			if err == nil && nw.later == 0 && o != nil && o.sess.ID == w.session {
				c.watch.onWorkerAdopt(o, loaded, ev, false)
			}
			items = pageItems(ctx, c.db, w.session, page)
		}
		c.onUIThreadAsync(func() {
			if pg.win.session != w.session || pg.win.gen != w.gen || pg.win.start != w.start || pg.win.end() != w.end() {
				return // the view was replaced meanwhile
			}
			pg.win.loading, pg.win.down = false, false
			if err != nil {
				pg.showWindowMarker()
				c.setMessage("cannot load the later messages: "+flat(err.Error()), true)
				return
			}
			pg.win = nw
			switch {
			case !c.tt.previewing:
				c.conv.AppendPage(items, pg.win.laterMarker())
				c.markStepStart()
			case nw.later == 0:
				c.tt.live = ev.items // everything loaded: the followed view's items
			default:
				c.tt.live = append(c.tt.live, items...)
			}
			if nw.later == 0 {
				c.watch.onUIConvReplaced(ev)
			}
			pg.setTimelineModel(ev.timeline, fromTimeline, 1)
			pg.showWindowMarker()
		})
	})
}

// onUIJumpToEnd leaves a search hit's window for the end of the
// conversation (G/End there, or a prompt sent from it): the tail is read
// again, as on opening the session; then runs once it is shown.
func (pg *pager) onUIJumpToEnd(then func()) {
	c := pg.c
	c.onWorker(func() {
		c.onWorkerReload(nil)
		if then != nil {
			c.post(evFunc{f: then})
		}
	})
}

// showWindowMarker shows the window's markers above and below the
// conversation, or none while the conversation shows something else (a
// preview).
func (pg *pager) showWindowMarker() {
	c := pg.c
	c.timeline.SetEarlier(pg.win.timelineMarker(), pg.win.cpEarlier)
	c.timeline.SetLater(pg.win.timelineLaterMarker(), pg.win.cpLater)
	if c.tt.previewing {
		c.conv.SetEarlier("")
		c.conv.SetLater("")
		return
	}
	c.conv.SetEarlier(pg.win.marker())
	c.conv.SetLater(pg.win.laterMarker())
}

// setTimelineModel shows a timeline grown by a page; when the timeline's
// selection moving past its end asked for the page (step: +1 down, -1
// up), the selection moves on into it.
func (pg *pager) setTimelineModel(m views.TimelineModel, moveOn bool, step int) {
	c := pg.c
	c.timeline.SetModel(m)
	if moveOn {
		c.timeline.Select(c.timeline.SelectedIndex() + step)
	}
}

// selectHitTurn selects the timeline row of the checkpoint a search hit
// comes after (its turn's row when the step is folded under it).
func selectHitTurn(tl *views.Timeline, cp int) bool {
	if tl.SelectCheckpoint(cp) {
		return true
	}
	for _, r := range tl.Model().Checkpoints {
		if r.ID == cp && r.Step > 0 {
			return tl.SelectCheckpoint(r.Turn)
		}
	}
	return false
}

// turnsBeforeCache remembers the count of turns before a window's first
// record (store.TurnsBefore reads every checkpoint before it: 40–75 ms in
// a 250,000-record view). A generation's records never change, so the
// count of (session, generation, start) holds while it is current; a
// later page or a reload at the same start reads nothing.
type turnsBeforeCache struct {
	mu    sync.Mutex
	key   turnsBeforeKey
	turns int
	ok    bool
}

type turnsBeforeKey struct {
	db      *store.DB
	session string
	gen     int
	start   store.ViewPos
}

var turnsBefore turnsBeforeCache

// count is the number of turns of v's view before its first record (a
// worker: it reads the store).
func (c *turnsBeforeCache) count(ctx context.Context, db *store.DB, v store.View) (int, error) {
	k := turnsBeforeKey{db, v.SessionID, v.Generation.Gen, v.Start()}
	c.mu.Lock()
	if c.ok && c.key == k {
		defer c.mu.Unlock()
		return c.turns, nil
	}
	c.mu.Unlock()
	n, err := db.TurnsBefore(ctx, v.SessionID, v.Generation.Gen, v.Start())
	if err != nil {
		return 0, err
	}
	c.mu.Lock()
	c.key, c.turns, c.ok = k, n, true
	c.mu.Unlock()
	return n, nil
}

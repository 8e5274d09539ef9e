package tui

import (
	"github.com/rewind-agent/rewind/app/timetravel"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// Following what the database holds of the open session, a record at a
// time: the watcher keeps, on the workers, what it built from the view it
// read (conversation items, turns, the writer's run, where each checkpoint
// is), and when the session changes it reads only the records after the
// last seq it has (store.ViewSince) and adds them. The whole view is read
// again only when another generation became current (a revert, restore,
// compaction, clear or interrupt), the open session changed, or the
// conversation on screen is not the one the additions continue (then the
// UI asks for a whole read: onUIFollow).
//
// A watcher's conversation takes the committed items; the writer's own
// conversation is live from its events, so for it only the timeline
// follows. Mid-run a watcher's conversation follows the writer's live
// channel (watch.go): the poll adds records to the timeline only, and the
// step boundaries (StepBegin, RunEnd) replace the streamed items with the
// committed ones.

// followedView is what the watcher built from the open session's view
// (workers; watcher.viewMu guards it: the version poll, the live channel
// and the writer check use it).
type followedView struct {
	id       string // "" until the first whole read
	withConv bool   // items are built (a watcher's): the session has no soul here
	gen      int
	cursor   int64          // store.View.Cursor of what was read
	takenAt  int64          // cursor of the last conversation update posted
	records  int            // records of the view read so far
	recs     []store.Record // and those records (an earlier page reads the turns again)

	items   itemBuilder
	turns   timetravel.TurnBuilder
	run     runTracker
	cps     map[int]int // checkpoint id → index among the records (the last one)
	lastAst int         // index of the last assistant message, -1 without
	genRows []views.GenerationRow
	title   string
	// The timeline rows of every turn but the last (final: only the last
	// turn changes as records come), and how many turns they cover.
	doneRows  []views.CheckpointRow
	doneTurns int
	// turnBase is how many turns of the view come before recs (a long
	// view's window): the timeline's turn numbers start after them.
	turnBase int
}

// catchUp says what a catch-up is for.
type catchUp struct {
	conv  bool // the conversation takes the committed records (else the timeline only)
	force bool // read the whole view (the conversation on screen is not the one followed)
	// boundary is a step boundary of the writer's live run: post even when
	// nothing was committed, so the streamed items make way.
	boundary bool
}

// evFollow is what the open session gained since the last catch-up: the
// timeline, and with conv the conversation's new committed items (after
// the first base committed ones, which the UI must show at cursor from).
type evFollow struct {
	session  string
	gen      int
	title    string
	timeline views.TimelineModel
	tokens   int // the session's saved token count; -1 not read

	conv     bool
	from, to int64 // the cursors before and after the new records
	base     int   // committed items before these
	items    []views.Item
	results  []toolResult
}

func (evFollow) EventType() string { return "tui.follow" }

// convAt is what the conversation on screen shows of the database (UI): the
// first committed items of session's generation gen up to cursor seq.
type convAt struct {
	session   string
	gen       int
	seq       int64
	committed int
}

// onWorkerCatchUp brings what the workspace shows of o up to date with the
// database and posts it (worker). It returns whether the step that began
// at checkpoint step is already committed (step < 0: no step).
func (w *watcher) onWorkerCatchUp(o *openSession, cu catchUp, step int) bool {
	c := w.c
	w.viewMu.Lock()
	defer w.viewMu.Unlock()
	if c.cur() != o {
		return false // switched since the poll began: the new session is followed from its own read
	}
	f := &w.view
	withConv := o.soul == nil
	// A whole read mid-run left the conversation on screen behind: the
	// conversation's next update is a whole one too.
	behind := cu.conv && withConv && f.takenAt < 0
	if cu.force || behind || f.id != o.sess.ID || f.withConv != withConv {
		return w.onWorkerReadWhole(f, o, cu, withConv, step)
	}
	c.pollStats.deltaReads.Add(1)
	d, err := c.db.ViewSince(c.ctx, o.sess.ID, f.gen, f.cursor)
	if err != nil {
		c.post(evNote{text: "cannot read the session: " + err.Error(), isErr: true})
		return false
	}
	if d.Reset {
		return w.onWorkerReadWhole(f, o, cu, withConv, step)
	}
	c.pollStats.deltaRecords.Add(int64(len(d.Records)))
	f.add(d.Records)
	if withConv {
		for _, r := range d.Records {
			f.items.add(r)
		}
	}
	tokens := -1
	if len(d.Records) > 0 {
		f.cursor = d.Records[len(d.Records)-1].Seq
		if s, err := c.db.GetSession(c.ctx, o.sess.ID); err == nil {
			f.title = s.Title // a writer names the session after its first prompt
			tokens = s.Tokens
		}
	}
	if len(d.Records) > 0 || cu.boundary {
		ev := evFollow{session: f.id, gen: f.gen, title: f.title, timeline: f.timeline(d.Generation), tokens: tokens}
		if cu.conv && withConv {
			ev.conv, ev.from, ev.base, ev.to = true, f.takenAt, f.items.taken, f.cursor
			f.items.pending = w.importing.Load()
			ev.items, ev.results = f.items.take()
			f.takenAt = f.cursor
		}
		c.post(ev)
	}
	return step >= 0 && f.stepCommitted(step)
}

// onWorkerReadWhole reads o's whole view, posts it and starts following it
// from there (f locked).
func (w *watcher) onWorkerReadWhole(f *followedView, o *openSession, cu catchUp, withConv bool, step int) bool {
	c := w.c
	v, err := c.reader.readView(c.ctx, o.sess.ID)
	if err != nil {
		c.post(evNote{text: "cannot read the session: " + err.Error(), isErr: true})
		return false
	}
	ev, err := c.reader.reloadOf(c.ctx, o.sess.ID, v, !withConv)
	if err != nil {
		c.post(evNote{text: "cannot read the session: " + err.Error(), isErr: true})
		return false
	}
	f.reset(v, ev, withConv)
	if withConv && !cu.conv {
		// Mid-run: the conversation stays the live one; the next update of
		// it (at the step boundary) brings everything since the read.
		ev.keepConv, ev.items = true, nil
		f.takenAt = -1 // not on screen: the conversation's next update reads the whole view
	}
	ev.follow = true
	c.post(ev)
	return step >= 0 && f.stepCommitted(step)
}

// onWorkerAdopt follows o from v, a whole read of its view that ev (built
// with its conversation) shows, and posts ev when asked, so the next change
// loads only what v gained (a worker, or New before the UI starts). It
// reports whether o is still the open session (ev was posted if asked).
//
// A catch-up may have read the session after v was read (the version poll
// follows a newly opened session at once, beside the switch's reload): v
// then lacks what the catch-up read and showed, and the poll, which saw
// that version already, would not read again. So after v, what the
// session gained since v is read and posted as any catch-up's is.
func (w *watcher) onWorkerAdopt(o *openSession, v store.View, ev evReload, post bool) bool {
	w.viewMu.Lock()
	if w.c.cur() != o {
		w.viewMu.Unlock()
		return false // switched since the read: following it would follow the wrong session
	}
	f := &w.view
	newer := f.id == v.SessionID && (f.gen != v.Generation.Gen || f.cursor > v.Cursor())
	f.reset(v, ev, o.soul == nil)
	if post {
		w.c.post(ev) // under the lock: no catch-up posts between the read and it
	}
	w.c.pollStats.adopts.Add(1)
	w.viewMu.Unlock()
	if newer {
		w.onWorkerCatchUp(o, catchUp{conv: !w.inRun.Load()}, -1)
	}
	return true
}

// reset starts following v, which ev (built from v) shows.
func (f *followedView) reset(v store.View, ev evReload, withConv bool) {
	*f = followedView{id: v.SessionID, withConv: withConv, gen: v.Generation.Gen, cursor: v.Cursor(), takenAt: v.Cursor(),
		lastAst: -1, title: ev.title,
		genRows: append([]views.GenerationRow(nil), ev.timeline.Generations...)} // the timeline pane writes to the posted rows
	if withConv {
		f.items.seed(ev.items)
	}
	for _, r := range ev.timeline.Checkpoints { // ev numbered v's turns in the whole view
		if r.TurnNo > 0 {
			f.turnBase = r.TurnNo - 1
			break
		}
	}
	f.add(v.Records)
}

// add reads more records of the view into the turns, the run and the
// checkpoint index (the conversation items are the itemBuilder's).
func (f *followedView) add(recs []store.Record) {
	f.recs = append(f.recs, recs...)
	f.turns.Add(recs...)
	for _, r := range recs {
		f.run.add(r)
		switch {
		case r.Kind == store.KindCheckpoint:
			if f.cps == nil {
				f.cps = map[int]int{}
			}
			f.cps[r.CheckpointID] = f.records
		case r.Kind == store.KindMessage && r.Role == "assistant":
			f.lastAst = f.records
		}
		f.records++
	}
}

// onWorkerPrepend adds an earlier page of session id's generation gen,
// read before position start, to the followed view when the view starts
// there (it was read with the window the page extends): the turns the page
// brought into the timeline stay in it as the session gains records.
func (w *watcher) onWorkerPrepend(id string, gen int, start store.ViewPos, page []store.Record) {
	w.viewMu.Lock()
	defer w.viewMu.Unlock()
	f := &w.view
	if f.id != id || f.gen != gen || len(f.recs) == 0 || (store.ViewPos{SessionID: f.recs[0].SessionID, Seq: f.recs[0].Seq}) != start {
		return
	}
	n := len(page)
	for cp, i := range f.cps {
		f.cps[cp] = i + n
	}
	for i, r := range page {
		if _, ok := f.cps[r.CheckpointID]; r.Kind == store.KindCheckpoint && !ok {
			f.cps[r.CheckpointID] = i
		}
	}
	if f.lastAst >= 0 {
		f.lastAst += n
	}
	f.records += n
	had := turnRows(f.turns.Turns())
	w.c.pollStats.prependReread.Add(int64(f.turns.Prepend(page, f.recs)))
	f.recs = append(append(make([]store.Record, 0, n+len(f.recs)), page...), f.recs...)
	f.turnBase = max(0, f.turnBase-(turnRows(f.turns.Turns())-had))
	f.doneRows, f.doneTurns = nil, 0
}

// stepCommitted reports whether the step that began at checkpoint cp is in
// the view: an assistant message follows the checkpoint (or the checkpoint
// is not in the view at all, so the step cannot be placed).
func (f *followedView) stepCommitted(cp int) bool {
	at, ok := f.cps[cp]
	return !ok || f.lastAst > at
}

// timeline is the timeline after the records added: the turns read so far
// (rows made again only for the last turn) and the generations of the last
// whole read, the current one's counters from g.
func (f *followedView) timeline(g store.Generation) views.TimelineModel {
	rest := f.turns.TurnsFrom(f.doneTurns)
	if n := len(rest) - 1; n > 0 {
		f.doneRows = checkpointRows(f.doneRows, rest[:n])
		f.doneTurns += n
		rest = rest[n:]
	}
	m := views.TimelineModel{Position: -1}
	m.Checkpoints = checkpointRows(append(make([]views.CheckpointRow, 0, len(f.doneRows)+4), f.doneRows...), rest)
	numberTurns(m.Checkpoints, f.turnBase)
	m.Generations = append([]views.GenerationRow(nil), f.genRows...)
	for i := range m.Generations {
		if m.Generations[i].Current {
			m.Generations[i].Messages = g.Messages
		}
	}
	return m
}

// runState is the writer's run as the records of session id read so far
// show it; false when none were read yet.
func (w *watcher) runState(id string) (runState, bool) {
	w.viewMu.Lock()
	defer w.viewMu.Unlock()
	return w.view.run.state(), w.view.id == id
}

// onUIFollow applies what the open session gained: the timeline, and the
// committed items when they continue the conversation on screen. A
// conversation that is not the one they continue (another whole read or
// the live step came between) is read whole instead.
func (w *watcher) onUIFollow(ev evFollow) {
	c := w.c
	o := c.cur()
	if o == nil || o.sess.ID != ev.session {
		return
	}
	if win := c.pg.win; win.later > 0 && win.session == ev.session {
		// The conversation shows the records around a search hit: it and
		// its timeline stay; scrolling down reaches what was added.
		c.onUIShowHeader(c.timeline.Model(), ev.title, ev.gen)
		return
	}
	if ev.conv {
		if w.shown != (convAt{ev.session, ev.gen, ev.from, ev.base}) {
			c.onWorker(func() { w.onWorkerCatchUp(o, catchUp{conv: true, force: true}, -1) })
			return
		}
		w.shown = convAt{ev.session, ev.gen, ev.to, ev.base + len(ev.items)}
		// counted from after the earlier pages loaded since (window.go)
		ev.base += w.front
		if c.tt.previewing { // the preview keeps the conversation for later, not the count
			var tokens *int
			if ev.tokens >= 0 {
				tokens = &ev.tokens
			}
			c.onUIReload(evReload{items: followed(c.tt.liveItems(), ev), timeline: ev.timeline, title: ev.title,
				gen: ev.gen, session: ev.session, cursor: ev.to, tokens: tokens})
			return
		}
		c.conv.Truncate(ev.base) // the streamed items of a step now committed
		c.conv.Append(ev.items...)
		for _, r := range ev.results {
			c.conv.UpdateItem(r.id, r.apply)
		}
		c.markStepStart()
	}
	if ev.tokens >= 0 && !w.liveOn(c.cur()) {
		// No live channel to say better: the saved count, as rewind
		// sessions says it (it stayed at the count of the session opened).
		w.showSavedTokens(ev.tokens)
	}
	c.onUIShowHeader(ev.timeline, ev.title, ev.gen)
}

// onUIConvReplaced notes what a whole read put in the conversation.
func (w *watcher) onUIConvReplaced(ev evReload) {
	w.shown = convAt{ev.session, ev.gen, ev.cursor, len(ev.items)}
	w.front = 0
}

// followed is items (a conversation's) with ev's committed items after its
// first ev.base.
func followed(items []views.Item, ev evFollow) []views.Item {
	out := append(append([]views.Item(nil), items[:min(ev.base, len(items))]...), ev.items...)
	for _, r := range ev.results {
		for i := range out {
			if out[i].ID == r.id {
				r.apply(&out[i])
			}
		}
	}
	return out
}

// apply sets a tool call's item to the result.
func (r toolResult) apply(it *views.Item) {
	it.Result, it.Status, it.Images = r.result, r.status, r.images
}

// runTracker follows the run in progress through the records: it began at
// the last user prompt and is still going while the last message is not a
// final answer (an assistant message without tool calls); every step after
// the prompt begins with a checkpoint.
type runTracker struct {
	rs     runState
	prompt bool // a prompt was read
	final  bool
}

func (t *runTracker) add(r store.Record) {
	switch r.Kind {
	case store.KindCheckpoint:
		if t.prompt {
			t.rs.step++
		}
	case store.KindMessage:
		m, err := r.Message()
		if r.Role == "user" && err == nil {
			if it, ok := userItem(m); ok && it.Text != "" {
				t.rs, t.prompt, t.final = runState{started: r.CreatedAt}, true, false
				return
			}
		}
		t.final = r.Role == "assistant" && err == nil && len(m.ToolCalls) == 0
	}
}

func (t *runTracker) state() runState {
	rs := t.rs
	rs.running = t.prompt && !t.final
	return rs
}

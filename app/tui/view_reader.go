package tui

import (
	"context"
	"sync/atomic"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// viewReader reads a session's view for the workspace: the tail of its
// current view (window.go), its generations and turns, as the reloads,
// the pager and the watcher show them. Any goroutine: it runs on workers.
type viewReader struct {
	db    *store.DB
	stats *pollStats  // counts the whole views read
	sizes windowSizes // the window's reads (window.go)
	// branches caches where archived generations leave the live line.
	branches branchCache
	// importing is the watcher's: the writer is an import that has not
	// reached the end yet (the conversation says so).
	importing *atomic.Bool
	// hold (tests) runs in a reload between its read of the view and its
	// post: it holds the post back.
	hold func()
	// beforeRead (tests) runs before a read of session id's view: a writer's
	// step lands between an open's read of the session and of its view.
	beforeRead func(id string)
}

// loadSessionView reads the tail of a session's current view (window.go)
// and its generations.
func (r *viewReader) loadSessionView(ctx context.Context, id string, keepConv bool) (evReload, error) {
	ev, _, err := r.readWhole(ctx, id, keepConv)
	return ev, err
}

// readWhole is loadSessionView that also returns the view it read.
func (r *viewReader) readWhole(ctx context.Context, id string, keepConv bool) (evReload, store.View, error) {
	v, err := r.readView(ctx, id)
	if err != nil {
		return evReload{}, store.View{}, err
	}
	ev, err := r.reloadOf(ctx, id, v, keepConv)
	return ev, v, err
}

// readView reads the tail of a session's current view (counted in
// pollStats).
func (r *viewReader) readView(ctx context.Context, id string) (store.View, error) {
	if r.beforeRead != nil {
		r.beforeRead(id)
	}
	r.stats.viewReads.Add(1)
	v, err := r.db.ViewBefore(ctx, id, -1, store.ViewPos{}, r.sizes.tail)
	return alignPage(v), err
}

// reloadOf is loadSessionView for a view already read: the whole view, or
// its newest part (v.Earlier).
func (r *viewReader) reloadOf(ctx context.Context, id string, v store.View, keepConv bool) (evReload, error) {
	db := r.db
	gens, err := db.Generations(ctx, id)
	if err != nil {
		return evReload{}, err
	}
	rewinds, err := db.Rewinds(ctx, id)
	if err != nil {
		return evReload{}, err
	}
	tl := r.branches.withBranches(ctx, db, v, labelUndos(timelineModel(v, gens), rewinds))
	tl = foldSame(ctx, db, id, v.Generation.Messages, tl)
	ev := evReload{keepConv: keepConv, timeline: tl, gen: v.Generation.Gen, session: id, cursor: v.Cursor()}
	if v.Later { // a search hit's window: the current position is after it
		ev.timeline.Position = views.NoPosition
	}
	if v.Earlier { // a window of a long view: its turns are numbered in the whole view
		before, err := turnsBefore.count(ctx, db, v)
		if err != nil {
			before = -1 // unknown: the rows show their checkpoints, never a wrong turn
		}
		numberTurns(ev.timeline.Checkpoints, before)
	}
	if !keepConv {
		notes := notesFor(ctx, db, v, gens)
		notes.pending = r.importing != nil && r.importing.Load()
		ev.items = viewItemsWith(v, notes)
		w := windowOf(v)
		if err := w.countCheckpoints(ctx, db); err != nil {
			return evReload{}, err
		}
		ev.win = &w
	}
	if s, err := db.GetSession(ctx, id); err == nil {
		ev.title = s.Title
		ev.tokens = &s.Tokens
	}
	return ev, nil
}

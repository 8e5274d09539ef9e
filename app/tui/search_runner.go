package tui

import (
	"context"
	"sync"
	"time"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// searchDebounce is how long a full-text query waits for the next key
// before it runs: typing "flaky" sends one query, not five.
const searchDebounce = 80 * time.Millisecond

// searchLimit is how many hits a full-text search shows.
const searchLimit = 200

// searchFirstPage is how many hits a slow query shows before the rest
// arrive, once it has run for searchFirstPageAfter: the first screenful
// lands as soon as it is read. A query done sooner posts its hits once, so
// the list is redrawn once per query.
const (
	searchFirstPage      = 40
	searchFirstPageAfter = 30 * time.Millisecond
)

// snippetRunes bounds a hit's snippet as the list shows it: the store's
// snippet (16 words around the match) as plain text, markdown syntax gone.
const snippetRunes = 400

// searchRunner runs the full-text searches of one session list as the user
// types. A query waits searchDebounce for the next key; a new query cancels
// the one in flight (its context: go-sqlite3 interrupts the statement); hits
// stream to the list newest first, a first page and then the rest.
type searchRunner struct {
	c    searchDeps
	list *views.SessionList
	// search is the store call (a test replaces it to watch cancellation).
	search func(ctx context.Context, o store.SearchOptions, fn func(store.SearchHit) error) error
	// onFinal, when set, runs on the UI goroutine after a query's final hits
	// are on the list (the last-key-to-final-hits benchmark).
	onFinal func(query string)

	mu     sync.Mutex
	timer  *time.Timer
	cancel context.CancelFunc
	last   lastSearch // the last query run to its end
}

// lastSearch is a query's options and hits: the query typed next, when it
// has the same options (a one-letter word typed after it), shows them
// again unread.
type lastSearch struct {
	o    store.SearchOptions
	hits []views.SearchHit
	more bool
}

// oneMoreLetter answers a query of one-letter words, which is not searched.
const oneMoreLetter = "Type one more letter: a word is searched from its second letter on."

// searchDeps is what a search runner reaches: workers, the UI thread
// (hits go straight to it), the controller's lifetime and the browser's
// scope (this dir or all).
type searchDeps struct {
	featureCommon
	searchHost
	scope searchScope
}

// searchScope is the browser as a search sees it (browser.go): the work
// dir searched, "" for all (UI).
type searchScope interface {
	scopeDir() string
}

type searchHost interface {
	onUIThread(f func()) bool
}

func newSearchRunner(c *Controller, list *views.SessionList) *searchRunner {
	deps := searchDeps{featureCommon: c.common(), searchHost: c, scope: c.br}
	return &searchRunner{c: deps, list: list, search: c.db.SearchEach}
}

// request is the list's SearchFunc (UI goroutine): it supersedes whatever
// query is waiting or running.
// A trailing one-letter word is not searched (store.AsYouType): the query is
// answered at once with the hits of the words before it, when those were
// the last query's, or with a note when there are none.
func (r *searchRunner) request(query string) {
	ctx, cancel := context.WithCancel(r.c.ctx)
	o := store.SearchOptions{Query: store.AsYouType(query), Limit: searchLimit + 1, WorkDir: r.c.scope.scopeDir()}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.timer != nil {
		r.timer.Stop()
	}
	if r.cancel != nil {
		r.cancel()
	}
	r.cancel = cancel
	switch {
	case o.Query == "":
		r.list.SetSearchNote(query, oneMoreLetter)
		return
	case o == r.last.o:
		r.list.SetHits(query, r.last.hits, r.last.more)
		if r.onFinal != nil {
			r.onFinal(query)
		}
		return
	}
	r.last = lastSearch{} // only the next query reuses a query's hits: they may be stale later
	r.timer = time.AfterFunc(searchDebounce, func() {
		r.c.onWorker(func() { r.onWorkerRun(ctx, query, o) })
	})
}

// onWorkerRun runs one query and posts its hits unless it was superseded:
// once at the end, and a first page before that when the query is slow.
// It asks for one hit more than it shows, to know whether there are more.
func (r *searchRunner) onWorkerRun(ctx context.Context, query string, o store.SearchOptions) {
	if ctx.Err() != nil {
		return
	}
	var hits []views.SearchHit
	post := func(more, final bool) {
		out := hits
		// Straight to the UI, not through the event batcher: its 33 ms
		// coalescing would sit between the query and the screen.
		r.c.onUIThread(func() {
			if ctx.Err() != nil {
				return // superseded while queued
			}
			r.list.SetHits(query, out, more)
			if final && r.onFinal != nil {
				r.onFinal(query)
			}
		})
	}
	start := time.Now()
	posted := false
	more := false
	err := r.search(ctx, o, func(h store.SearchHit) error {
		if len(hits) == searchLimit { // the one more asked for
			more = true
			return nil
		}
		hits = append(hits, views.SearchHit{SessionID: h.SessionID, RecordSession: h.RecordSession, Title: h.ListTitle, WorkDir: h.WorkDir, Gen: h.Gen, Seq: h.Seq,
			Fork: h.Fork, Archived: h.Archived, Role: h.Role, Snippet: views.MarkdownText(h.Snippet, snippetRunes), Time: h.CreatedAt, AlsoIn: len(h.AlsoIn)})
		if !posted && len(hits) >= searchFirstPage && time.Since(start) >= searchFirstPageAfter {
			posted = true
			post(true, false)
			hits = append([]views.SearchHit(nil), hits...)
		}
		return nil
	})
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		r.c.post(evNote{text: "search: " + err.Error(), isErr: true})
		return
	}
	r.mu.Lock()
	r.last = lastSearch{o: o, hits: hits, more: more}
	r.mu.Unlock()
	post(more, true)
}

package tui

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store"
)

// The pane lists the sessions that exist when the workspace starts, and
// stays current. The first list used to be posted before the UI ran (and
// dropped), and its signature then suppressed every later post: "No
// sessions." for good. beforeRun makes that race deterministic: a list is
// posted and its batch delivered before Run.
func TestSessionsPaneShowsExistingSessionsAtStart(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48,
		before: func(h *harness) { browserSessions(t, h.db, h.work) },
		beforeRun: func(h *harness) {
			h.c.br.onWorkerListPane()
			deadline := time.Now().Add(5 * time.Second)
			for pendingEvents(h.c.events) > 0 && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond)
			}
		},
	})
	h.waitFor("zebra notes", "parser rewrite", "release checklist")

	// Another process creates a session: the pane's poll shows it.
	if _, err := h.db.CreateSession(context.Background(), store.NewSession{Title: "made elsewhere", WorkDir: h.work}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("made elsewhere")
}

// A query superseded by the next key is cancelled, and only the last one's
// hits reach the list.
func TestSearchSupersededQueryIsCancelled(t *testing.T) {
	t.Parallel()
	h, _ := browserHarness(t)
	h.openBrowser()
	var mu sync.Mutex
	started := map[string]bool{}
	cancelled := map[string]bool{}
	runner := newSearchRunner(h.c, h.c.br.list)
	real := runner.search
	runner.search = func(ctx context.Context, o store.SearchOptions, fn func(store.SearchHit) error) error {
		mu.Lock()
		started[o.Query] = true
		mu.Unlock()
		if o.Query == "quokka*" {
			<-ctx.Done() // a slow query: runs until superseded
			mu.Lock()
			cancelled[o.Query] = true
			mu.Unlock()
			return ctx.Err()
		}
		return real(ctx, o, fn)
	}
	h.c.onUIThread(func() { h.c.br.list.SetSearchFunc(runner.request) })
	h.typeText("/quokka", false)
	h.waitUntil("the slow query to start", func() bool { mu.Lock(); defer mu.Unlock(); return started["quokka*"] })
	h.typeText(" gram", false)
	h.waitUntil("the first query to be cancelled", func() bool { mu.Lock(); defer mu.Unlock(); return cancelled["quokka*"] })
	h.waitFor("«grammar»")
	h.waitUntil("the last query's hits", func() bool {
		return len(h.c.br.list.Hits()) > 0 && h.c.br.list.Filter() == "/quokka gram"
	})
}

// pendingEvents is how many events wait for the batcher's next delivery.
func pendingEvents(b *batcher) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.pending)
}

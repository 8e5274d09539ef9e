package tui

import (
	"context"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store"
)

// TestIdleWorkspaceReadsNothing: while nothing is committed, the pollers
// ask only the data version and never re-read the session list (on a
// 2,000-session history that re-read every 2 s was most of the idle CPU);
// the clock does not tick without a timed run. A commit by another process
// is picked up by the next poll.
func TestIdleWorkspaceReadsNothing(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{
		before: func(h *harness) { browserSessions(t, h.db, h.work) },
		beforeRun: func(h *harness) {
			h.c.polls = pollPeriods{version: 5 * time.Millisecond, sessions: 5 * time.Millisecond,
				tick: 5 * time.Millisecond, listRefresh: time.Hour}
		},
	})
	h.waitFor("zebra notes")
	stats := &h.c.pollStats
	h.waitUntil("the first list read", func() bool { return stats.listLoads.Load() >= 1 })
	loads, polls := stats.listLoads.Load(), stats.listPolls.Load()
	h.waitUntil("20 more idle polls", func() bool { return stats.listPolls.Load() >= polls+20 })
	if got := stats.listLoads.Load(); got != loads {
		t.Fatalf("idle: %d session-list reads in %d polls with nothing committed", got-loads, stats.listPolls.Load()-polls)
	}
	if h.c.ticking.Load() {
		t.Fatal("the clock ticks with no run to time")
	}

	// Another process commits: the next poll reads the list again.
	other, err := store.Open(context.Background(), h.db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.CreateSession(context.Background(), store.NewSession{Title: "made by another process", WorkDir: h.work}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("made by another process")
	if stats.listLoads.Load() == loads {
		t.Fatal("the list changed without a list read")
	}
}

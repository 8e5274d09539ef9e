package tui

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

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

// TestIdleWriterDoesNotRedraw: a workspace with its own session open
// draws nothing while nothing happens: 60 polls of the session list (each
// a data-version check) pass without a frame. A loop that posted "stop
// watching" to the UI every 100 ms redrew the whole screen ten times a
// second, most of an idle writer's CPU (BenchmarkIdleWorkspace/resumed:
// 3.2 % of a core).
func TestIdleWriterDoesNotRedraw(t *testing.T) {
	t.Parallel()
	var id string
	h := newHarness(t, hopts{
		before: func(h *harness) {
			s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "resting session", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
		},
		mutate: func(o *Options) { o.Mode, o.SessionID = ModeResume, id },
		beforeRun: func(h *harness) {
			h.c.polls = pollPeriods{version: 5 * time.Millisecond, sessions: 5 * time.Millisecond,
				tick: 5 * time.Millisecond, listRefresh: time.Hour, runs: time.Second}
		},
	})
	h.waitFor("resting session")
	stats := &h.c.pollStats
	h.waitUntil("the first list read", func() bool { return stats.listLoads.Load() >= 1 })
	var draws atomic.Int64
	h.c.onUIThread(func() {
		prev := h.c.app.GetAfterDrawFunc()
		h.c.app.SetAfterDrawFunc(func(s tcell.Screen) {
			draws.Add(1)
			if prev != nil {
				prev(s)
			}
		})
	})
	// Let what opening the session started settle, then count. The waits
	// read the counter without the UI goroutine (waitUntil's checks draw).
	waitPolls := func(n int64) {
		polls := stats.listPolls.Load()
		for deadline := time.Now().Add(waitLimit); stats.listPolls.Load() < polls+n; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the session list was not polled %d times", n)
			}
		}
	}
	waitPolls(20)
	before, polls := draws.Load(), stats.listPolls.Load()
	waitPolls(60)
	if n := draws.Load() - before; n != 0 {
		t.Fatalf("an idle writer redrew %d times in %d session-list polls", n, stats.listPolls.Load()-polls)
	}
}

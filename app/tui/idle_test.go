package tui

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
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
		mutate: func(o *Options) { o.polls = idlePolls() },
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
	other := storetest.OpenAt(t, h.db.Path(), store.Options{})
	if _, err := other.CreateSession(context.Background(), store.NewSession{Title: "made by another process", WorkDir: h.work}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("made by another process")
	if stats.listLoads.Load() == loads {
		t.Fatal("the list changed without a list read")
	}
}

// TestIdleWorkspaceIgnoresHeartbeats: another process's lease heartbeat
// commits every 2 s and moves the data version, but not the session list:
// an idle workspace does not re-read the list for it (it did, every 2 s, in
// every workspace while another rewind ran). A rename, which does not touch
// the session's update time, still is picked up.
func TestIdleWorkspaceIgnoresHeartbeats(t *testing.T) {
	t.Parallel()
	var ids []string
	h := newHarness(t, hopts{
		before: func(h *harness) { ids = browserSessions(t, h.db, h.work) },
		mutate: func(o *Options) { o.polls = idlePolls() },
	})
	h.waitFor("zebra notes")
	stats := &h.c.pollStats
	h.waitUntil("the first list read", func() bool { return stats.listLoads.Load() >= 1 })
	ctx := context.Background()
	other := storetest.OpenAt(t, h.db.Path(), store.Options{LeaseHeartbeat: 2 * time.Millisecond})
	l, err := other.AcquireLease(ctx, ids[1])
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	loads, polls := stats.listLoads.Load(), stats.listPolls.Load()
	var beats int
	var last int64
	h.waitUntil("10 heartbeats and 20 list polls", func() bool {
		var at int64
		if err := other.Reader().QueryRow("SELECT heartbeat_at FROM leases WHERE session_id = ?", ids[1]).Scan(&at); err == nil && at != last {
			beats, last = beats+1, at
		}
		return beats >= 10 && stats.listPolls.Load() >= polls+20
	})
	if got := stats.listLoads.Load(); got != loads {
		t.Fatalf("%d session-list reads in %d polls while another process only heartbeated its lease",
			got-loads, stats.listPolls.Load()-polls)
	}

	if err := other.RenameSession(ctx, ids[0], "renamed elsewhere"); err != nil {
		t.Fatal(err)
	}
	h.waitFor("renamed elsewhere")
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
		mutate: func(o *Options) { o.Mode, o.SessionID, o.polls = ModeResume, id, idlePolls() },
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
	for draws.Load() == 0 { // the frame drawn after installing the counter
		time.Sleep(5 * time.Millisecond) // poll: the counters are read without the UI goroutine (a waitUntil check draws, and draws are what is counted)
	}
	// Let what opening the session started settle, then count. The waits
	// read the counter without the UI goroutine (waitUntil's checks draw).
	waitPolls := func(n int64) {
		polls := stats.listPolls.Load()
		for deadline := time.Now().Add(waitLimit); stats.listPolls.Load() < polls+n; time.Sleep(5 * time.Millisecond) { // poll: the counters are read without the UI goroutine (a waitUntil check draws, and draws are what is counted)
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

// TestIdleWatcherDoesNotRedraw: a workspace watching a session whose
// writer is gone draws nothing while nothing changes, over three rounds of
// the writer check (one a second). The check posted the same watch status
// every round, a full frame each time.
func TestIdleWatcherDoesNotRedraw(t *testing.T) {
	t.Parallel()
	var id string
	h := newHarness(t, hopts{
		before: func(h *harness) {
			s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "watched at rest", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
		},
		mutate: func(o *Options) { o.Mode, o.SessionID, o.Client, o.polls = ModeWatch, id, nil, idlePolls() },
	})
	h.waitFor("watched at rest")
	stats := &h.c.pollStats
	// Settled: the list, the selected session's preview and the session's
	// records were read, the writer checked since, and the clock is quiet.
	// (The preview, 40 ms after the list, was posted within the checks
	// below in full test runs.)
	h.waitUntil("the first reads", func() bool {
		_, known := h.c.watch.runState(id)
		return known && stats.listLoads.Load() >= 1 && stats.previews.Load() >= 1 && !h.c.ticking.Load()
	})
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
	// The waits read the counters without the UI goroutine (waitUntil's
	// checks draw). What the first reads posted may still be on its way
	// (the event batcher): settled is a writer check without a frame.
	deadline := time.Now().Add(waitLimit)
	// round waits for one writer check and returns the frames drawn
	// meanwhile (-1: time is up).
	round := func() int64 {
		d, checks := draws.Load(), stats.writerChecks.Load()
		for stats.writerChecks.Load() < checks+1 {
			if time.Now().After(deadline) {
				return -1
			}
			time.Sleep(20 * time.Millisecond) // poll: the counters are read without the UI goroutine (a waitUntil check draws, and draws are what is counted)
		}
		return draws.Load() - d
	}
	// Settled: no frame for longer than the event batcher holds an update
	// (FlushInterval, 50 ms): a frame of the first reads can land a
	// few writer checks after they were posted.
	var quietSince time.Time
	for quietSince.IsZero() || time.Since(quietSince) < 4*FlushInterval {
		switch n := round(); {
		case n < 0:
			t.Fatal("an idle watcher never stopped redrawing: a frame every writer check")
		case n > 0:
			quietSince = time.Time{}
		case quietSince.IsZero():
			quietSince = time.Now()
		}
	}
	checks, before := stats.writerChecks.Load(), draws.Load()
	for range 3 {
		if round() < 0 {
			t.Fatal("the writer was not checked three times")
		}
	}
	if n := draws.Load() - before; n != 0 {
		t.Fatalf("an idle watcher redrew %d times in %d writer checks", n, stats.writerChecks.Load()-checks)
	}
}

// idlePolls are the harness's poll periods with the session list, the open
// session's version and the clock polled every 5 ms: an idle test sees
// many polls in a short time.
func idlePolls() *pollPeriods {
	p := testPolls
	p.version, p.sessions, p.tick, p.listRefresh = 5*time.Millisecond, 5*time.Millisecond, 5*time.Millisecond, time.Hour
	return &p
}

package tui

import (
	"context"
	"database/sql"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/app/live"
	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

// idleWindow is one op of BenchmarkIdleWorkspace: long enough to hold
// several session-list polls (every 2 s) and lease heartbeats.
const idleWindow = 10 * time.Second

// BenchmarkIdleWorkspace measures what an idle workspace costs (issue #10:
// under 0.5 % of a core over 2,000 sessions): the real controller — its
// pollers, clock, live-channel and watch loops, tview — on a 160×48
// simulation screen over a 2,000-session history (benchDBOf; or the
// database in REWIND_BENCH_IDLE_DB, e.g. the 1M-record one of
// cmd/gendb), with nothing typed and nothing committed by anyone
// else. Each op is idleWindow of wall time after start-up settled; the
// process's user+system CPU over it is reported as %core (100 = one core),
// with the frames drawn and the session-list reads per minute.
//
//   - new: the workspace as `rewind` opens it (a new session, created on
//     the first prompt; the Sessions pane lists the history);
//   - resumed: a session of the history open for writing, so its lease
//     heartbeat (a write every 2 s) and the session-version poll run too;
//   - new-beside-writer: new, while another rewind (idleWriter) holds the
//     newest session and does nothing (its lease heartbeat commits every
//     2 s);
//   - watching: that session watched while the other rewind holds it.
func BenchmarkIdleWorkspace(b *testing.B) {
	ctx := context.Background()
	var db *store.DB
	if path := os.Getenv("REWIND_BENCH_IDLE_DB"); path != "" {
		var err error
		if db, err = store.Open(ctx, path); err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { db.Close() })
	} else {
		db = benchDBOf(b, 2000)
	}
	// Opening a database starts a background integrity check (seconds of
	// CPU on a large one); a write waits for it, so it is not measured.
	if err := db.WriteTx(ctx, func(*sql.Tx) error { return nil }); err != nil {
		b.Fatal(err)
	}
	newest, err := db.ListSessions(ctx, store.ListOptions{Limit: 1})
	if err != nil || len(newest) == 0 {
		b.Fatalf("no session to resume: %v", err)
	}
	for _, bc := range []struct {
		name   string
		mode   Mode
		writer bool // another rewind holds the newest session (idleWriter)
	}{{"new", ModeNew, false}, {"resumed", ModeResume, false}, {"new-beside-writer", ModeNew, true}, {"watching", ModeWatch, true}} {
		b.Run(bc.name, func(b *testing.B) {
			benchIdle(b, db, Options{Mode: bc.mode, SessionID: newest[0].ID}, bc.writer)
		})
	}
}

func benchIdle(b *testing.B, db *store.DB, o Options, writer bool) {
	ctx := context.Background()
	client, err := llm.New(llm.Config{BaseURL: "http://127.0.0.1:1/v1", APIKey: "k", Model: "idle-model"}) // never called
	if err != nil {
		b.Fatal(err)
	}
	screen := tcell.NewSimulationScreen("UTF-8")
	o.DB, o.Client, o.Screen = db, client, screen
	o.WorkDir, o.Home = b.TempDir(), shortBenchHome(b)
	if writer {
		idleWriter(b, db.Path(), o.Home, o.SessionID)
	}
	if o.Mode == ModeWatch {
		o.Client = nil
	}
	c, err := New(ctx, o)
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	defer func() {
		c.onUIThread(c.onUIQuit)
		if err := <-done; err != nil {
			b.Error(err)
		}
	}()
	for !c.ui.running.Load() {
		time.Sleep(5 * time.Millisecond) // poll before timing: the benchmark reads counters, not frames
	}
	c.onUIThread(func() { screen.SetSize(160, 48) })
	// Settled: the session list was read, one more list poll found nothing
	// new, and the clock stopped (it ticks while a run is timed or a
	// status message shows: opening a session says where it works).
	for c.pollStats.listLoads.Load() == 0 || c.ticking.Load() {
		time.Sleep(10 * time.Millisecond) // poll before timing: the benchmark reads counters, not frames
	}
	for polls := c.pollStats.listPolls.Load(); c.pollStats.listPolls.Load() <= polls; {
		time.Sleep(10 * time.Millisecond) // poll before timing: the benchmark reads counters, not frames
	}
	var draws atomic.Int64
	c.onUIThread(func() {
		prev := c.app.GetAfterDrawFunc()
		c.app.SetAfterDrawFunc(func(s tcell.Screen) {
			draws.Add(1)
			if prev != nil {
				prev(s)
			}
		})
	})
	loads, draws0 := c.pollStats.listLoads.Load(), draws.Load()
	cpu0, wall0 := cpuTime(), time.Now()
	for b.Loop() {
		time.Sleep(idleWindow) // the idle window measured: nothing should happen in it
	}
	cpu, wall := cpuTime()-cpu0, time.Since(wall0)
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "%core")
	b.ReportMetric(float64(c.pollStats.listLoads.Load()-loads)/wall.Seconds()*60, "list-reads/min")
	b.ReportMetric(float64(draws.Load()-draws0)/wall.Seconds()*60, "draws/min")
}

// idleWriter is another rewind writing session id and doing nothing: its
// own connection to the database (its lease heartbeat every 2 s) and its
// live channel (a ping every 300 ms to each watcher). It runs in this
// process, so its CPU is counted too: the "watching" numbers are an upper
// bound of the watcher's.
func idleWriter(b *testing.B, path, home, id string) {
	ctx := context.Background()
	other := storetest.OpenAt(b, path, store.Options{})
	lease, err := other.AcquireLease(ctx, id)
	if err != nil {
		b.Fatal(err)
	}
	pub, err := live.Listen(live.Options{Home: home, Hello: live.Hello{SessionID: id}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		pub.Close()
		lease.Release(ctx)
		other.Close()
	})
}

// shortBenchHome is a REWIND_HOME short enough for live socket paths.
func shortBenchHome(b *testing.B) string {
	home, err := os.MkdirTemp("", "rwb")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { os.RemoveAll(home) })
	return home
}

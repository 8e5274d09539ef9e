package tui

import (
	"context"
	"database/sql"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

// BenchmarkBrowserSearchLastKey types a full-text query into the real
// browser (controller, simulation screen, search runner, store) and times
// from the last keystroke to the end of the draw that puts the final hits
// on the screen: debounce (80 ms) + query + delivery + draw. It needs the 1,000-session / 1,000,000-record
// database of internal/gen (`go run ./cmd/gendb -sessions 1000
// -records 1000000 -o FILE`) in REWIND_BENCH_SEARCH_DB; it is skipped
// otherwise. Each op is one query typed key by key; p50 and p95 of the
// last-key-to-final-hits time are reported, and the process's CPU per
// query (keystrokes, redraws, query) since on this shared machine wall time
// is mostly waiting for a core. Sub-benchmarks: searching all sessions, and
// "this dir" (Ctrl-T) on.
func BenchmarkBrowserSearchLastKey(b *testing.B) {
	path := os.Getenv("REWIND_BENCH_SEARCH_DB")
	if path == "" {
		b.Skip("set REWIND_BENCH_SEARCH_DB to a 1M-record database (cmd/gendb)")
	}
	ctx := context.Background()
	db := storetest.OpenAt(b, path, store.Options{})
	// Opening a large database starts a background integrity check (seconds
	// of CPU); a write waits for it, so the timing starts after it.
	if err := db.WriteTx(ctx, func(*sql.Tx) error { return nil }); err != nil {
		b.Fatal(err)
	}
	screen := tcell.NewSimulationScreen("UTF-8")
	c, err := New(ctx, Options{DB: db, Mode: ModeNew, ReadOnly: true, WorkDir: b.TempDir(), Screen: screen, Home: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	for !c.ui.running.Load() {
		time.Sleep(5 * time.Millisecond) // poll before timing: the benchmark reads counters, not frames
	}
	c.onUIThread(func() { screen.SetSize(160, 48) })
	// A query's final hits are on the screen after the draw that follows
	// their delivery (both on the UI goroutine).
	final := make(chan string, 16)
	var delivered string
	runner := newSearchRunner(c, c.br.list)
	runner.onFinal = func(q string) { delivered = q }
	c.onUIThread(func() {
		prev := c.app.GetAfterDrawFunc()
		c.app.SetAfterDrawFunc(func(s tcell.Screen) {
			if prev != nil {
				prev(s)
			}
			if delivered != "" {
				final <- delivered
				delivered = ""
			}
		})
		c.br.list.SetSearchFunc(runner.request)
		c.br.onUIOpen()
	})
	queries := []string{"build fix err", "cancel dea", "the quo", "refactor te", "ret", "lookahead flaky"}
	search := func(b *testing.B, q string) time.Duration {
		for _, r := range "/" + q {
			screen.InjectKey(tcell.KeyRune, r, tcell.ModNone)
		}
		start := time.Now()
		for got := ""; got != q; {
			select {
			case got = <-final:
			case <-time.After(30 * time.Second):
				b.Fatalf("no final hits for %q", q)
			}
		}
		took := time.Since(start)
		screen.InjectKey(tcell.KeyEsc, 0, tcell.ModNone) // clear the filter
		for empty := false; !empty; {
			c.onUIThread(func() { empty = c.br.list.Filter() == "" })
		}
		return took
	}
	// all: every session; this-dir (Ctrl-T): the sessions of the agent's
	// work dir, here a new dir of none, so every match of a common word is
	// one the filter drops.
	for _, scope := range []string{"all", "this-dir"} {
		b.Run(scope, func(b *testing.B) {
			if scope == "this-dir" {
				c.onUIThread(c.br.onUIToggleScope)
			}
			for _, q := range queries { // warm the page cache
				search(b, q)
			}
			var times []time.Duration
			cpu0 := cpuTime()
			for i := 0; b.Loop(); i++ {
				times = append(times, search(b, queries[i%len(queries)]))
			}
			cpu := cpuTime() - cpu0
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(times)), "cpu-ms/op")
			b.StopTimer()
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)*95/100].Microseconds())/1000, "p95-ms")
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
		})
	}
	c.onUIThread(c.onUIQuit)
	<-done
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

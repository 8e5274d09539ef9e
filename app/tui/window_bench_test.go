package tui

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
	"github.com/rewind-agent/rewind/views"
)

// BenchmarkOpenLongSession measures opening a long session in a running
// workspace (160×48 simulation screen): from the open request to the end
// of the first draw showing its conversation, at its tail (window.go) or,
// as Enter on a search hit opens it, at a record in the middle of it, the
// hit marked. It opens the newest session of the database in
// REWIND_BENCH_LONG_DB (e.g. `go run ./cmd/genkimi -o D -sessions 1
// -records 400000` imported with `rewind import D`: 240,001 messages), else
// a generated session of 100,000 records. Reported: ms to the first paint,
// and the live heap after the opens (MB).
// Run: go test -run '^$' -bench OpenLongSession -benchtime 20x ./app/tui/
func BenchmarkOpenLongSession(b *testing.B) {
	ctx := context.Background()
	path := os.Getenv("REWIND_BENCH_LONG_DB")
	if path == "" {
		path = filepath.Join(b.TempDir(), "rewind.db")
		db := storetest.OpenAt(b, path, store.Options{})
		if _, err := db.ImportSession(ctx, store.NewSession{Title: "long", WorkDir: b.TempDir()},
			[]store.ImportedGeneration{{Records: longRecords(20000)}}); err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
	db := storetest.OpenAt(b, path, store.Options{})
	// Opening a large database starts a background integrity check;
	// the timing starts after it.
	if err := db.WriteTx(ctx, func(*sql.Tx) error { return nil }); err != nil {
		b.Fatal(err)
	}
	list, err := db.ListSessions(ctx, store.ListOptions{Limit: 1})
	if err != nil || len(list) == 0 {
		b.Fatalf("no session to open: %v", err)
	}
	id := list[0].ID
	screen := tcell.NewSimulationScreen("UTF-8")
	c, err := New(ctx, Options{DB: db, Mode: ModeNew, ReadOnly: true, WorkDir: b.TempDir(), Screen: screen, Home: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	for !c.ui.running.Load() {
		time.Sleep(time.Millisecond) // poll before timing: the benchmark reads counters, not frames
	}
	painted := make(chan time.Time, 1)
	waiting, marked := false, false // UI goroutine only; marked: a hit is opened
	c.onUIThread(func() {
		screen.SetSize(160, 48)
		c.app.SetAfterDrawFunc(func(tcell.Screen) {
			if waiting && c.conv.Len() > 0 && (!marked || c.conv.Marked() >= 0) {
				waiting = false
				painted <- time.Now()
			}
		})
	})
	load := func(ctx context.Context) (store.Session, *views.Item, error) {
		s, err := db.GetSession(ctx, id)
		return s, nil, err
	}
	// the hit: a record in the middle of the view
	ver, err := db.SessionVersion(ctx, id)
	if err != nil {
		b.Fatal(err)
	}
	hit := &hitAt{gen: ver.CurrentGen, pos: store.ViewPos{Seq: ver.MaxSeq / 2}}
	for {
		ok, err := db.ViewHolds(ctx, id, hit.gen, hit.pos)
		if err != nil {
			b.Fatal(err)
		}
		if ok {
			break
		}
		hit.pos.Seq++
	}
	for _, at := range []*hitAt{nil, hit} {
		name := "tail"
		if at != nil {
			name = "hit"
		}
		b.Run(name, func(b *testing.B) {
			var total time.Duration
			for b.Loop() {
				c.onUIThread(func() { c.conv.SetItems(nil) })
				start := time.Now()
				c.onUIThread(func() {
					waiting, marked = true, at != nil
					c.onUISwitchTo("open session", false, at, load, nil, nil)
				})
				total += (<-painted).Sub(start)
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms/paint")
			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			b.ReportMetric(float64(ms.HeapAlloc)/(1<<20), "heapMB")
		})
	}
	c.onUIThread(c.onUIQuit)
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

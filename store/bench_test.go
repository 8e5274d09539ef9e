package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/internal/gen"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

var ctx = context.Background()

// BenchmarkOpenAndList opens the generated 10,000-session / 1,000,000-record
// database and lists sessions (the first 200, then all), as `rewind
// sessions` and the TUI's session list do.
func BenchmarkOpenAndList(b *testing.B) {
	path, err := gen.Cached(ctx, 10000, 1000000)
	if err != nil {
		b.Fatal(err)
	}
	for _, limit := range []int{200, 0} {
		name := "all"
		if limit > 0 {
			name = fmt.Sprint("first", limit)
		}
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				db, err := store.Open(ctx, path)
				if err != nil {
					b.Fatal(err)
				}
				list, err := db.ListSessions(ctx, store.ListOptions{Limit: limit})
				if err != nil {
					b.Fatal(err)
				}
				if limit == 0 && len(list) < 10000 || limit > 0 && len(list) != limit {
					b.Fatalf("listed %d", len(list))
				}
				db.Close()
			}
		})
	}
}

// BenchmarkOpenNew opens a new database, as the first run in a home does
// (and every end-to-end test that starts rewind in a new home): schema.sql
// in one transaction.
func BenchmarkOpenNew(b *testing.B) {
	for b.Loop() {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), "rewind.db")
		b.StartTimer()
		db, err := store.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		if err := db.Close(); err != nil {
			b.Fatal(err)
		}
	}
}

func openBench(b *testing.B) *store.DB {
	b.Helper()
	return storetest.Open(b)
}

// BenchmarkAppend measures AppendMessage (one committed transaction each,
// back to back) and reports the latency percentiles of single appends; the
// WAL checkpoints it causes (background goroutine) run concurrently.
func BenchmarkAppend(b *testing.B) {
	db := openBench(b)
	s, err := db.CreateSession(ctx, store.NewSession{Title: "bench", WorkDir: "/w"})
	if err != nil {
		b.Fatal(err)
	}
	msg := message.NewText("user", "please refactor the parser so that the store keeps every generation searchable")
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		t0 := time.Now()
		if _, err := db.AppendMessage(ctx, s.ID, msg); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	reportLatency(b, lat)
}

// reportLatency reports p50, p99 and max of per-operation latencies in ms.
func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	b.ReportMetric(ms(lat[len(lat)*50/100]), "p50-ms")
	b.ReportMetric(ms(lat[len(lat)*99/100]), "p99-ms")
	b.ReportMetric(ms(lat[len(lat)-1]), "max-ms")
}

// history makes a session of n records (turns of 5: checkpoint, user,
// assistant, tool, usage) in one import.
func history(b *testing.B, db *store.DB, n int) store.Session {
	b.Helper()
	recs := gen.Records(rand.New(rand.NewPCG(3, 4)), n, time.Now().Add(-time.Hour))
	s, err := db.ImportSession(ctx, store.NewSession{Title: "history"}, []store.ImportedGeneration{{Records: recs, Cause: store.CauseStart}})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

var historySizes = []int{1000, 10000, 100000}

// BenchmarkRevertTo reverts to the middle checkpoint of histories of 1k, 10k
// and 100k records; the view is then restored (untimed) so every iteration
// reverts the same view.
func BenchmarkRevertTo(b *testing.B) {
	for _, n := range historySizes {
		b.Run(fmt.Sprint("records=", n), func(b *testing.B) {
			db := openBench(b)
			s := history(b, db, n)
			cp := n / 5 / 2
			for b.Loop() {
				if _, err := db.RevertTo(ctx, s.ID, cp, store.CauseRevert, ""); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				if _, err := db.Restore(ctx, s.ID, 0); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
			}
		})
	}
}

// BenchmarkRestore restores generation 0 of histories of 1k, 10k and 100k
// records.
func BenchmarkRestore(b *testing.B) {
	for _, n := range historySizes {
		b.Run(fmt.Sprint("records=", n), func(b *testing.B) {
			db := openBench(b)
			s := history(b, db, n)
			for b.Loop() {
				if _, err := db.Restore(ctx, s.ID, 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkView reads the current view of a 10k-record session.
func BenchmarkView(b *testing.B) {
	db := openBench(b)
	s := history(b, db, 10000)
	for b.Loop() {
		v, err := db.View(ctx, s.ID)
		if err != nil {
			b.Fatal(err)
		}
		if len(v.Records) != 10000 {
			b.Fatalf("%d records", len(v.Records))
		}
	}
}

// BenchmarkViewSince reads what a followed session gained (one message)
// after the view a watcher holds, for histories of 1k, 10k and 100k
// records: the cost is that of the new record, flat in the history's size
// (BenchmarkView reads the whole view instead).
func BenchmarkViewSince(b *testing.B) {
	for _, n := range historySizes {
		b.Run(fmt.Sprint("records=", n), func(b *testing.B) {
			db := openBench(b)
			s := history(b, db, n)
			v, err := db.View(ctx, s.ID)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := db.AppendMessage(ctx, s.ID, message.NewText("assistant", "the new answer")); err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				d, err := db.ViewSince(ctx, s.ID, v.Generation.Gen, v.Cursor())
				if err != nil {
					b.Fatal(err)
				}
				if d.Reset || len(d.Records) != 1 {
					b.Fatalf("reset %v, %d records", d.Reset, len(d.Records))
				}
			}
		})
	}
}

// BenchmarkViewBefore reads the tail page of a view (its last 1,000
// records), what opening a session reads, for histories of 1k, 10k and
// 100k records: flat in the history's size.
func BenchmarkViewBefore(b *testing.B) {
	for _, n := range historySizes {
		b.Run(fmt.Sprint("records=", n), func(b *testing.B) {
			db := openBench(b)
			s := history(b, db, n)
			for b.Loop() {
				v, err := db.ViewBefore(ctx, s.ID, -1, store.ViewPos{}, 1000)
				if err != nil {
					b.Fatal(err)
				}
				if len(v.Records) != 1000 {
					b.Fatalf("%d records", len(v.Records))
				}
			}
		})
	}
}

// BenchmarkViewAround reads the pages around a record in the middle of a
// view (500 records either side), what opening a session at a search hit
// reads, for histories of 1k, 10k and 100k records: flat in the history's
// size.
func BenchmarkViewAround(b *testing.B) {
	for _, n := range historySizes {
		b.Run(fmt.Sprint("records=", n), func(b *testing.B) {
			db := openBench(b)
			s := history(b, db, n)
			half, err := db.ViewBefore(ctx, s.ID, -1, store.ViewPos{}, n/2)
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				v, err := db.ViewAround(ctx, s.ID, -1, half.Start(), 500, 500)
				if err != nil {
					b.Fatal(err)
				}
				if len(v.Records) != min(n, 1001) {
					b.Fatalf("%d records", len(v.Records))
				}
			}
		})
	}
}

// BenchmarkShortSession measures the small reads and writes a session's
// life is made of (the workspace at every step, a revert dialog, the
// time-travel property test's 2,000 sequences) on a short session that was
// rewound ten times: its view is eleven generations deep. Most of their
// cost is per statement (preparing, planning, the first step), not per
// record.
func BenchmarkShortSession(b *testing.B) {
	db := openBench(b)
	s, err := db.CreateSession(ctx, store.NewSession{Title: "short", WorkDir: "/w"})
	if err != nil {
		b.Fatal(err)
	}
	for i := range 10 {
		if _, err := db.StartTurn(ctx, s.ID, false, message.NewText("user", fmt.Sprint("prompt ", i))); err != nil {
			b.Fatal(err)
		}
		if _, err := db.CommitStep(ctx, s.ID, store.Step{Assistant: message.NewText("assistant", fmt.Sprint("answer ", i))}); err != nil {
			b.Fatal(err)
		}
		if i > 0 { // revert the turn before, then say it again
			if _, err := db.RevertTo(ctx, s.ID, i-1, store.CauseRevert, ""); err != nil {
				b.Fatal(err)
			}
			if _, err := db.StartTurn(ctx, s.ID, false, message.NewText("user", fmt.Sprint("again ", i))); err != nil {
				b.Fatal(err)
			}
		}
	}
	v, err := db.View(ctx, s.ID)
	if err != nil {
		b.Fatal(err)
	}
	if v.Generation.Gen != 9 {
		b.Fatalf("generation %d", v.Generation.Gen)
	}
	b.Run("View", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.View(ctx, s.ID); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("GetSession", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.GetSession(ctx, s.ID); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("Generations", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.Generations(ctx, s.ID); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("FindCheckpoint", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.FindCheckpoint(ctx, s.ID, -1, 1); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("ViewBefore", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.ViewBefore(ctx, s.ID, -1, store.ViewPos{}, 16); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("StartTurn", func(b *testing.B) {
		for b.Loop() {
			if _, err := db.StartTurn(ctx, s.ID, false, message.NewText("user", "one more")); err != nil {
				b.Fatal(err)
			}
		}
	})
}

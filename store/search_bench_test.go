package store_test

import (
	"database/sql"
	"os"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/internal/gen"
	"github.com/rewind-agent/rewind/store"
)

// cpuTime is the process's user+system CPU time. On this shared 2-core
// machine (load average often 10+) wall time mostly measures waiting for a
// core; CPU per query is what the query costs.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkSearch runs 1–3 word queries against the generated 1,000-session
// / 1,000,000-record database (internal/gen: ~90 common words, and
// RareWords in about 20 messages each), as the browser and `rewind search`
// send them: newest first, limit 200. Each op is one query; p50 and p95
// are reported.
//
// REWIND_BENCH_SEARCH_DB=FILE runs the queries on FILE instead (a copy: it
// is migrated): store/BENCHMARKS.md compares index layouts on the same
// records that way, a 1M-record kimi-cli import.
func BenchmarkSearch(b *testing.B) {
	path := os.Getenv("REWIND_BENCH_SEARCH_DB")
	if path == "" {
		var err error
		if path, err = gen.Cached(ctx, 1000, 1000000); err != nil {
			b.Fatal(err)
		}
	}
	db, err := store.Open(ctx, path)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	// Opening a large database starts a background integrity check (seconds
	// of CPU) unless this very file passed it before; a write waits for it,
	// so the timing starts after it.
	if err := db.WriteTx(ctx, func(*sql.Tx) error { return nil }); err != nil {
		b.Fatal(err)
	}
	rare := gen.RareWords()
	// The oldest session: its records are the last a newest-first walk of
	// the index reaches.
	var oldest string
	if err := db.Reader().QueryRowContext(ctx, `SELECT s.id FROM context c JOIN sessions s ON s.key = c.session_key ORDER BY c.id LIMIT 1`).Scan(&oldest); err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct{ name, query, workDir, session string }{
		{"common/the", "the", "", ""},
		{"common/two", "refactor test", "", ""},
		{"common/three", "build fix error", "", ""},
		{"rare/one", rare[0], "", ""},
		{"rare/with-common", "the " + rare[1], "", ""},
		{"rare/absent", "xylophone", "", ""},
		{"prefix/2", "re*", "", ""},
		{"prefix/3", "ret*", "", ""},
		{"prefix/5", "check*", "", ""},
		{"prefix/word-and-prefix", "cancel dea*", "", ""},
		{"prefix/common-and-rare-prefix", "the quo*", "", ""},
		// Filtered: a dir of 20 of the 1,000 sessions, a dir of none, one
		// session.
		{"workdir/the", "the", "/home/dev/project7", ""},
		{"workdir/two", "refactor test", "/home/dev/project7", ""},
		{"workdir-empty/the", "the", "/nowhere", ""},
		{"session/the", "the", "", oldest},
		{"session/prefix", "re*", "", oldest},
	} {
		b.Run(c.name, func(b *testing.B) {
			var times []time.Duration
			cpu0 := cpuTime()
			for b.Loop() {
				start := time.Now()
				if _, err := db.Search(ctx, store.SearchOptions{Query: c.query, WorkDir: c.workDir, SessionID: c.session, Limit: 200}); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
			}
			cpu := cpuTime() - cpu0
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(times[len(times)*95/100].Microseconds())/1000, "p95-ms")
			b.ReportMetric(float64(cpu.Microseconds())/1000/float64(len(times)), "cpu-ms/op")
		})
	}
}

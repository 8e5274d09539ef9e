package peers

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/internal/gen"
	"github.com/rewind-agent/rewind/store"
)

// benchImport imports a generated home of 1,000 sessions (20 turns each)
// into a fresh database per round and reports records/s and the heap in
// use after the import.
func benchImport(b *testing.B, write func(string, int, int) (int, error)) {
	home := filepath.Join(b.TempDir(), "home")
	want, err := write(home, 1000, 20)
	if err != nil {
		b.Fatal(err)
	}
	d, ok, err := Detect(home)
	if err != nil || !ok {
		b.Fatalf("Detect: %v %v", ok, err)
	}
	ctx := context.Background()
	records := 0
	var peak uint64
	cpu0 := cpuTime()
	for b.Loop() {
		path := filepath.Join(b.TempDir(), "rewind.db")
		db, err := store.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		res, err := ImportAll(ctx, db, d.Sources, Options{WorkDir: "/w"})
		if err != nil || res.Records != want || res.Imported != 1000 {
			b.Fatalf("imported %d records of %d, %d sessions: %v", res.Records, want, res.Imported, err)
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		peak = max(peak, ms.HeapInuse)
		records += res.Records
		db.Close()
		os.Remove(path)
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
	// CPU of the whole process (reader, writer, SQLite, GC) per record:
	// on a shared machine a steadier measure than the wall clock.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(records), "cpu-µs/record")
	b.ReportMetric(float64(peak)/(1<<20), "heapMB")
}

func BenchmarkImportCodexHome(b *testing.B)  { benchImport(b, gen.CodexHome) }
func BenchmarkImportClaudeHome(b *testing.B) { benchImport(b, gen.ClaudeHome) }

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkParse parses one generated session file of 18,000 records (a
// reader's share of an import, without SQLite) and reports ns/record.
func BenchmarkParse(b *testing.B) {
	for _, c := range []struct {
		origin string
		write  func(string, int, int) (int, error)
	}{{store.OriginCodex, gen.CodexHome}, {store.OriginClaude, gen.ClaudeHome}} {
		b.Run(c.origin, func(b *testing.B) {
			home := filepath.Join(b.TempDir(), "home")
			records, err := c.write(home, 1, 2000)
			if err != nil {
				b.Fatal(err)
			}
			d, _, err := Detect(home)
			if err != nil {
				b.Fatal(err)
			}
			data, err := os.ReadFile(d.Sources[0].Path)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Parse(bytes.NewReader(data), c.origin, "f.jsonl", nil); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*records), "ns/record")
		})
	}
}

// BenchmarkFollowAppends follows session files appended to three lines at a
// time and reports how long after an append it shows in the database: the
// median (within a few ms when idle; one write's import, not a poll) and
// the worst.
func BenchmarkFollowAppends(b *testing.B) {
	var lat []time.Duration
	for b.Loop() {
		for _, fx := range []struct{ origin, path string }{fixtures[1], fixtures[4], fixtures[9]} {
			lat = append(lat, followEachAppend(b, fx)...)
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-median/append")
	b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "ms-worst/append")
}

package peers

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
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

package kimi

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/internal/gen"
	"github.com/rewind-agent/rewind/store"
)

// BenchmarkImportShareDir imports a generated kimi-cli share dir (100
// sessions, 100,000 lines; internal/gen.KimiShare) into a new
// database per op, as `rewind import ~/.kimi` does, and reports records/s
// (wall clock: on a loaded machine, compare with the CPU time of the run).
func BenchmarkImportShareDir(b *testing.B) {
	share := filepath.Join(b.TempDir(), "kimi")
	want, err := gen.KimiShare(share, 100, 100000)
	if err != nil {
		b.Fatal(err)
	}
	d, err := Discover(share)
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	records := 0
	cpu0 := cpuTime()
	for i := 0; b.Loop(); i++ {
		path := filepath.Join(b.TempDir(), "rewind.db")
		db, err := store.Open(ctx, path)
		if err != nil {
			b.Fatal(err)
		}
		res, err := ImportAll(ctx, db, d, BulkOptions{WorkDir: "/w"})
		if err != nil || res.Records != want {
			b.Fatalf("imported %d records of %d: %v", res.Records, want, err)
		}
		records += res.Records
		db.Close()
		os.Remove(path)
	}
	b.ReportMetric(float64(records)/b.Elapsed().Seconds(), "records/s")
	// CPU of the whole process (reader, writer, SQLite, GC) per record:
	// on a shared machine a steadier measure than the wall clock.
	b.ReportMetric(float64((cpuTime()-cpu0).Microseconds())/float64(records), "cpu-µs/record")
}

// BenchmarkParse parses the context files of a generated share dir (10
// sessions, 10,000 lines) as the import's reader does, and reports lines/s.
func BenchmarkParse(b *testing.B) {
	share := filepath.Join(b.TempDir(), "kimi")
	want, err := gen.KimiShare(share, 10, 10000)
	if err != nil {
		b.Fatal(err)
	}
	d, err := Discover(share)
	if err != nil {
		b.Fatal(err)
	}
	var data [][]byte
	for _, s := range d.Sources {
		for _, f := range s.Files {
			p, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			data = append(data, p)
		}
	}
	lines := 0
	for b.Loop() {
		n := 0
		for _, p := range data {
			f, err := ParseWith(bytes.NewReader(p), "context.jsonl", ParseOptions{SkipTorn: true})
			if err != nil {
				b.Fatal(err)
			}
			n += len(f.Records)
		}
		if n != want {
			b.Fatalf("parsed %d records, want %d", n, want)
		}
		lines += n
	}
	b.ReportMetric(float64(lines)/b.Elapsed().Seconds(), "lines/s")
}

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

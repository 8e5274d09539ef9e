package filecp

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

func benchEnv(b *testing.B) (*store.DB, store.Session, string) {
	b.Helper()
	ctx := context.Background()
	base := b.TempDir()
	db := storetest.OpenAt(b, filepath.Join(base, "rewind.db"), store.Options{})
	root := filepath.Join(base, "work")
	if err := os.MkdirAll(root, 0o755); err != nil {
		b.Fatal(err)
	}
	s, err := db.CreateSession(ctx, store.NewSession{WorkDir: root})
	if err != nil {
		b.Fatal(err)
	}
	return db, s, root
}

// BenchmarkShellSnapshotUnchanged10k: the cost AroundShell adds to one
// Shell call (scan before + scan after) on a work dir of 10,000 small files
// that the command does not change. Only metadata is read.
func BenchmarkShellSnapshotUnchanged10k(b *testing.B) {
	ctx := context.Background()
	db, s, root := benchEnv(b)
	old := time.Now().Add(-time.Hour) // an existing checkout, not files written this second
	for d := 0; d < 100; d++ {
		dir := filepath.Join(root, fmt.Sprintf("pkg%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := 0; f < 100; f++ {
			p := filepath.Join(dir, fmt.Sprintf("file%03d.go", f))
			if err := os.WriteFile(p, []byte(fmt.Sprintf("package pkg%03d\n\n// file %d\nfunc F%d() int { return %d }\n", d, f, f, d*f)), 0o644); err != nil {
				b.Fatal(err)
			}
			if err := os.Chtimes(p, old, old); err != nil {
				b.Fatal(err)
			}
		}
	}
	tr, err := New(db, s.ID, root, Options{})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := prime(ctx, tr); err != nil {
		b.Fatal(err)
	}
	firstScan := time.Since(start)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		after, err := tr.AroundShell(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := after(ctx); err != nil {
			b.Fatal(err)
		}
		if info := tr.LastScan(); info.Hashed != 0 || len(info.Changes) != 0 || info.Files != 10000 {
			b.Fatalf("unchanged tree: %d files, %d hashed, %d changes", info.Files, info.Hashed, len(info.Changes))
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/shell-call")
	b.ReportMetric(float64(firstScan.Milliseconds()), "first-scan-ms")
}

// BenchmarkStorageLargeFileEdits: bytes the blob table grows by for 100
// small StrReplaceFile-like edits of one 1 MiB source file.
func BenchmarkStorageLargeFileEdits(b *testing.B) {
	ctx := context.Background()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db, s, root := benchEnv(b)
		rng := rand.New(rand.NewSource(1))
		var sb strings.Builder
		for line := 0; sb.Len() < 1<<20; line++ {
			fmt.Fprintf(&sb, "func f%d(x int) int { return x*%d + %d } // %x\n", line, rng.Intn(1000), line, rng.Int63())
		}
		content := sb.String()[:1<<20]
		p := filepath.Join(root, "big.go")
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			b.Fatal(err)
		}
		tr, err := New(db, s.ID, root, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if err := prime(ctx, tr); err != nil {
			b.Fatal(err)
		}
		st0, _ := db.FileBlobStats(ctx)
		b.StartTimer()
		buf := []byte(content)
		for edit := 0; edit < 100; edit++ {
			if _, err := tr.BeforeWrite(ctx, []string{p}); err != nil {
				b.Fatal(err)
			}
			off := rng.Intn(len(buf) - 16)
			copy(buf[off:], fmt.Sprintf("/*edit %3d*/", edit))
			if err := os.WriteFile(p, buf, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		if err := tr.Flush(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		st, _ := db.FileBlobStats(ctx)
		b.ReportMetric(float64(st.StoredBytes-st0.StoredBytes)/(1<<20), "MiB-stored/100-edits")
		b.ReportMetric(float64(st.RawBytes-st0.RawBytes)/(1<<20), "MiB-raw/100-edits")
		b.ReportMetric(float64(st.Count-st0.Count), "new-blobs")
		b.StartTimer()
	}
}

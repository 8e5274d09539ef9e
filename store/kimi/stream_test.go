package kimi

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/internal/gen"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

// dump is every session of db as text: title, work dir, generations and
// each generation's records, by title.
func dump(t *testing.T, db *store.DB) map[string]string {
	t.Helper()
	ctx := context.Background()
	ss, err := db.ListSessions(ctx, store.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, s := range ss {
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s gen %d\n", s.WorkDir, s.UpdatedAt, s.CurrentGen)
		gens, err := db.Generations(ctx, s.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, g := range gens {
			fmt.Fprintf(&b, "gen %d %s %d messages %d tokens archived %v\n", g.Gen, g.Cause, g.Messages, g.Tokens, g.ArchivedAt != nil)
			v, err := db.GenerationView(ctx, s.ID, g.Gen)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range v.Records {
				fmt.Fprintf(&b, "%s %s %d %d %s %s\n", r.Kind, r.Role, r.CheckpointID, r.TokenCount, r.Body, r.CreatedAt)
			}
		}
		out[s.Title+" "+s.WorkDir] += b.String()
	}
	return out
}

// TestImportStreamsLargeSessions: sessions larger than StreamBytes are
// parsed as they are written, a piece at a time, and come out as a whole
// import makes them (rotated files as archived generations, torn last
// lines skipped, empty sessions counted); a re-run finds them unchanged,
// and a grown file adds only its new records.
func TestImportStreamsLargeSessions(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	share := filepath.Join(t.TempDir(), "kimi")
	// Every kind gen makes: rotated (3, 13, ...: over 20 lines), empty (7),
	// torn (42); 30 lines a session are four pieces or more.
	want, err := gen.KimiShare(share, 50, 1500)
	if err != nil {
		t.Fatal(err)
	}
	d, err := Discover(share)
	if err != nil {
		t.Fatal(err)
	}
	whole, streamed := storetest.Open(t), storetest.Open(t)
	wres, err := ImportAll(ctx, whole, d, BulkOptions{WorkDir: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	small := BulkOptions{WorkDir: "/w", StreamBytes: 1, BatchRecords: 14} // pieces of 7 records
	sres, err := ImportAll(ctx, streamed, d, small)
	if err != nil {
		t.Fatal(err)
	}
	if sres.Records != want || sres.Imported != wres.Imported || sres.Empty != wres.Empty || sres.Bytes != wres.Bytes {
		t.Fatalf("streamed import %+v, whole %+v, want %d records", sres, wres, want)
	}
	if w, s := dump(t, whole), dump(t, streamed); !reflect.DeepEqual(w, s) {
		for k := range w {
			if w[k] != s[k] {
				t.Fatalf("session %q streamed:\n%s\nwhole:\n%s", k, s[k], w[k])
			}
		}
		t.Fatalf("streamed sessions %d, whole %d", len(s), len(w))
	}
	again, err := ImportAll(ctx, streamed, d, small)
	if err != nil || again.Unchanged != sres.Imported || again.Imported != 0 {
		t.Fatalf("re-run: %+v %v", again, err)
	}
	// A session's context file grows by one line.
	cur := d.Sources[0].Files[len(d.Sources[0].Files)-1]
	f, err := os.OpenFile(cur, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("{\"role\":\"user\",\"content\":\"one more\"}\n"); err != nil {
		t.Fatal(err)
	}
	f.Close()
	grown, err := ImportAll(ctx, streamed, d, small)
	if err != nil || grown.Updated != 1 || grown.Records != 1 {
		t.Fatalf("grown file: %+v %v", grown, err)
	}
}

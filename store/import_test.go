package store

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/rewind-agent/rewind/store/message"
)

// TestImportSessionsCancelled: cancelling an import between two records
// stops it with context.Canceled and leaves nothing of the session being
// written, in one transaction or hidden across several (a large session);
// sessions committed before stay and are returned with the error, and the
// database takes writes after.
func TestImportSessionsCancelled(t *testing.T) {
	// Not parallel: it sets the package-global afterInsertHook.
	body, _ := json.Marshal(message.NewText("user", "import me"))
	session := func(title string, n int) ImportedSession {
		recs := make([]Record, n)
		for i := range recs {
			recs[i] = Record{Kind: KindMessage, Body: body}
		}
		return ImportedSession{Session: NewSession{Title: title, WorkDir: "/w"}, Generations: []ImportedGeneration{{Records: recs}}}
	}
	for _, tc := range []struct {
		name      string
		chunk     int // records per transaction
		cancelAt  int // records inserted when the context is cancelled
		wantTitle []string
	}{
		{"one transaction", 1000, 15, nil},
		{"a transaction per session", 10, 15, []string{"first"}},
		{"a large session hidden until done", 4, 15, []string{"first"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := openTest(t)
			db.importChunk = tc.chunk
			ctx, cancel := context.WithCancel(bg)
			defer cancel()
			inserted := 0
			afterInsertHook = func(Record) error {
				if inserted++; inserted == tc.cancelAt {
					cancel()
				}
				return nil
			}
			done, err := db.ImportSessions(ctx, []ImportedSession{session("first", 10), session("second", 10)})
			afterInsertHook = nil
			if !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled import: %v, want context.Canceled", err)
			}
			if len(done) != len(tc.wantTitle) || len(done) > 0 && done[0].Title != tc.wantTitle[0] {
				t.Fatalf("sessions returned as imported: %+v, want %q", done, tc.wantTitle)
			}
			var titles []string
			rows, err := db.Reader().Query(`SELECT title FROM sessions ORDER BY title`)
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var s string
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
				titles = append(titles, s)
			}
			if len(titles) != len(tc.wantTitle) || len(titles) > 0 && titles[0] != tc.wantTitle[0] {
				t.Fatalf("sessions left: %q, want %q", titles, tc.wantTitle)
			}
			if n := countRows(t, db, "context"); n != 10*len(tc.wantTitle) {
				t.Fatalf("%d records left, want %d", n, 10*len(tc.wantTitle))
			}
			if _, err := db.ImportSessions(bg, []ImportedSession{session("after", 3)}); err != nil {
				t.Fatalf("import after a cancelled one: %v", err)
			}
		})
	}
}

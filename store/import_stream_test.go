package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store/message"
)

// pieces is an ImportStream of fixed pieces; before runs as each piece is
// asked for (i: its index), and may fail it.
type pieces struct {
	ps     []ImportPiece
	i      int
	before func(i int) error
}

func (s *pieces) Next(ctx context.Context) (ImportPiece, bool, error) {
	if err := s.before(s.i); err != nil {
		return ImportPiece{}, false, err
	}
	p := s.ps[s.i]
	s.i++
	return p, s.i == len(s.ps), nil
}

func streamRecords(word string, from, n int) []Record {
	recs := make([]Record, n)
	for i := range recs {
		body, _ := json.Marshal(message.NewText("user", fmt.Sprintf("%s %d", word, from+i)))
		recs[i] = Record{Kind: KindMessage, Body: body}
	}
	return recs
}

// streamedSession: generation 0 with 3 records given whole and 3 more in
// the first piece, which also starts a compact generation (its source 0)
// of 2 records; the second piece adds 2 more to it.
func streamedSession(before func(int) error) ImportedSession {
	src := 0
	return ImportedSession{
		Session:     NewSession{Title: "streamed", WorkDir: "/w"},
		Generations: []ImportedGeneration{{Records: streamRecords("zebra", 0, 3)}},
		Stream: &pieces{before: before, ps: []ImportPiece{
			{Records: streamRecords("zebra", 3, 3), Gens: []ImportedGeneration{{Records: streamRecords("okapi", 0, 2), Cause: CauseCompact, SourceGen: &src}}},
			{Records: streamRecords("okapi", 2, 2)},
		}},
		Bound: 10,
	}
}

// waitCommitted waits until records of the import are committed (pieces
// are read ahead of the writer, so the second is asked for early). It runs
// on the stream's goroutine: it reports, never stops the test.
func waitCommitted(db *DB) error {
	deadline := time.Now().Add(30 * time.Second)
	for n := 0; n == 0; time.Sleep(time.Millisecond) { // poll: a worker writes it, with no signal to the test
		if err := db.Reader().QueryRow(`SELECT count(*) FROM context`).Scan(&n); err != nil {
			return err
		}
		if time.Now().After(deadline) {
			return errors.New("no record committed in 30 s")
		}
	}
	return nil
}

func visibleSessions(db *DB) (int, error) {
	ss, err := db.ListSessions(bg, ListOptions{Subagents: true})
	return len(ss), err
}

// TestImportStreamHiddenUntilWhole: a session streamed to ImportSessions
// piece by piece is written across transactions, and until its last piece
// no list or search shows any of it; once whole it has every record in its
// generations (the compact one current, its source archived).
func TestImportStreamHiddenUntilWhole(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	asked := 0
	is := streamedSession(func(i int) error {
		asked++
		if i == 1 {
			if err := waitCommitted(db); err != nil {
				return err
			}
			if n, err := visibleSessions(db); n != 0 || err != nil {
				t.Errorf("%d sessions visible mid-import (%v)", n, err)
			}
			hits, err := db.Search(bg, SearchOptions{Query: "zebra", Limit: 10})
			if err != nil || len(hits) != 0 {
				t.Errorf("search mid-import: %d hits, %v", len(hits), err)
			}
		}
		return nil
	})
	out, err := db.ImportSessions(bg, []ImportedSession{is})
	if err != nil {
		t.Fatal(err)
	}
	if asked != 2 {
		t.Fatalf("pieces asked for: %d, want 2", asked)
	}
	gens, err := db.Generations(bg, out[0].ID)
	if err != nil || len(gens) != 2 {
		t.Fatalf("generations: %+v %v", gens, err)
	}
	if gens[0].Messages != 6 || gens[1].Messages != 4 || gens[1].Cause != CauseCompact || out[0].CurrentGen != 1 ||
		gens[0].ArchivedAt == nil || gens[1].ArchivedAt != nil {
		t.Fatalf("generations: %+v, session %+v", gens, out[0])
	}
	v, err := db.View(bg, out[0].ID)
	if err != nil || len(v.Records) != 4 {
		t.Fatalf("view: %d records, %v", len(v.Records), err)
	}
	for i, r := range v.Records {
		m, _ := r.Message()
		if want := fmt.Sprintf("okapi %d", i); m.Content.PlainText() != want {
			t.Fatalf("record %d: %q, want %q", i, m.Content.PlainText(), want)
		}
	}
	if n, err := visibleSessions(db); n != 1 || err != nil {
		t.Fatalf("%d sessions visible (%v)", n, err)
	}
	hits, err := db.Search(bg, SearchOptions{Query: "zebra", Limit: 10})
	if err != nil || len(hits) != 6 {
		t.Fatalf("search: %d hits, %v", len(hits), err)
	}
}

// TestImportStreamCancelled: cancelling a streamed import between two
// pieces leaves nothing of the session (its committed part is dropped),
// and the database passes integrity_check.
func TestImportStreamCancelled(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	is := streamedSession(func(i int) error {
		if i == 1 {
			if err := waitCommitted(db); err != nil {
				return err
			}
			cancel()
			return ctx.Err()
		}
		return nil
	})
	if _, err := db.ImportSessions(ctx, []ImportedSession{is}); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled import: %v", err)
	}
	for _, table := range []string{"sessions", "context", "generations"} {
		if n := countRows(t, db, table); n != 0 {
			t.Fatalf("%d rows left in %s", n, table)
		}
	}
	var ok string
	if err := db.Reader().QueryRow("PRAGMA integrity_check").Scan(&ok); err != nil || ok != "ok" {
		t.Fatalf("integrity_check: %q %v", ok, err)
	}
}

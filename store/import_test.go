package store

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

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

// TestSearchRanksImportedHistoryAfterRewindsOwn: search reads the highest
// record id first; imported sessions older than the last record written,
// even imported after rewind recorded sessions of its own, rank after them;
// the sessions of one ImportSessions call rank in reverse of the order
// given (oldest first), and a later call's below an earlier one's (ImportAll
// hands its newest sessions over first); a session newer than everything
// written ranks first. Imported ids used to follow the native ones, so a
// history imported later came before everything.
func TestSearchRanksImportedHistoryAfterRewindsOwn(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	native := newSession(t, db, "native", "/w")
	must[Record](t)(db.AppendMessage(bg, native.ID, message.NewText("user", "the flaky lookahead test")))
	body := func(text string) json.RawMessage { b, _ := json.Marshal(message.NewText("user", text)); return b }
	imported := func(title string, daysAgo int) ImportedSession {
		at := time.Now().AddDate(0, 0, -daysAgo)
		return ImportedSession{Session: NewSession{Title: title, WorkDir: "/w", CreatedAt: at}, Generations: []ImportedGeneration{{Records: []Record{
			{Kind: KindCheckpoint}, {Kind: KindMessage, Body: body("flaky in " + title)}, {Kind: KindMessage, Body: body("still flaky in " + title)},
		}}}}
	}
	must[[]Session](t)(db.ImportSessions(bg, []ImportedSession{imported("older import", 2), imported("newer import", 1)}))
	later := newSession(t, db, "native later", "/w")
	must[Record](t)(db.AppendMessage(bg, later.ID, message.NewText("user", "flaky again")))
	must[[]Session](t)(db.ImportSessions(bg, []ImportedSession{imported("oldest import", 3)}))
	// A kimi-cli session started since: newer than anything written, it
	// ranks first, as rewind's own new records do.
	fresh := imported("fresh import", 0)
	fresh.Session.CreatedAt = time.Now().Add(time.Minute)
	must[[]Session](t)(db.ImportSessions(bg, []ImportedSession{fresh}))

	var got []string
	for _, h := range must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "flaky"})) {
		got = append(got, h.Title)
	}
	want := []string{"fresh import", "fresh import", "native later", "native", "newer import", "newer import", "older import", "older import", "oldest import", "oldest import"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("hits in order %q, want %q", got, want)
	}
	// An imported session's records keep their order.
	v := must[View](t)(db.View(bg, must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "newer"}))[0].SessionID))
	if len(v.Records) != 3 || v.Records[0].Kind != KindCheckpoint {
		t.Fatalf("imported view: %+v", v.Records)
	}
	if got := strings.Join(texts(v), ","); got != "user:flaky in newer import,user:still flaky in newer import" {
		t.Errorf("imported messages in order %q", got)
	}
}

// TestImportClaimsAKimiSessionOnce: an import of a kimi-cli session that
// another import recorded since this one looked it up skips it, whether
// written in one transaction or, large, over several (its hidden part is
// dropped); an update made from an import record that changed since it was
// read writes nothing. On the old code each made a second session or
// generation and moved the import record onto it, leaving the first behind.
func TestImportClaimsAKimiSessionOnce(t *testing.T) {
	t.Parallel()
	body, _ := json.Marshal(message.NewText("user", "import me"))
	session := func(uuid string, n int) ImportedSession {
		recs := make([]Record, n)
		for i := range recs {
			recs[i] = Record{Kind: KindMessage, Body: body}
		}
		return ImportedSession{Session: NewSession{Title: uuid, WorkDir: "/w"}, Generations: []ImportedGeneration{{Records: recs}},
			Kimi: &KimiImport{KimiSession: uuid, Source: "/share/" + uuid, Files: `[]`, Records: n}}
	}
	path := newDBPath(t)
	var dbs [2]*DB
	for i := range dbs {
		db, err := Open(bg, path)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		db.importChunk, db.importTime = 4, 0 // "large" is written a record per transaction
		dbs[i] = db
	}
	first := must[[]Session](t)(dbs[0].ImportSessions(bg, []ImportedSession{session("small", 2)}))
	again := must[[]Session](t)(dbs[1].ImportSessions(bg, []ImportedSession{session("small", 2), session("other", 1)}))
	if len(again) != 2 || again[0].ID != "" || again[1].ID == "" {
		t.Errorf("re-import of a claimed session and a new one: %+v", again)
	}
	var wg sync.WaitGroup
	var got [2][]Session
	for i := range dbs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i] = must[[]Session](t)(dbs[i].ImportSessions(bg, []ImportedSession{session("large", 12)}))
		}()
	}
	wg.Wait()
	if (got[0][0].ID == "") == (got[1][0].ID == "") {
		t.Errorf("two imports of one large session at once: %q and %q, want one of them", got[0][0].ID, got[1][0].ID)
	}
	var sessions, records, imports int
	if err := dbs[0].Reader().QueryRow(`SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM context),
		(SELECT count(*) FROM kimi_imports)`).Scan(&sessions, &records, &imports); err != nil {
		t.Fatal(err)
	}
	if sessions != 3 || records != 2+1+12 || imports != 3 {
		t.Errorf("%d sessions, %d records, %d import records; want 3, 15, 3", sessions, records, imports)
	}

	prev, ok, err := dbs[0].LookupKimiImport(bg, "small")
	if err != nil || !ok || prev.SessionID != first[0].ID {
		t.Fatalf("the import record of small: %+v %v %v", prev, ok, err)
	}
	next := prev
	next.Files, next.Records = `["grown"]`, 3
	recs := []Record{{Kind: KindMessage, Body: body}}
	if _, ok, err := dbs[0].ExtendImport(bg, prev, next, true, recs); err != nil || !ok {
		t.Fatalf("the first update: %v %v", ok, err)
	}
	if _, ok, err := dbs[1].ExtendImport(bg, prev, next, true, recs); err != nil || ok {
		t.Errorf("an update from a stale import record: ok %v, %v; want nothing written", ok, err)
	}
	if s := must[Session](t)(dbs[0].GetSession(bg, first[0].ID)); s.CurrentGen != 1 || s.Messages != 3 {
		t.Errorf("after one update: generation %d, %d messages", s.CurrentGen, s.Messages)
	}
}

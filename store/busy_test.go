package store

import (
	"context"
	"database/sql"
	"errors"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store/message"
)

// lockDB takes the write lock of the database at path on another
// connection (BEGIN IMMEDIATE) and returns the function that gives it back.
func lockDB(t *testing.T, path string) (unlock func()) {
	t.Helper()
	other, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=5000")
	if err != nil {
		t.Fatal(err)
	}
	conn, err := other.Conn(bg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(bg, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	done := false
	unlock = func() {
		if done {
			return
		}
		done = true
		conn.ExecContext(bg, "ROLLBACK")
		conn.Close()
		other.Close()
	}
	t.Cleanup(unlock)
	return unlock
}

// waitUntil polls cond. The limit only ends a test that fails (a passing
// one never gets near it): it is generous for a loaded machine.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond) // poll: the background goroutine's counters signal nothing
	}
}

func openBusy(t *testing.T) (*DB, string) {
	t.Helper()
	path := newDBPath(t)
	db, err := OpenWith(bg, path, Options{BusyTimeout: 20 * time.Millisecond, LeaseHeartbeat: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

// TestLeaseSurvivesALockLongerThanBusyTimeout: another process holds the
// write lock for many busy timeouts (a long import) while a writer holds a
// session's lease. The renewal waits instead of giving the lease up, Busy
// says so, and once the lock is given back the lease renews and the writer
// writes again. (It was lost at the first failed renewal, for good.)
func TestLeaseSurvivesALockLongerThanBusyTimeout(t *testing.T) {
	t.Parallel()
	db, path := openBusy(t)
	s := newSession(t, db, "leased", "/w")
	l, err := db.AcquireLease(bg, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(bg)
	unlock := lockDB(t, path)
	waitUntil(t, "a renewal to wait for the lock", func() bool { _, busy := db.Busy(); return busy })
	var before int64
	if err := db.Reader().QueryRow(`SELECT heartbeat_at FROM leases WHERE session_id = ?`, s.ID).Scan(&before); err != nil {
		t.Fatal(err)
	}
	// Each write below waits a busy timeout before it fails: the lock
	// outlasts five of them, and renewals fail all along.
	for range 5 {
		waitUntil(t, "the renewal to be still waiting", func() bool { _, busy := db.Busy(); return busy })
		if err := l.Err(); err != nil {
			t.Fatalf("the lease was given up while the database was only busy: %v", err)
		}
		if _, err := db.AppendMessage(bg, s.ID, message.NewText("user", "while locked")); !errors.Is(err, ErrBusy) {
			t.Fatalf("a write while another connection holds the lock: %v, want ErrBusy", err)
		}
	}
	unlock()
	waitUntil(t, "the lease to renew", func() bool {
		var hb int64
		db.Reader().QueryRow(`SELECT heartbeat_at FROM leases WHERE session_id = ?`, s.ID).Scan(&hb)
		return hb > before
	})
	waitUntil(t, "Busy to clear", func() bool { _, busy := db.Busy(); return !busy })
	if err := l.Err(); err != nil {
		t.Fatalf("lease lost after the lock cleared: %v", err)
	}
	if _, err := db.AppendMessage(bg, s.ID, message.NewText("user", "after the lock")); err != nil {
		t.Fatalf("the lease holder cannot write after the lock cleared: %v", err)
	}
}

// TestRetryBusyWaitsForTheLock: a write retried by RetryBusy commits once
// the lock is given back; one whose context ends first wrote nothing and
// says both why (ErrBusy) and that it gave up (context.Canceled).
func TestRetryBusyWaitsForTheLock(t *testing.T) {
	t.Parallel()
	db, path := openBusy(t)
	s := newSession(t, db, "retried", "/w")
	unlock := lockDB(t, path)
	done := make(chan error, 1)
	go func() {
		done <- db.RetryBusy(bg, func() error {
			_, err := db.AppendMessage(bg, s.ID, message.NewText("user", "waited for the lock"))
			return err
		})
	}()
	waitUntil(t, "the write to wait", func() bool { _, busy := db.Busy(); return busy })
	unlock()
	if err := <-done; err != nil {
		t.Fatalf("the retried write: %v", err)
	}
	v, err := db.View(bg, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(v.Messages()); n != 1 {
		t.Fatalf("%d messages after the retried write, want 1", n)
	}

	lockDB(t, path)
	ctx, cancel := context.WithCancel(bg)
	go func() {
		done <- db.RetryBusy(ctx, func() error {
			_, err := db.AppendMessage(bg, s.ID, message.NewText("user", "given up"))
			return err
		})
	}()
	waitUntil(t, "the write to wait", func() bool { _, busy := db.Busy(); return busy })
	cancel()
	if err := <-done; !errors.Is(err, ErrBusy) || !errors.Is(err, context.Canceled) {
		t.Fatalf("a write given up while waiting: %v, want ErrBusy and context.Canceled", err)
	}
}

// TestLargeImportCommitsInShortTransactions: a session of more records
// than an import transaction may write is committed in several
// transactions, so another process's write waits for one of them at most
// (it was one transaction of the whole session: 48 s for 400,000 records).
// A failure half-way leaves nothing of it, visible or not.
func TestLargeImportCommitsInShortTransactions(t *testing.T) {
	t.Parallel()
	db, _ := openBusy(t)
	db.importChunk, db.importTime = 10, 0 // a transaction per session, or per record of a large one
	recs := make([]Record, 25)
	for i := range recs {
		recs[i] = Record{Kind: KindMessage, Body: []byte(`{"role":"user","content":"line ` + string(rune('a'+i)) + `"}`)}
	}
	small := ImportedSession{Session: NewSession{Title: "small"}, Generations: []ImportedGeneration{{Records: recs[:3]}}}
	large := ImportedSession{Session: NewSession{Title: "large"}, Generations: []ImportedGeneration{{Records: recs[:5]}, {Records: recs}}}
	before := db.Writes()
	out, err := db.ImportSessions(bg, []ImportedSession{small, large})
	if err != nil {
		t.Fatal(err)
	}
	if n := db.Writes() - before; n < 4 {
		t.Errorf("30 records imported in %d transactions, want at least 4", n)
	}
	if len(out) != 2 || out[0].Title != "small" || out[1].Title != "large" {
		t.Fatalf("imported %+v", out)
	}
	v, err := db.View(bg, out[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Records) != 25 || v.Generation.Gen != 1 || v.Generation.Messages != 25 {
		t.Errorf("the large session's view: %d records, generation %d with %d messages", len(v.Records), v.Generation.Gen, v.Generation.Messages)
	}
	list, err := db.ListSessions(bg, ListOptions{})
	if err != nil || len(list) != 2 {
		t.Fatalf("sessions listed: %d, %v", len(list), err)
	}

	bad := append([]Record{}, recs...)
	bad[22] = Record{Kind: "bogus"}
	if _, err := db.ImportSessions(bg, []ImportedSession{{Session: NewSession{Title: "broken"}, Generations: []ImportedGeneration{{Records: bad}}}}); err == nil {
		t.Fatal("an import with a bad record succeeded")
	}
	var sessions, records, retired int
	if err := db.Reader().QueryRow(`SELECT (SELECT count(*) FROM sessions), (SELECT count(*) FROM context),
		(SELECT count(*) FROM search_retired)`).Scan(&sessions, &records, &retired); err != nil {
		t.Fatal(err)
	}
	// The contentless index keeps the dropped records' entries: their ids
	// are retired, and search finds only what is there.
	if sessions != 2 || records != 3+30 || retired != 1 {
		t.Errorf("after a failed large import: %d sessions, %d records, %d retired ranges; want the 2 and 33 imported before, 1", sessions, records, retired)
	}
	if hits, err := db.Search(bg, SearchOptions{Query: "line", Limit: 100}); err != nil || len(hits) != 33 {
		t.Errorf("search after a failed large import: %d hits (%v), want the 33 records imported before", len(hits), err)
	}
}

package store

import (
	"database/sql"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store/message"
)

// withCheckpointing sets the checkpointer's thresholds for DBs opened by the
// test. They are package globals: a test that calls it must not be
// parallel (parallel tests start only after the sequential ones ended).
func withCheckpointing(t *testing.T, commits int64, delay time.Duration) {
	oc, od := checkpointCommits, checkpointDelay
	checkpointCommits, checkpointDelay = commits, delay
	t.Cleanup(func() { checkpointCommits, checkpointDelay = oc, od })
}

func waitRuns(t *testing.T, db *DB, n int64, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for db.ckpt.lastRun().n < n {
		if time.Now().After(deadline) {
			t.Fatalf("%d background checkpoints after %v, want %d", db.ckpt.lastRun().n, within, n)
		}
		time.Sleep(5 * time.Millisecond) // poll: the background goroutine's counters signal nothing
	}
}

// TestWriterCheckpointSettings: the writer connection's automatic
// checkpoint is only a backstop, and its commits (also statements outside
// WriteTx, like lease heartbeats) are counted by the commit hook; reads are
// not.
func TestWriterCheckpointSettings(t *testing.T) {
	withCheckpointing(t, 1<<40, time.Hour)
	db := openTest(t)
	var n int
	if err := db.WriteTx(bg, func(tx *sql.Tx) error {
		return tx.QueryRow("PRAGMA wal_autocheckpoint").Scan(&n)
	}); err != nil {
		t.Fatal(err)
	}
	if n != writerAutoCheckpoint {
		t.Fatalf("writer wal_autocheckpoint = %d", n)
	}
	before := db.ckpt.pending.Load()
	if _, err := db.writer.Exec("UPDATE sessions SET title = title"); err != nil {
		t.Fatal(err)
	}
	var c int
	if err := db.writer.QueryRow("SELECT count(*) FROM sessions").Scan(&c); err != nil {
		t.Fatal(err)
	}
	if got := db.ckpt.pending.Load() - before; got != 1 {
		t.Fatalf("%d commits counted, want 1", got)
	}
}

// TestBackgroundCheckpointAfterCommits: after checkpointCommits commits the
// goroutine checkpoints without waiting for the delay, and then the database
// file alone (no -wal) holds what was committed.
func TestBackgroundCheckpointAfterCommits(t *testing.T) {
	withCheckpointing(t, 16, time.Hour)
	db := openTest(t)
	s := newSession(t, db, "ckpt", "/w")
	before := db.ckpt.pending.Load() // Open's migrations, CreateSession
	if before >= 16 || db.ckpt.lastRun().n != 0 {
		t.Fatalf("%d commits pending, %d checkpoints before appending", before, db.ckpt.lastRun().n)
	}
	for i := 0; i < 20; i++ {
		must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "checkpointed zebra")))
	}
	waitRuns(t, db, 1, 10*time.Second)
	if db.ckpt.lastRun().copied == 0 {
		t.Fatal("the background checkpoint copied no WAL frame into the database file")
	}
	if !db.ckpt.lastRun().complete {
		// A reader still needed older frames: the database file alone is
		// only consistent after a complete checkpoint, which is retried
		// after the delay (an hour here). What was copied is checked above.
		return
	}

	// The checkpoint copied at least the first 15 commits into the file (the
	// commit hook runs just before its commit, so the 16th may be too late).
	want := 15 - int(before)
	copyPath := filepath.Join(t.TempDir(), "copy.db")
	copyFile(t, db.Path(), copyPath)
	cp := must[*DB](t)(Open(bg, copyPath))
	defer cp.Close()
	v := must[View](t)(cp.View(bg, s.ID))
	if len(v.Records) < want {
		t.Fatalf("database file holds %d records after the background checkpoint, want >= %d", len(v.Records), want)
	}
	if hits := must[[]SearchHit](t)(cp.Search(bg, SearchOptions{Query: "zebra"})); len(hits) != len(v.Records) {
		t.Fatalf("%d search hits for %d records", len(hits), len(v.Records))
	}
}

// TestBackgroundCheckpointWhenIdle: a single commit is checkpointed after
// the delay.
func TestBackgroundCheckpointWhenIdle(t *testing.T) {
	withCheckpointing(t, 1<<40, 20*time.Millisecond)
	db := openTest(t)
	s := newSession(t, db, "idle", "/w")
	// Idle first: the last run complete and none for 5 delays, so no retry
	// is armed and no wake of a commit made during a run is queued (either
	// runs once more after a complete copy, rightly: that commit may have
	// landed after the copy, and it failed this test under load).
	last, since, deadline := db.ckpt.lastRun(), time.Now(), time.Now().Add(10*time.Second)
	for !last.complete || time.Since(since) < 100*time.Millisecond {
		if time.Now().After(deadline) {
			t.Fatal("the session's commits were never checkpointed completely")
		}
		time.Sleep(5 * time.Millisecond) // poll: the background goroutine's counters signal nothing
		if r := db.ckpt.lastRun(); r.n != last.n {
			last, since = r, time.Now()
		}
	}
	runs := last.n
	must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "hello")))
	waitRuns(t, db, runs+1, 10*time.Second)
	// A partial copy (a reader still held frames) is retried after the
	// delay, so a loaded machine may need a second run; what must not happen
	// is checkpointing on and on once the commit is copied.
	deadline = time.Now().Add(10 * time.Second)
	for last = db.ckpt.lastRun(); !last.complete; last = db.ckpt.lastRun() {
		if time.Now().After(deadline) {
			t.Fatal("the idle commit was never checkpointed completely")
		}
		time.Sleep(5 * time.Millisecond) // poll: the background goroutine's counters signal nothing
	}
	settled := last.n
	time.Sleep(100 * time.Millisecond) // ample for a spurious run at the 20 ms delay
	if got := db.ckpt.lastRun().n; got != settled {
		t.Fatalf("%d more checkpoints after the idle commit was copied", got-settled)
	}
	// Search sees the append at once (same transaction as the record).
	if hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "hello"})); len(hits) != 1 {
		t.Fatalf("hits %+v", hits)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

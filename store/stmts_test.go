package store

import (
	"database/sql"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store/message"
)

// TestWriterReconnect: when the pool replaces the writer's connection, the
// cached append statements are prepared again on the new one, and the new
// connection gets the checkpoint settings and commit hook.
func TestWriterReconnect(t *testing.T) {
	withCheckpointing(t, 1<<40, time.Hour)
	db := openTest(t)
	s := newSession(t, db, "re", "/w")
	db.writer.SetConnMaxLifetime(time.Nanosecond) // every connection expires at once
	for i := 0; i < 3; i++ {
		before := db.ckpt.pending.Load()
		must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "reconnected")))
		if got := db.ckpt.pending.Load() - before; got != 1 {
			t.Fatalf("append %d: %d commits counted", i, got)
		}
		var n int
		if err := db.WriteTx(bg, func(tx *sql.Tx) error { return tx.QueryRow("PRAGMA wal_autocheckpoint").Scan(&n) }); err != nil {
			t.Fatal(err)
		}
		if n != writerAutoCheckpoint {
			t.Fatalf("wal_autocheckpoint %d on a new connection", n)
		}
	}
	if st := db.writer.Stats(); st.MaxLifetimeClosed == 0 {
		t.Fatalf("no connection was replaced: %+v", st)
	}
	if v := checkCounters(t, db, s.ID); len(v.Records) != 3 {
		t.Fatalf("%d records", len(v.Records))
	}
	if hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "reconnected"})); len(hits) != 3 {
		t.Fatalf("%d hits", len(hits))
	}
}

// TestReadOnlyOpenLeavesTheWriterAlone: opening a current database to
// read (most CLI commands) connects no writer and prepares nothing (it
// was about a tenth of a start's CPU); the first append prepares the
// append statements once, and later appends use them.
func TestReadOnlyOpenLeavesTheWriterAlone(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	if err := db.waitChecked(bg); err != nil {
		t.Fatal(err)
	}
	if got := must[[]Session](t)(db.ListSessions(bg, ListOptions{})); len(got) != 0 {
		t.Fatalf("%d sessions in a new database", len(got))
	}
	if st := db.writer.Stats(); st.OpenConnections != 0 {
		t.Fatalf("the writer has %d connections after a read-only open", st.OpenConnections)
	}
	s := newSession(t, db, "first", "/w")
	must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "one")))
	prepared := db.stmts.get(bg, db.writer)
	if len(prepared) != len(appendQueries) {
		t.Fatalf("%d statements prepared after an append, want %d", len(prepared), len(appendQueries))
	}
	must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "two")))
	if again := db.stmts.get(bg, db.writer); again[insertRecordQuery] != prepared[insertRecordQuery] {
		t.Fatal("the append statements were prepared again")
	}
	if v := checkCounters(t, db, s.ID); len(v.Records) != 2 {
		t.Fatalf("%d records", len(v.Records))
	}
}

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

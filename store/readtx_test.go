package store

import (
	"errors"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store/message"
)

// TestReadTxLeavesNoSnapshotBehind: a read transaction ends however its
// function ends (nil, an error, a panic), so no pooled reader connection
// keeps an old snapshot, which would keep every later checkpoint from
// copying the WAL back (readTx is BEGIN and ROLLBACK on a pooled
// connection, not a *sql.Tx).
func TestReadTxLeavesNoSnapshotBehind(t *testing.T) {
	withCheckpointing(t, 1<<40, time.Hour) // no background checkpoint beside the test's own
	db := openTest(t)
	s := newSession(t, db, "snap", "/w")
	failed := errors.New("failed")
	ends := map[string]func() error{
		"nil":   func() error { return nil },
		"error": func() error { return failed },
		"panic": func() error { panic(failed) },
	}
	for name, end := range ends {
		func() {
			defer func() { _ = recover() }()
			_ = db.readTx(bg, func(q querier) error {
				if _, err := loadState(bg, q, s.ID); err != nil {
					t.Fatal(err)
				}
				return end()
			})
		}()
		must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "after "+name)))
		var busy, frames, copied int
		if err := db.writer.QueryRow("PRAGMA wal_checkpoint(TRUNCATE)").Scan(&busy, &frames, &copied); err != nil {
			t.Fatal(err)
		}
		if busy != 0 {
			t.Errorf("after a read that ended with %s, a truncating checkpoint was blocked (%d of %d frames copied): a reader kept its snapshot", name, copied, frames)
		}
	}
}

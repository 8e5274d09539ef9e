package store

import (
	"testing"

	"github.com/rewind-agent/rewind/store/message"
)

// TestConnectionsPlanWithoutBoundValuesOrLocks: the connections the
// store opens (its writer, its readers) are opened with the query planner
// stability guarantee on, so a cached statement is not prepared again
// after each bind, and without SQLite's per-connection mutex; SQLite does
// not count its allocations (qpsg.go says why each is safe and what it
// saves; BenchmarkShortSession measures it).
func TestConnectionsPlanWithoutBoundValuesOrLocks(t *testing.T) {
	planned, unlocked := qpsgConnections(), unlockedConnections()
	db := openTest(t)
	s := newSession(t, db, "qpsg", "/w")
	must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "hello")))
	must[View](t)(db.View(bg, s.ID))
	if got := qpsgConnections() - planned; got < 2 {
		t.Errorf("%d connections opened with the guarantee, want the writer and a reader at least", got)
	}
	if got := unlockedConnections() - unlocked; got < 2 {
		t.Errorf("%d connections opened without a mutex, want the writer and a reader at least", got)
	}
	if n := memoryCounted(); n != 0 {
		t.Errorf("SQLite counted %d bytes of its allocations, want the count off", n)
	}
}

package store

import (
	"testing"

	"github.com/rewind-agent/rewind/store/message"
)

// TestConnectionsPlanWithoutBoundValues: the connections the store opens
// (its writer, its readers) are opened with the query planner stability
// guarantee on, so a cached statement is not prepared again after each
// bind (qpsg.go; BenchmarkShortSession measures what it saves).
func TestConnectionsPlanWithoutBoundValues(t *testing.T) {
	before := qpsgConnections()
	db := openTest(t)
	s := newSession(t, db, "qpsg", "/w")
	must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "hello")))
	must[View](t)(db.View(bg, s.ID))
	if got := qpsgConnections() - before; got < 2 {
		t.Fatalf("%d connections opened with the guarantee, want the writer and a reader at least", got)
	}
}

// TestConnectionsRunWithoutSQLiteLocks: the store's connections are opened
// without SQLite's per-connection mutex, and SQLite does not count its
// allocations (qpsg.go says why both are safe and what they save).
func TestConnectionsRunWithoutSQLiteLocks(t *testing.T) {
	before := unlockedConnections()
	db := openTest(t)
	s := newSession(t, db, "unlocked", "/w")
	must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "hello")))
	must[View](t)(db.View(bg, s.ID))
	if got := unlockedConnections() - before; got < 2 {
		t.Fatalf("%d connections opened without a mutex, want the writer and a reader at least", got)
	}
	if n := memoryCounted(); n != 0 {
		t.Fatalf("SQLite counted %d bytes of its allocations, want the count off", n)
	}
}

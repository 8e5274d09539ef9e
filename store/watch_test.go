package store

import (
	"testing"

	"github.com/rewind-agent/rewind/store/message"
)

// TestDataVersionMovesOnlyWithCommits: DataVersion stays put while nothing
// is written and moves after a commit by this DB's writer and after one by
// another process's connection (a second DB on the same file).
func TestDataVersionMovesOnlyWithCommits(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	s := newSession(t, db, "watched", "/w")
	v0 := must[int64](t)(db.DataVersion(bg))
	if v := must[int64](t)(db.DataVersion(bg)); v != v0 {
		t.Fatalf("data version moved from %d to %d with no write", v0, v)
	}
	must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "hello")))
	v1 := must[int64](t)(db.DataVersion(bg))
	if v1 == v0 {
		t.Fatal("data version did not move after this DB's own commit")
	}
	if _, err := db.ListSessions(bg, ListOptions{}); err != nil {
		t.Fatal(err)
	}
	if v := must[int64](t)(db.DataVersion(bg)); v != v1 {
		t.Fatalf("data version moved from %d to %d after a read", v1, v)
	}

	other, err := Open(bg, db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	newSession(t, other, "from another process", "/w")
	if v := must[int64](t)(db.DataVersion(bg)); v == v1 {
		t.Fatal("data version did not move after another connection's commit")
	}
}

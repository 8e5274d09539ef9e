package store

import (
	"context"
	"path/filepath"
	"testing"
)

func openTest(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "rewind.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestOpenFresh(t *testing.T) {
	db := openTest(t)
	var v, app int
	if err := db.Reader().QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if err := db.Reader().QueryRow("PRAGMA application_id").Scan(&app); err != nil {
		t.Fatal(err)
	}
	if v != SchemaVersion() || app != ApplicationID {
		t.Fatalf("user_version %d application_id %x", v, app)
	}
}

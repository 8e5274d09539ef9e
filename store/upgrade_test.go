package store

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"testing"
)

// Options.BeforeUpgrade is called once, before the migrations, when Open
// opens a database an earlier rewind wrote (schema 2, the testdata
// fixture), and not for a current or a new database.
func TestBeforeUpgrade(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dir := t.TempDir()
	old := filepath.Join(dir, "old.db")
	data, err := os.ReadFile("testdata/schema-v2.db")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(old, data, 0o600); err != nil {
		t.Fatal(err)
	}
	type call struct{ from, to, fileVersion int }
	open := func(path string) []call {
		t.Helper()
		var calls []call
		db, err := OpenWith(ctx, path, Options{BeforeUpgrade: func(from, to int) {
			// Called before anything is migrated: the file still says from.
			var v int
			ro, err := sql.Open("sqlite3", "file:"+path+"?mode=ro")
			if err == nil {
				err = ro.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
				ro.Close()
			}
			if err != nil {
				t.Errorf("read the version in BeforeUpgrade: %v", err)
			}
			calls = append(calls, call{from, to, v})
		}})
		if err != nil {
			t.Fatal(err)
		}
		db.Close()
		return calls
	}
	if got := open(old); len(got) != 1 || got[0] != (call{2, SchemaVersion(), 2}) || SchemaVersion() <= 2 {
		t.Fatalf("BeforeUpgrade for schema-v2.db: %v; want one call (2, %d) before migrating", got, SchemaVersion())
	}
	if got := open(old); len(got) != 0 {
		t.Errorf("BeforeUpgrade for a migrated database: %v; want none", got)
	}
	if got := open(filepath.Join(dir, "new.db")); len(got) != 0 {
		t.Errorf("BeforeUpgrade for a new database: %v; want none", got)
	}
}

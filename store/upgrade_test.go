package store

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// PendingUpgrade tells an old database (schema 2, the testdata fixture) from
// a current one and from a missing file, and writes nothing.
func TestPendingUpgrade(t *testing.T) {
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
	from, to, err := PendingUpgrade(ctx, old)
	if err != nil || from != 2 || to != SchemaVersion() || to <= 2 {
		t.Fatalf("PendingUpgrade(schema-v2.db) = %d, %d, %v; want 2, %d", from, to, err, SchemaVersion())
	}
	if after, _ := os.ReadFile(old); string(after) != string(data) {
		t.Fatal("PendingUpgrade wrote to the database")
	}
	db, err := Open(ctx, old)
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	if from, to, err := PendingUpgrade(ctx, old); err != nil || from != to {
		t.Errorf("after Open: %d, %d, %v; want nothing pending", from, to, err)
	}
	if from, _, err := PendingUpgrade(ctx, filepath.Join(dir, "missing.db")); err != nil || from != 0 {
		t.Errorf("missing file: from %d, err %v; want 0, nil", from, err)
	}
}

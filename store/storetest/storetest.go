// Package storetest opens stores for tests: a fresh database in the test's
// temporary directory, closed when the test ends, and fixtures that are
// built once per test binary and copied for each test that uses them.
package storetest

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rewind-agent/rewind/store"
)

// Open opens a new database in t.TempDir(), closed when the test ends.
func Open(t testing.TB) *store.DB {
	t.Helper()
	return OpenAt(t, filepath.Join(t.TempDir(), "rewind.db"), store.Options{})
}

// OpenAt opens (creating if needed) the database at path, closed when the
// test ends: a second handle on another's file, or a home the test lays out.
// A new database is a copy of an empty one migrated once per test binary
// (running every migration took about a tenth of the TUI tests' CPU).
func OpenAt(t testing.TB, path string, o store.Options) *store.DB {
	t.Helper()
	if _, err := os.Stat(path); os.IsNotExist(err) {
		empty.CopyTo(t, path)
	}
	db, err := store.OpenWith(context.Background(), path, o)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// empty is a database with the schema and nothing else.
var empty = NewFixture(func(context.Context, *store.DB) error { return nil })

// Fixture is a database that is costly to build (thousands of records):
// the first test that asks for it builds it once, every test gets its own
// copy of the file. The built file is kept in memory, so nothing is left
// on disk when the test binary ends. A copy opens without PRAGMA
// quick_check (store.Image: this process built it), which on the long
// fixtures cost about a twentieth of the TUI tests' CPU.
type Fixture struct {
	build func(ctx context.Context, db *store.DB) error

	once  sync.Once
	image *store.Image
	err   error
}

// NewFixture declares a fixture that build fills. build runs at most once
// per test binary, on an empty database.
func NewFixture(build func(ctx context.Context, db *store.DB) error) *Fixture {
	return &Fixture{build: build}
}

func (f *Fixture) make() {
	f.image, f.err = store.BuildImage(context.Background(), f.build)
}

// CopyTo builds the fixture if no test did yet and copies it to path, a
// file that must not exist yet (in a home the test lays out).
func (f *Fixture) CopyTo(t testing.TB, path string) {
	t.Helper()
	f.once.Do(f.make)
	if f.err != nil {
		t.Fatalf("fixture: %v", f.err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatalf("copy fixture: %v", err)
	}
	if err := f.image.WriteNew(path); err != nil {
		t.Fatalf("copy fixture: %v", err)
	}
}

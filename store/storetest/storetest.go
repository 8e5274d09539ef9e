// Package storetest opens stores for tests: a fresh database in the test's
// temporary directory, closed when the test ends, and fixtures that are
// built once per test binary and copied for each test that uses them.
package storetest

import (
	"context"
	"fmt"
	"io"
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
func OpenAt(t testing.TB, path string, o store.Options) *store.DB {
	t.Helper()
	db, err := store.OpenWith(context.Background(), path, o)
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// Fixture is a database that is costly to build (thousands of records):
// the first test that asks for it builds it once, every test gets its own
// copy of the file. A package that uses one removes it in TestMain
// (RemoveFixtures) after its tests ran.
type Fixture struct {
	build func(ctx context.Context, db *store.DB) error

	once sync.Once
	path string // the built database, closed
	err  error
}

var (
	fixturesMu sync.Mutex
	fixtureDir string // made by the first fixture built, removed by RemoveFixtures
)

// NewFixture declares a fixture that build fills. build runs at most once
// per test binary, on an empty database.
func NewFixture(build func(ctx context.Context, db *store.DB) error) *Fixture {
	return &Fixture{build: build}
}

func (f *Fixture) make() {
	fixturesMu.Lock()
	if fixtureDir == "" {
		fixtureDir, f.err = os.MkdirTemp("", "rewind-fixtures")
	}
	dir := fixtureDir
	fixturesMu.Unlock()
	if f.err != nil {
		return
	}
	tmp, err := os.MkdirTemp(dir, "fixture")
	if err != nil {
		f.err = err
		return
	}
	path := filepath.Join(tmp, "rewind.db")
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		f.err = err
		return
	}
	if err := f.build(ctx, db); err != nil {
		db.Close()
		f.err = fmt.Errorf("build fixture: %w", err)
		return
	}
	// Closing the last connection checkpoints the WAL into the file.
	if err := db.Close(); err != nil {
		f.err = fmt.Errorf("close fixture: %w", err)
		return
	}
	f.path = path
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
	for _, suffix := range []string{"", "-wal"} {
		if err := copyFile(f.path+suffix, path+suffix); err != nil && !(suffix != "" && os.IsNotExist(err)) {
			t.Fatalf("copy fixture: %v", err)
		}
	}
}

// RemoveFixtures deletes the fixtures built in this test binary (call it in
// TestMain after m.Run).
func RemoveFixtures() {
	fixturesMu.Lock()
	defer fixturesMu.Unlock()
	if fixtureDir != "" {
		os.RemoveAll(fixtureDir)
		fixtureDir = ""
	}
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

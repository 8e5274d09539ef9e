package store

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store/message"
)

// fillDB writes a real database with enough sessions to span many pages.
func fillDB(t *testing.T, path string) (sessionID string, pages int64) {
	t.Helper()
	filledDB.copyTo(t, path)
	// Opened and closed by rewind, as the built file was: checked and
	// stamped (the stamp is of this file, not of the built one).
	db, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Reader().QueryRow("SELECT id FROM sessions WHERE title = 'session 39'").Scan(&sessionID); err != nil {
		t.Fatal(err)
	}
	if err := db.Reader().QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return sessionID, pages
}

// filledDB is 40 sessions of 5 messages each, written as rewind writes
// them (a transaction per message), built once per test binary.
var filledDB = &fileFixture{build: func(t testing.TB, path string) {
	db, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40; i++ {
		s := newSession(t, db, fmt.Sprintf("session %d", i), "/w")
		for j := 0; j < 5; j++ {
			if _, err := db.AppendMessage(bg, s.ID, message.NewText("user", strings.Repeat(fmt.Sprintf("words of message %d %d ", i, j), 40))); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
}}

// corruptPages overwrites n pages in the middle of the file with noise.
func corruptPages(t *testing.T, path string, pages int64, n int) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	const pageSize = 4096
	noise := make([]byte, n*pageSize)
	_, _ = rand.Read(noise)
	if _, err := f.WriteAt(noise, (pages/2)*pageSize); err != nil {
		t.Fatal(err)
	}
}

func TestMidFileCorruptionMakesTheDatabaseReadOnly(t *testing.T) {
	for _, mode := range []string{"checked at open", "checked on a goroutine"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "checked on a goroutine" {
				old := syncCheckLimit
				syncCheckLimit = 0
				defer func() { syncCheckLimit = old }()
			}
			path := filepath.Join(t.TempDir(), "rewind.db")
			id, pages := fillDB(t, path)
			if pages < 20 {
				t.Fatalf("only %d pages", pages)
			}
			corruptPages(t, path, pages, 3)
			before, _ := os.ReadFile(path)

			db, err := Open(bg, path)
			if err != nil {
				t.Fatalf("open: %v (a damaged database must still open read-only)", err)
			}
			writes := []func() error{
				func() error { _, err := db.CreateSession(bg, NewSession{Title: "new", WorkDir: "/w"}); return err },
				func() error { _, err := db.AppendMessage(bg, id, message.NewText("user", "more")); return err },
				func() error { _, err := db.AcquireLease(bg, id); return err },
			}
			for i, w := range writes {
				err := w()
				var de *DamagedError
				if !errors.Is(err, ErrDamaged) || !errors.As(err, &de) || !strings.Contains(err.Error(), ".recover") {
					t.Errorf("write %d on a damaged database: %v", i, err)
				}
			}
			if err := db.Damaged(); !errors.Is(err, ErrDamaged) {
				t.Errorf("Damaged: %v", err)
			}
			db.Close()
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Error("the damaged database file was written to")
			}
			if st, _ := fileStamp(path); readCheckCache(path) == st {
				t.Error("a damaged database was recorded as checked")
			}
		})
	}
}

func TestIntegrityVerdictIsCachedPerFileGeneration(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "rewind.db")
	fillDB(t, path)
	if err := os.Remove(checkCachePath(path)); err != nil {
		t.Fatal(err)
	}
	open := func() *DB {
		db, err := Open(bg, path)
		if err != nil {
			t.Fatal(err)
		}
		return db
	}
	db := open()
	if !db.check.ran {
		t.Error("a file never checked was not checked")
	}
	if _, err := db.CreateSession(bg, NewSession{Title: "written after the check"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	db = open()
	if db.check.ran {
		t.Error("the file rewind itself last wrote was checked again")
	}
	db.Close()
	// Someone else changes the file: the next open checks again.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = f.Write(make([]byte, 4096))
	f.Close()
	db = open()
	if !db.check.ran {
		t.Error("a file changed behind rewind's back was not checked")
	}
	db.Close()
}

func TestUnreadableSchemaIsDamagedNotForeign(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "rewind.db")
	fillDB(t, path)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	noise := make([]byte, 4096-100) // page 1 after the file header: the schema
	for i := range noise {
		noise[i] = byte(i*7 + 13)
	}
	if _, err := f.WriteAt(noise, 100); err != nil {
		t.Fatal(err)
	}
	f.Close()
	before, _ := os.ReadFile(path)
	_, err = Open(bg, path)
	var de *DamagedError
	if !errors.As(err, &de) || !de.Unopenable || errors.Is(err, ErrNotDatabase) || !strings.Contains(err.Error(), ".recover") {
		t.Fatalf("open of a rewind database with a damaged schema page: %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the damaged file was written to")
	}
}

// TestDamageBehindARestoredMtimeIsFound: pages of a real database are
// overwritten in place (dd conv=notrunc), then the file's mtime is put back
// (touch -d), so size and mtime are those of the generation last checked.
// The next open still runs quick_check, opens read-only, and leaves the
// stamp as it was. (The cache answered from size and mtime: rewind wrote a
// new session onto the damaged file and stamped it as checked again.)
func TestDamageBehindARestoredMtimeIsFound(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "rewind.db")
	_, pages := fillDB(t, path) // created and closed by rewind: stamped
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	stampBefore, err := os.ReadFile(checkCachePath(path))
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := fileStamp(path); readCheckCache(path) != s {
		t.Fatal("the file rewind closed last is not stamped as checked")
	}
	corruptPages(t, path, pages, 3)
	if err := os.Chtimes(path, st.ModTime(), st.ModTime()); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(path); after.Size() != st.Size() || !after.ModTime().Equal(st.ModTime()) {
		t.Fatal("size or mtime differ: the test does not hide the damage")
	}
	db, err := Open(bg, path)
	if err != nil {
		t.Fatalf("open: %v (a damaged database must still open read-only)", err)
	}
	if !db.check.ran {
		t.Error("the cache answered for a file damaged behind a restored mtime")
	}
	if _, err := db.CreateSession(bg, NewSession{Title: "new", WorkDir: "/w"}); !errors.Is(err, ErrDamaged) {
		t.Errorf("a write onto the damaged file: %v, want ErrDamaged", err)
	}
	db.Close()
	if got, _ := os.ReadFile(checkCachePath(path)); !bytes.Equal(got, stampBefore) {
		t.Errorf("the stamp was rewritten over a damaged file: %q, was %q", got, stampBefore)
	}
}

// TestOnlyACheckedFileIsStamped: a process whose verdict came from the
// cache (quick_check did not run) writes and closes without stamping; the
// next open checks again. A stamp is only ever written by a process that
// checked the file itself (or created it).
func TestOnlyACheckedFileIsStamped(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "rewind.db")
	fillDB(t, path)
	if err := os.Remove(checkCachePath(path)); err != nil {
		t.Fatal(err)
	}
	db, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	if !db.check.ran {
		t.Fatal("a file never checked was not checked")
	}
	db.Close()
	db, err = Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	if db.check.ran {
		t.Fatal("the file rewind itself last checked was checked again")
	}
	stampBefore, _ := os.ReadFile(checkCachePath(path))
	if _, err := db.CreateSession(bg, NewSession{Title: "written on a cached verdict", WorkDir: "/w"}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if got, _ := os.ReadFile(checkCachePath(path)); !bytes.Equal(got, stampBefore) {
		t.Errorf("a process that did not run the check stamped the file: %q, was %q", got, stampBefore)
	}
	db, err = Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if !db.check.ran {
		t.Error("a file written on a cached verdict was not checked at the next open")
	}
}

// TestStampCarriesTheHeaderChangeCounter: the stamp holds the header's file
// change counter (bytes 24..27), so a file whose counter moved is checked
// again even with size, mtime and ctime as stamped.
func TestStampCarriesTheHeaderChangeCounter(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "rewind.db")
	fillDB(t, path)
	s, ok := fileStamp(path)
	if !ok {
		t.Fatal("no stamp")
	}
	head := make([]byte, 28)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.ReadAt(head, 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if want := uint32(head[24])<<24 | uint32(head[25])<<16 | uint32(head[26])<<8 | uint32(head[27]); s.counter != want {
		t.Errorf("stamp counter %d, header says %d", s.counter, want)
	}
	other := s
	other.counter++
	if other == s {
		t.Error("the change counter is not part of the stamp's identity")
	}
}

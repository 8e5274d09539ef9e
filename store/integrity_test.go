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
	db, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40; i++ {
		s := newSession(t, db, fmt.Sprintf("session %d", i), "/w")
		sessionID = s.ID
		for j := 0; j < 5; j++ {
			if _, err := db.AppendMessage(bg, s.ID, message.NewText("user", strings.Repeat(fmt.Sprintf("words of message %d %d ", i, j), 40))); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := db.Reader().QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	return sessionID, pages
}

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

package store

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"github.com/rewind-agent/rewind/store/message"
)

// A copy of an image opens without quick_check, since this process built
// the image; a copy changed after it was written is checked again.
func TestImageCopyOpensWithoutACheck(t *testing.T) {
	t.Parallel()
	im, err := BuildImage(bg, func(ctx context.Context, db *DB) error {
		s, err := db.CreateSession(ctx, NewSession{Title: "imaged", WorkDir: "/w"})
		if err != nil {
			return err
		}
		_, err = db.AppendMessage(ctx, s.ID, message.NewText("user", "kept in the image"))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "copy.db")
	if err := im.WriteNew(path); err != nil {
		t.Fatal(err)
	}
	db, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	if db.check.ran {
		t.Error("a copy of an image this process built was checked at open")
	}
	list, err := db.ListSessions(bg, ListOptions{})
	if err != nil || len(list) != 1 || list[0].Title != "imaged" {
		t.Errorf("sessions in the copy: %+v, %v", list, err)
	}
	var pages int64
	if err := db.Reader().QueryRow("PRAGMA page_count").Scan(&pages); err != nil {
		t.Fatal(err)
	}
	db.Close()

	if err := im.WriteNew(path); err == nil {
		t.Error("WriteNew overwrote an existing file")
	}
	changed := filepath.Join(dir, "changed.db")
	if err := im.WriteNew(changed); err != nil {
		t.Fatal(err)
	}
	corruptPages(t, changed, pages, 1)
	db, err = Open(bg, changed)
	if err != nil {
		var damaged *DamagedError
		if !errors.As(err, &damaged) {
			t.Fatalf("open a damaged copy: %v", err)
		}
		return // checked, and found damaged before opening
	}
	defer db.Close()
	if !db.check.ran {
		t.Error("a copy changed after it was written was not checked")
	}
}

package store

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store/message"
)

// TestConcurrentOpens runs two writers and a reader on separate *DB handles
// of one file for a second: no error (SQLITE_BUSY or other) may surface.
func TestConcurrentOpens(t *testing.T) {
	t.Parallel()
	// A second is a hundred-odd turns per handle on a loaded machine, with
	// reverts among them: 3 s made no interleaving more likely, only more
	// of them. So each writer stops at a hundred turns (an idle machine
	// gets there in a third of the second), or when the second is over.
	dur, turns := time.Second, 100
	if testing.Short() {
		dur = 300 * time.Millisecond
	}
	path := filepath.Join(t.TempDir(), "rewind.db")
	db1, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db1.Close()
	db2, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	s1 := newSession(t, db1, "one", "/w")
	s2 := newSession(t, db2, "two", "/w")

	ctx, cancel := context.WithTimeout(bg, dur)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	counts := make([]int, 3)
	writer := func(idx int, db *DB, sid string) {
		defer wg.Done()
		for i := 0; ctx.Err() == nil && i < turns; i++ {
			if _, err := db.Checkpoint(bg, sid, true); err != nil {
				errs <- fmt.Errorf("writer %d checkpoint: %w", idx, err)
				return
			}
			if _, err := db.AppendMessage(bg, sid, message.NewText("user", fmt.Sprintf("question %d about concurrency", i))); err != nil {
				errs <- fmt.Errorf("writer %d append: %w", idx, err)
				return
			}
			if _, err := db.CommitStep(bg, sid, crashStep(i, 2)); err != nil {
				errs <- fmt.Errorf("writer %d step: %w", idx, err)
				return
			}
			if i%5 == 4 {
				if _, err := db.RevertTo(bg, sid, i%3, CauseRevert, ""); err != nil {
					errs <- fmt.Errorf("writer %d revert: %w", idx, err)
					return
				}
			}
			counts[idx]++
		}
	}
	wg.Add(3)
	var writers sync.WaitGroup
	writers.Add(2)
	for i, w := range []struct {
		db  *DB
		sid string
	}{{db1, s1.ID}, {db2, s2.ID}} {
		go func() { defer writers.Done(); writer(i, w.db, w.sid) }()
	}
	go func() { writers.Wait(); cancel() }() // the reader reads while they write
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			v, err := db2.View(bg, s1.ID)
			if err == nil {
				n := len(v.Messages())
				if n != v.Generation.Messages {
					err = fmt.Errorf("view of %d messages, counter %d", n, v.Generation.Messages)
				}
			}
			if err == nil {
				_, err = db2.ListSessions(bg, ListOptions{})
			}
			if err == nil {
				_, err = db2.Search(bg, SearchOptions{Query: "concurrency", Limit: 10})
			}
			if err == nil {
				_, err = db2.SessionVersion(bg, s1.ID)
			}
			if err == nil {
				_, err = db2.Generations(bg, s1.ID)
			}
			if err != nil {
				errs <- fmt.Errorf("reader: %w", err)
				return
			}
			counts[2]++
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if counts[0] == 0 || counts[1] == 0 || counts[2] == 0 {
		t.Fatalf("no progress: %v", counts)
	}
	t.Logf("turns %d and %d, reads %d", counts[0], counts[1], counts[2])
	checkCounters(t, db1, s1.ID)
	checkCounters(t, db2, s2.ID)
}

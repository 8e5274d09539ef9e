package store

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store/message"
)

// TestSearchNewestFirstAndForks: hits come newest first; a record a fork
// shares with its source is one hit, under the newest session that shows
// it naming the others (under --session, under that session), and the
// fork's own records are its own hits.
func TestSearchNewestFirstAndForks(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	src := newSession(t, db, "source", "/w")
	must[Record](t)(db.AppendMessage(bg, src.ID, message.NewText("user", "the wombat digs")))
	must[int](t)(db.Checkpoint(bg, src.ID, false))
	must[Record](t)(db.AppendMessage(bg, src.ID, message.NewText("user", "a later wombat after the fork point")))
	fork := must[Session](t)(db.ForkSession(bg, src.ID, -1, 0))
	must[Record](t)(db.AppendMessage(bg, fork.ID, message.NewText("user", "the fork's own wombat")))
	touch := func(id string, ms int64) { // updated_at, set: two writes may share a millisecond
		t.Helper()
		if _, err := db.writer.Exec(`UPDATE sessions SET updated_at = ? WHERE id = ?`, ms, id); err != nil {
			t.Fatal(err)
		}
	}
	touch(src.ID, 1000)
	touch(fork.ID, 2000)

	hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "wombat"}))
	if len(hits) != 3 {
		t.Fatalf("%d hits, want 3 (no duplicate for the shared record): %+v", len(hits), hits)
	}
	if hits[0].SessionID != fork.ID || hits[1].SessionID != src.ID {
		t.Fatalf("not newest first: %+v", hits)
	}
	shared := hits[2]
	if shared.SessionID != fork.ID || shared.Gen != 0 || shared.RecordSession != src.ID || len(shared.AlsoIn) != 1 || shared.AlsoIn[0] != src.ID {
		t.Errorf("shared record: %+v, want it under the fork (the newest), naming the source", shared)
	}
	if len(hits[1].AlsoIn) != 0 || hits[1].RecordSession != src.ID {
		t.Errorf("record after the fork point: %+v", hits[1])
	}
	// --session of the fork: its own record and the one it shares, both
	// under the fork.
	inFork := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "wombat", SessionID: fork.ID}))
	if len(inFork) != 2 || inFork[0].SessionID != fork.ID || inFork[1].SessionID != fork.ID || inFork[1].Seq != shared.Seq {
		t.Fatalf("session filter: %+v", inFork)
	}
	// --session of the source: the shared record under the source.
	inSrc := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "wombat", SessionID: src.ID}))
	if len(inSrc) != 2 || inSrc[1].SessionID != src.ID || inSrc[1].Title != "source" || len(inSrc[1].AlsoIn) != 1 || inSrc[1].AlsoIn[0] != fork.ID {
		t.Fatalf("source filter: %+v", inSrc)
	}
	// The source written again is the newest: the shared record moves there.
	touch(src.ID, 3000)
	if hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "wombat"})); hits[2].SessionID != src.ID || hits[2].AlsoIn[0] != fork.ID {
		t.Errorf("after the source was written: %+v", hits[2])
	}
}

// TestSearchCancelledQueryStops: cancelling the context stops a search in
// flight (the query runs through QueryContext, which go-sqlite3 interrupts).
func TestSearchCancelledQueryStops(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	s := newSession(t, db, "many", "/w")
	for range 20 {
		must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "flaky test again")))
	}
	ctx, cancel := context.WithCancel(bg)
	n := 0
	err := db.SearchEach(ctx, SearchOptions{Query: "flaky"}, func(SearchHit) error {
		n++
		cancel() // the next key arrived
		return nil
	})
	if !errors.Is(err, context.Canceled) || n != 1 {
		t.Fatalf("after cancel: %d hits read, err %v; want 1 and context.Canceled", n, err)
	}
	if _, err := db.Search(ctx, SearchOptions{Query: "flaky"}); !errors.Is(err, context.Canceled) {
		t.Fatalf("search with a cancelled context: %v", err)
	}
}

// TestSessionOrigins: a fork names its source and checkpoint, an import is
// marked, and a session with a prompt but no answer is unanswered.
func TestSessionOrigins(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	src := newSession(t, db, "parser", "/w")
	turn(t, db, src.ID, "first", 10)
	turn(t, db, src.ID, "second", 20)
	fork := must[Session](t)(db.ForkSession(bg, src.ID, -1, 1))
	whole := must[Session](t)(db.ForkSession(bg, src.ID, -1, -1))
	failed := newSession(t, db, "failed", "/w")
	must[Record](t)(db.AppendMessage(bg, failed.ID, message.NewText("user", "hello?")))
	imp := must[Session](t)(db.ImportSession(bg, NewSession{Title: "kimi"}, []ImportedGeneration{{Records: []Record{
		{Kind: KindMessage, Body: []byte(`{"role":"user","content":"q"}`)}}}}))
	got := map[string]Session{}
	for _, s := range must[[]Session](t)(db.ListSessions(bg, ListOptions{})) {
		got[s.ID] = s
	}
	if f := got[fork.ID]; f.ForkOf != src.ID || f.ForkOfTitle != "parser" || f.ForkCheckpoint != 1 || f.Unanswered {
		t.Errorf("fork at checkpoint 1: %+v", f)
	}
	if w := got[whole.ID]; w.ForkOf != src.ID || w.ForkCheckpoint != -1 {
		t.Errorf("fork of the whole view: %+v", w)
	}
	if s := got[src.ID]; s.ForkOf != "" || s.Imported || s.Unanswered {
		t.Errorf("source: %+v", s)
	}
	if !got[failed.ID].Unanswered || !got[imp.ID].Imported || got[imp.ID].Unanswered {
		t.Errorf("failed %+v, imported %+v", got[failed.ID], got[imp.ID])
	}
}

// AsYouType makes the word being typed a prefix and leaves out a last
// word of one letter; HasTerms says whether anything is left to search.
func TestAsYouTypeAndHasTerms(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"build":          "build*",
		"buil":           "buil*",
		"build c":        "build*",
		"b":              "",
		"a b":            "",
		"a build":        "a build*",
		"build OR c":     "build*",
		`"flaky test" c`: `"flaky test"`,
		`"flaky te`:      `"flaky te`,
		"build OR":       "build OR",
		"sche*":          "sche*",
	} {
		if got := AsYouType(q); got != want {
			t.Errorf("AsYouType(%q) = %q, want %q", q, got, want)
		}
	}
	for q, want := range map[string]bool{"": false, "  ": false, "()": false, "OR": false, "x": true, `"a b"`: true, "buil*": true} {
		if got := HasTerms(q); got != want {
			t.Errorf("HasTerms(%q) = %v", q, got)
		}
	}
}

// TestSearchHitListTitleForkAndArchived: a hit carries the session list's
// title (a fork's says what it was cut from) and whether the session's
// current view still shows the record: after a compaction a kept message
// is found twice, once archived (generation 0) and once current.
func TestSearchHitListTitleForkAndArchived(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	src := newSession(t, db, "source", "/w")
	must[Record](t)(db.AppendMessage(bg, src.ID, message.NewText("user", "kumquat marmalade")))
	must[Generation](t)(db.StartCompacted(bg, src.ID, []message.Message{message.NewText("user", "kumquat marmalade")}, 0, 10, false))
	hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "kumquat", SessionID: src.ID}))
	if len(hits) != 2 {
		t.Fatalf("%d hits, want 2: %+v", len(hits), hits)
	}
	if hits[0].Gen != 1 || hits[0].Archived || hits[1].Gen != 0 || !hits[1].Archived {
		t.Errorf("archived marks: %+v", hits)
	}
	if hits[0].ListTitle != "source" || hits[0].Fork {
		t.Errorf("source hit: %+v", hits[0])
	}
	cp := must[int](t)(db.Checkpoint(bg, src.ID, false))
	fork := must[Session](t)(db.ForkSession(bg, src.ID, -1, cp))
	must[Record](t)(db.AppendMessage(bg, fork.ID, message.NewText("user", "kumquat jam")))
	got := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "jam"}))
	fork = must[Session](t)(db.GetSession(bg, fork.ID))
	if len(got) != 1 || !got[0].Fork || got[0].ListTitle != fork.ListTitle() || got[0].Archived || !strings.Contains(got[0].ListTitle, "fork of source") {
		t.Errorf("fork hit: %+v, want the list title %q", got, fork.ListTitle())
	}
}

package tui

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

// The pane lists the sessions that exist when the workspace starts, and
// stays current. The first list used to be posted before the UI ran (and
// dropped), and its signature then suppressed every later post: "No
// sessions." for good. beforeRun makes that race deterministic: a list is
// posted before Run, and a delivery is under way (it waits for Run:
// the list's batch, or an earlier one the list's waits behind). Waiting
// for the list's own batch to go waited out the 5 s bound in most runs:
// a batch queued during New went first and holds it until Run.
func TestSessionsPaneShowsExistingSessionsAtStart(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48,
		before: func(h *harness) { browserSessions(t, h.db, h.work) },
		beforeRun: func(h *harness) {
			h.c.br.onWorkerListPane()
			deadline := time.Now().Add(5 * time.Second)
			for !deliveryWaits(h.c.ui.events) && time.Now().Before(deadline) {
				time.Sleep(5 * time.Millisecond) // poll: before Run there is no draw to wait on
			}
		},
	})
	h.waitFor("zebra notes", "parser rewrite", "release checklist")

	// Another process creates a session: the pane's poll shows it.
	if _, err := h.db.CreateSession(context.Background(), store.NewSession{Title: "made elsewhere", WorkDir: h.work}); err != nil {
		t.Fatal(err)
	}
	h.waitFor("made elsewhere")
}

// A query superseded by the next key is cancelled, and only the last one's
// hits reach the list.
func TestSearchSupersededQueryIsCancelled(t *testing.T) {
	t.Parallel()
	h, _ := browserHarness(t)
	h.openBrowser()
	var mu sync.Mutex
	started := map[string]bool{}
	cancelled := map[string]bool{}
	runner := newSearchRunner(h.c, h.c.br.list)
	real := runner.search
	runner.search = func(ctx context.Context, o store.SearchOptions, fn func(store.SearchHit) error) error {
		mu.Lock()
		started[o.Query] = true
		mu.Unlock()
		if o.Query == "quokka*" {
			<-ctx.Done() // a slow query: runs until superseded
			mu.Lock()
			cancelled[o.Query] = true
			mu.Unlock()
			return ctx.Err()
		}
		return real(ctx, o, fn)
	}
	h.c.onUIThread(func() { h.c.br.list.SetSearchFunc(runner.request) })
	h.typeText("/quokka", false)
	h.waitUntil("the slow query to start", func() bool { mu.Lock(); defer mu.Unlock(); return started["quokka*"] })
	h.typeText(" gram", false)
	h.waitUntil("the first query to be cancelled", func() bool { mu.Lock(); defer mu.Unlock(); return cancelled["quokka*"] })
	h.waitFor("quokka grammar")
	h.waitUntil("the last query's hits", func() bool {
		return len(h.c.br.list.Hits()) > 0 && h.c.br.list.Filter() == "/quokka gram"
	})
}

// deliveryWaits reports whether a delivery of the batcher is under way:
// before Run it waits for the UI to start.
func deliveryWaits(b *batcher) bool {
	if b.flushMu.TryLock() {
		b.flushMu.Unlock()
		return false
	}
	return true
}

// Resuming a session of another work dir says plainly where the agent now
// works; the pane marks the open session, and Ctrl-T narrows the lists to
// the dir the agent works in (the resumed session's, not the one rewind
// was started in: it said "No sessions in this work dir"), named in the
// header, and back.
func TestResumeAcrossWorkDirsAndScope(t *testing.T) {
	t.Parallel()
	var other string
	// on this machine (a missing one opens read-only), and short: the
	// pane's header names it
	otherDir, err := os.MkdirTemp("", "proj2")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(otherDir) })
	h := newHarness(t, hopts{w: 160, h: 48,
		before: func(h *harness) {
			browserSessions(t, h.db, h.work)
			s, err := h.db.CreateSession(context.Background(), store.NewSession{Title: "elsewhere task", WorkDir: otherDir})
			if err != nil {
				t.Fatal(err)
			}
			seedTurns(t, h.db, s.ID, "work in the other dir")
			other = s.ID
		},
		mutate: func(o *Options) { o.Mode, o.SessionID = ModeResume, other },
	})
	h.waitFor("This session belongs to " + otherDir + ": the agent works there now")
	h.waitFor("▶elsewhere task", "zebra notes", "TITLE · all (Ctrl-T)")
	h.c.onUIThread(func() { h.c.app.SetFocus(h.c.sessions) })
	h.ctrl(tcell.KeyCtrlT)
	h.waitFor(filepath.Base(otherDir) + " (Ctrl-T: all)")
	h.waitUntil("only this dir's sessions", func() bool {
		v := h.c.sessions.Visible()
		return len(v) == 1 && v[0].WorkDir == otherDir
	})
	h.ctrl(tcell.KeyCtrlT)
	h.waitUntil("all sessions again", func() bool { return len(h.c.sessions.Visible()) == 4 })
}

func TestSessionRowTitlesForks(t *testing.T) {
	t.Parallel()
	r := SessionRow(store.Session{ID: "f", Title: "parser", ForkOf: "01abcdefghijk", ForkOfTitle: "parser", ForkCheckpoint: 3})
	if r.Title != "fork of parser @ checkpoint 3" { // its source's title, said once
		t.Errorf("fork title %q", r.Title)
	}
	r = SessionRow(store.Session{ID: "f", Title: "lexer", ForkOf: "01abcdefghijk", ForkOfTitle: "parser", ForkCheckpoint: 3})
	if r.Title != "lexer (fork of parser @ checkpoint 3)" {
		t.Errorf("renamed fork title %q", r.Title)
	}
	r = SessionRow(store.Session{ID: "w", Title: "", ForkOf: "01abcdefghijk", ForkCheckpoint: -1, Imported: true})
	if r.Title != "(untitled) (fork of 01abcdefgh)" || !r.Imported {
		t.Errorf("whole-view fork %+v", r)
	}
}

// Switching from the lists to a session of another work dir keeps the
// banner after the session's view is loaded.
func TestSwitchToOtherWorkDirSaysSo(t *testing.T) {
	t.Parallel()
	otherDir, err := os.MkdirTemp("", "proj2") // on this machine: a missing one opens read-only
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(otherDir) })
	var other string
	h := newHarness(t, hopts{w: 160, h: 48, before: func(h *harness) {
		browserSessions(t, h.db, h.work)
		s, err := h.db.CreateSession(context.Background(), store.NewSession{Title: "elsewhere task", WorkDir: otherDir})
		if err != nil {
			t.Fatal(err)
		}
		seedTurns(t, h.db, s.ID, "work in the other dir")
		other = s.ID
	}})
	h.waitFor("elsewhere task")
	h.c.onUIThread(func() { h.c.onUIOpenSession(other) })
	h.waitFor("work in the other dir", "This session belongs to "+otherDir+": the agent works there now")
}

// The pane lists the newest sessions only, but its filter searches every
// one: typing loads the rest, and the count says how many there are. It
// used to filter the newest 500 alone ("0/500 · No session matches.").
func TestSessionsPaneFilterSearchesEverySession(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48,
		before:    func(h *harness) { browserSessions(t, h.db, h.work) },
		beforeRun: func(h *harness) { h.c.br.paneLimit = 2 },
	})
	h.waitFor("parser rewrite", "release checklist")
	h.waitUntil("the pane to hold the newest two", func() bool { return len(h.c.sessions.Visible()) == 2 })
	h.focus(h.c.sessions)
	h.typeText("zebra", false)
	h.waitUntil("the oldest session found", func() bool {
		v := h.c.sessions.Visible()
		return len(v) == 1 && v[0].Title == "zebra notes"
	})
	h.waitFor("filter: zebra", "1/3║")
	// Cleared, the pane lists the newest again.
	h.key(tcell.KeyEsc)
	h.waitUntil("the newest two again", func() bool { return len(h.c.sessions.Visible()) == 2 })
	h.waitGone("zebra notes")
}

// Forking a session of another work dir moves the agent there, and says so
// as resuming it does: Ctrl-F in the pane said only "Forked session X into
// Y" while /status showed the agent working in the source's dir.
func TestForkAcrossWorkDirsSaysWhereTheAgentWorks(t *testing.T) {
	t.Parallel()
	otherDir, err := os.MkdirTemp("", "proj2") // on this machine: a missing one opens read-only
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(otherDir) })
	h := newHarness(t, hopts{w: 160, h: 48,
		before: func(h *harness) {
			s, err := h.db.CreateSession(context.Background(), store.NewSession{Title: "elsewhere task", WorkDir: otherDir})
			if err != nil {
				t.Fatal(err)
			}
			seedTurns(t, h.db, s.ID, "work in the other dir")
		},
	})
	h.waitFor("elsewhere task")
	h.c.onUIThread(func() { h.c.app.SetFocus(h.c.sessions) })
	h.typeText("elsewhere", false)
	h.waitUntil("the row alone", func() bool { return len(h.c.sessions.Visible()) == 1 })
	h.ctrl(tcell.KeyCtrlF)
	h.waitFor("Forked session", "This session belongs to "+otherDir+": the agent works there now")
	h.waitFor("working in " + otherDir)
}

// TestListSignatureFollowsEveryColumn: the session lists' change signature
// changes when any column does, not only the ones it was written for: a
// session moved to another work dir (the fork into this dir offered for a
// missing one) kept its old signature, and an open list kept the old dir.
func TestListSignatureFollowsEveryColumn(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.Open(t)
	s, err := db.CreateSession(ctx, store.NewSession{Title: "moved", WorkDir: "/old"})
	if err != nil {
		t.Fatal(err)
	}
	_, before, err := listSessionRows(ctx, db, store.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.SetWorkDir(ctx, s.ID, "/new"); err != nil {
		t.Fatal(err)
	}
	rows, after, err := listSessionRows(ctx, db, store.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].WorkDir != "/new" || after == before {
		t.Fatalf("after a move to /new: row %+v, signature changed: %v", rows[0], after != before)
	}
}

// TestPaneListReadBeforeCtrlTIsNotShownAfterIt: a list of the pane read
// before Ctrl-T narrowed the lists, and posted after the toggle's own list
// was shown, showed every session under the header that names this dir's,
// until the list next changed (up to a minute; TestResumeAcrossWorkDirsAndScope
// waited 30 s for this dir's sessions once, under -race at load 8). Here
// a list read before the toggle is held back until the toggle's is shown.
func TestPaneListReadBeforeCtrlTIsNotShownAfterIt(t *testing.T) {
	t.Parallel()
	gate := newHookGate(t)
	h := newHarness(t, hopts{w: 160, h: 48,
		before:    func(h *harness) { browserSessions(t, h.db, t.TempDir()) },
		beforeRun: func(h *harness) { h.c.br.holdPane = gate.hold },
	}, llmtest.Text("an answer"))
	h.submit("a prompt in this dir") // one session of this dir beside three of another's
	h.waitUntil("the run to end", h.idle)
	h.waitUntil("every session listed", func() bool { return len(h.c.sessions.Visible()) == 4 })
	gate.arm()
	stale, quit := make(chan struct{}), make(chan struct{})
	t.Cleanup(func() { close(quit) })
	go func() {
		defer close(stale)
		// A list of the poll's or of the run's refresh, read before this
		// one and posted meanwhile, stores the signature this read then
		// matches, and it posts nothing (the gate was never held once in
		// ten runs at load 30): read again until a list is held.
		for !gate.wasHeld() {
			select {
			case <-quit:
				return
			default:
			}
			h.c.br.storePaneSig("")
			h.c.br.onWorkerListPane()
		}
	}()
	gate.waitHeld(t, "the pane's list was never read")
	h.c.onUIThread(func() { h.c.app.SetFocus(h.c.sessions) })
	h.ctrl(tcell.KeyCtrlT)
	h.waitUntil("this dir's session only", func() bool { return len(h.c.sessions.Visible()) == 1 })
	gate.open()
	<-stale
	counted := make(chan int, 1)
	// in order with the events: after the held list's post
	h.c.onUIThreadAsync(func() { counted <- len(h.c.sessions.Visible()) })
	var n int
	select {
	case n = <-counted:
	case <-time.After(waitLimit):
		t.Fatal("the UI never ran what was posted after the held list")
	}
	if n != 1 {
		t.Fatalf("the pane lists %d sessions under this dir's header, want its 1", n)
	}
}

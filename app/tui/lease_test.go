package tui

import (
	"context"
	"database/sql"
	"path/filepath"
	"sync"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
)

// TestLostLeaseTurnsTheWorkspaceReadOnly: another process takes the
// session while the model answers (as after a long Ctrl-Z); the step is
// not committed and the workspace stops writing at once.
func TestLostLeaseTurnsTheWorkspaceReadOnly(t *testing.T) {
	t.Parallel()
	asked, answer := make(chan struct{}), make(chan struct{})
	var once sync.Once
	h := newHarness(t, hopts{})
	h.srv.Handle(func(llmtest.Request) llmtest.Reply {
		once.Do(func() { close(asked) })
		<-answer
		return llmtest.Text("answer after the takeover")
	})
	h.typeText("a question", true)
	<-asked
	raw, err := sql.Open("sqlite3", filepath.Join(h.dir, "rewind.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE leases SET token = 'another process'`); err != nil {
		t.Fatal(err)
	}
	close(answer)
	h.waitFor("read-only until it exits")
	var readOnly bool
	h.c.onUIThread(func() { readOnly = h.c.readOnly })
	if !readOnly {
		t.Error("the workspace still writes after losing its lease")
	}
	v, err := h.db.View(h.ctx, h.sessionID())
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range v.Messages() {
		if m.Role == "assistant" {
			t.Errorf("a step was committed after the lease was lost: %q", m.Content.PlainText())
		}
	}
}

// From the browser, a session another process writes offers Back instead
// of Quit, and Esc goes back to the session the workspace had: it used to
// choose Quit and exit rewind.
func TestSessionInUseFromTheBrowserGoesBack(t *testing.T) {
	t.Parallel()
	h, ids := browserHarness(t)
	lease, err := h.db.AcquireLease(h.ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release(context.Background())
	// The holder's last renewal is 11 s old, as a loaded -race run made
	// it once: the writer is alive all the same (the harness's leaseStale).
	// Taken for gone, the question went down before the Esc below.
	raw, err := sql.Open("sqlite3", h.db.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	if _, err := raw.Exec(`UPDATE leases SET heartbeat_at = heartbeat_at - 11000`); err != nil {
		t.Fatal(err)
	}
	h.openBrowser()
	h.typeText("zebr", false)
	h.waitUntil("one match", func() bool { return len(h.c.br.list.Visible()) == 1 })
	h.key(tcell.KeyEnter)
	h.waitFor("Session in use", "[b] Back to your session")
	if _, _, ok := h.findText("Quit"); ok {
		t.Error("the offer inside the workspace still quits")
	}
	h.key(tcell.KeyEsc)
	h.waitUntil("the workspace back on its session", func() bool {
		return h.c.pages.top() == "" && h.c.SessionID() == ids[2] && !h.c.readOnly
	})
	select {
	case <-h.done:
		t.Fatal("Esc quit rewind")
	default:
	}
}

// At startup (--session of a session another process writes) Esc keeps
// watching; only q quits.
func TestSessionInUseAtStartupEscWatches(t *testing.T) {
	t.Parallel()
	var id string
	var lease *store.Lease
	h := newHarness(t, hopts{
		before: func(h *harness) {
			s, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "busy elsewhere", WorkDir: h.work})
			if err != nil {
				t.Fatal(err)
			}
			id = s.ID
			if lease, err = h.db.AcquireLease(h.ctx, id); err != nil {
				t.Fatal(err)
			}
		},
		mutate: func(o *Options) { o.Mode, o.SessionID = ModeResume, id },
	})
	defer lease.Release(context.Background())
	h.waitFor("Session in use", "[q] Quit")
	h.key(tcell.KeyEsc)
	h.waitFor("watching read-only: the other process is the writer")
	select {
	case <-h.done:
		t.Fatal("Esc quit rewind")
	default:
	}
	if h.sessionID() != id {
		t.Errorf("watching %q, want %q", h.sessionID(), id)
	}
}

// Back to the session it just left, the workspace writes it again: the
// lease it gave up when it left is released on a worker, and an open that
// ran first found it still held (by this very process) and watched its own
// session read-only ("WATCH · no writer" once the release ran; a loaded
// -race run of TestSessionInUseFromTheBrowserGoesBack). The release is held
// here until the open waits for it.
func TestBackToTheSessionJustLeftWaitsForItsRelease(t *testing.T) {
	t.Parallel()
	h, ids := browserHarness(t)
	lease, err := h.db.AcquireLease(h.ctx, ids[0])
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release(context.Background())
	held := make(chan struct{})
	var holdOnce sync.Once
	release := func() { holdOnce.Do(func() { close(held) }) }
	defer release()
	h.c.attach.releases.hold = func() { <-held }
	h.openBrowser()
	h.typeText("zebr", false)
	h.waitUntil("one match", func() bool { return len(h.c.br.list.Visible()) == 1 })
	h.key(tcell.KeyEnter)
	h.waitFor("Session in use", "[b] Back to your session")
	h.key(tcell.KeyEsc)
	// The open of the session left is under way (or done) before its
	// release goes on.
	h.waitUntil("the open under way", func() bool { return h.c.run.op != "" || h.c.SessionID() == ids[2] })
	release()
	h.waitUntil("the workspace back on its session", func() bool {
		return h.c.run.op == "" && h.c.pages.top() == "" && h.c.SessionID() == ids[2]
	})
	if h.onUI(func() bool { return h.c.readOnly }) {
		t.Fatalf("the workspace watches the session it left, read-only:\n%s", h.text())
	}
}

package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/views"
)

// browserSessions seeds three sessions and returns their ids (oldest first).
func browserSessions(t *testing.T, db *store.DB, work string) []string {
	t.Helper()
	ctx := context.Background()
	var ids []string
	for _, s := range []struct{ title, msg string }{
		{"zebra notes", "stripes and savannah"},
		{"parser rewrite", "the quokka grammar needs a lookahead"},
		{"release checklist", "tag the build and write the changelog"},
	} {
		sess, err := db.CreateSession(ctx, store.NewSession{Title: s.title, WorkDir: work})
		if err != nil {
			t.Fatal(err)
		}
		seedTurns(t, db, sess.ID, s.msg)
		ids = append(ids, sess.ID)
	}
	return ids
}

func (h *harness) ctrl(k tcell.Key) { h.screen.InjectKey(k, 0, tcell.ModCtrl) }

func (h *harness) openBrowser() {
	h.t.Helper()
	h.ctrl(tcell.KeyCtrlO)
	h.waitUntil("the browser", func() bool { return h.c.pages.top() == browserPage })
	h.waitUntil("the browser's sessions", func() bool { return len(h.c.br.list.Visible()) > 0 })
}

func browserHarness(t *testing.T) (*harness, []string) {
	var ids []string
	h := newHarness(t, hopts{w: 160, h: 44,
		before: func(h *harness) { ids = browserSessions(t, h.db, h.work) },
		mutate: func(o *Options) { o.Mode, o.SessionID = ModeResume, ids[2] },
	})
	return h, ids
}

func TestBrowserFilterHighlightsAndResumes(t *testing.T) {
	t.Parallel()
	h, ids := browserHarness(t)
	h.openBrowser()
	h.waitFor("release checklist", "parser rewrite", "zebra notes")
	h.typeText("zebr", false)
	h.waitUntil("one match", func() bool { return len(h.c.br.list.Visible()) == 1 })
	h.waitFor("zebra notes")
	x, y, _ := h.findText("zebra notes")
	if fg, _, _ := h.cell(x, y).Style.Decompose(); fg != h.theme().MatchHighlight {
		t.Errorf("matched 'z' drawn in %v, want the highlight colour %v", fg, h.theme().MatchHighlight)
	}
	h.key(tcell.KeyEnter)
	h.waitUntil("the workspace on the chosen session", func() bool { return h.c.SessionID() == ids[0] && h.c.pages.top() == "" })
	h.waitFor("stripes and savannah")
}

func TestBrowserFullTextSearch(t *testing.T) {
	t.Parallel()
	h, ids := browserHarness(t)
	h.openBrowser()
	h.typeText("/quokka", false)
	h.waitFor("quokka grammar")
	h.waitUntil("the hits", func() bool {
		hits := h.c.br.list.Hits()
		for _, hit := range hits {
			if hit.SessionID != ids[1] {
				return false
			}
		}
		return len(hits) > 0
	})
	h.key(tcell.KeyEnter)
	h.waitUntil("the workspace on the hit's session", func() bool { return h.c.SessionID() == ids[1] })
}

func TestBrowserRenameDeleteUndo(t *testing.T) {
	t.Parallel()
	h, ids := browserHarness(t)
	ctx := context.Background()
	h.openBrowser()
	h.typeText("parser", false)
	h.waitUntil("one match", func() bool { return len(h.c.br.list.Visible()) == 1 })
	h.ctrl(tcell.KeyCtrlR)
	h.waitFor("Rename session")
	h.ctrl(tcell.KeyCtrlU)
	h.typeText("ship it", true)
	h.waitUntil("the rename", func() bool {
		s, err := h.db.GetSession(ctx, ids[1])
		return err == nil && s.Title == "ship it"
	})
	h.waitFor("renamed to “ship it”")

	// Delete asks first, hides the session, and Ctrl-Y brings it back.
	h.c.onUIThread(func() { h.c.br.list.SetFilter("ship") })
	h.waitUntil("the renamed row", func() bool {
		for i, r := range h.c.br.list.Visible() {
			if r.ID == ids[1] {
				h.c.br.list.Select(i)
			}
		}
		r, ok := h.c.br.list.SelectedSession()
		return ok && r.ID == ids[1]
	})
	h.ctrl(tcell.KeyCtrlD)
	h.waitFor("Delete session “ship it”", "/undelete brings it back")
	h.typeText("d", false)
	h.waitUntil("the delete", func() bool {
		s, err := h.db.GetSession(ctx, ids[1])
		return err == nil && s.Deleted
	})
	h.waitUntil("the row to go", func() bool {
		for _, r := range h.c.br.list.Visible() {
			if r.ID == ids[1] {
				return false
			}
		}
		return true
	})
	h.waitFor("Ctrl-Y or /undelete undoes")
	h.ctrl(tcell.KeyCtrlY)
	h.waitUntil("the undelete", func() bool {
		s, err := h.db.GetSession(ctx, ids[1])
		return err == nil && !s.Deleted
	})
	h.waitFor("restored session “ship it”")
}

func TestBrowserForkAndExport(t *testing.T) {
	t.Parallel()
	// The browser exports through the one export the CLI and /export use
	// (app's exportFile, whose no-clobber rule the CLI's end-to-end tests
	// hold): it passes the selected session and the path it was given.
	type exported struct{ id, path string }
	calls := make(chan exported, 2)
	var n atomic.Int32
	var ids []string
	h := newHarness(t, hopts{w: 160, h: 44,
		before: func(h *harness) { ids = browserSessions(t, h.db, h.work) },
		mutate: func(o *Options) {
			o.Mode, o.SessionID = ModeResume, ids[2]
			o.Export = func(_ context.Context, id, path string) (int, error) {
				calls <- exported{id, path}
				if n.Add(1) > 1 {
					return 0, fmt.Errorf("%s already exists: choose another name (nothing is overwritten)", path)
				}
				return 7, nil
			}
		},
	})
	ctx := context.Background()
	h.openBrowser()
	h.typeText("zebra", false)
	h.waitUntil("one match", func() bool { return len(h.c.br.list.Visible()) == 1 })
	h.ctrl(tcell.KeyCtrlE)
	h.waitFor("Export session (kimi-cli context.jsonl)")
	var row views.SessionRow
	h.c.onUIThread(func() { row = h.c.br.list.Visible()[0] })
	want := filepath.Join(h.work, exportName(row))
	h.key(tcell.KeyEnter)
	h.waitFor("exported “zebra notes” to", "(7 lines)")
	if got := <-calls; got.id != row.ID || got.path != want {
		t.Fatalf("exported %+v, want %s to %s", got, row.ID, want)
	}
	h.ctrl(tcell.KeyCtrlE)
	h.waitFor("Export session (kimi-cli context.jsonl)")
	h.key(tcell.KeyEnter)
	h.waitFor("already exists: choose another name")

	h.ctrl(tcell.KeyCtrlF)
	h.waitUntil("the workspace on a fork", func() bool {
		id := h.c.SessionID()
		return id != "" && id != ids[0] && id != ids[1] && id != ids[2]
	})
	fork, err := h.db.GetSession(ctx, h.sessionID())
	if err != nil || fork.Title != "zebra notes" || fork.Messages != 2 {
		t.Fatalf("fork %+v %v", fork, err)
	}
	h.waitFor("Forked session")
}

package tui

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// A one-letter word being typed is not searched: "/quokka g" keeps the
// hits of "quokka" (it showed "0 hits · No message matches." at the first
// letter of every new word), and a lone "/q" asks for one more letter.
func TestBrowserSearchWaitsForASecondLetter(t *testing.T) {
	t.Parallel()
	h, _ := browserHarness(t)
	h.openBrowser()
	h.typeText("/quokka", false)
	h.waitFor("quokka grammar", "2 hits")
	h.typeText(" g", false)
	// "2 hits" next to the new query: its hits are in (the count says
	// "searching…" until they are)
	text := h.waitFor("search: /quokka g ", "2 hits", "quokka grammar")
	if strings.Contains(text, "No message matches") {
		t.Errorf("the screen says no match for a one-letter word being typed:\n%s", text)
	}
	h.ctrl(tcell.KeyCtrlU) // keeps the "/"
	h.typeText("q", false)
	h.waitFor("search: /q ", "Type one more letter")
	if text := h.text(); strings.Contains(text, "hits") || strings.Contains(text, "No message matches") {
		t.Errorf("a one-letter query shows a count or a result:\n%s", text)
	}
}

// The tool pane follows the session opened from the browser, even when
// the new session has a call of the same id (kimi-cli numbers its calls
// "Shell:0", "Shell:1"… in every session): it kept showing the old
// session's call and output.
func TestToolPaneFollowsAResumedSessionWithTheSameCallIDs(t *testing.T) {
	t.Parallel()
	var ids []string
	h := newHarness(t, hopts{w: 160, h: 48,
		before: func(h *harness) {
			for _, s := range []struct{ title, out string }{{"first shell", "alpha-output"}, {"second shell", "beta-output"}} {
				sess, err := h.db.CreateSession(h.ctx, store.NewSession{Title: s.title, WorkDir: h.work})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := h.db.AppendMessage(h.ctx, sess.ID, message.NewText("user", "run it in "+s.title)); err != nil {
					t.Fatal(err)
				}
				call := message.NewText("assistant", "")
				call.ToolCalls = []message.ToolCall{{ID: "Shell:0", Name: "Shell", Args: `{"command":"ls"}`}}
				result := message.Message{Role: "tool", ToolCallID: "Shell:0", Content: message.TextContent(s.out)}
				if _, err := h.db.CommitStep(h.ctx, sess.ID, store.Step{Assistant: call, ToolResults: []message.Message{result}}); err != nil {
					t.Fatal(err)
				}
				ids = append(ids, sess.ID)
			}
		},
		mutate: func(o *Options) { o.Mode, o.SessionID = ModeResume, ids[0] },
	})
	h.waitFor("run it in first shell")
	h.focus(h.c.conv)
	h.c.onUIThread(func() { h.c.conv.Select(h.c.conv.Len() - 1) })
	h.waitFor("alpha-output")
	h.openBrowser()
	h.typeText("second", false)
	h.waitUntil("one match", func() bool { return len(h.c.br.list.Visible()) == 1 })
	h.key(tcell.KeyEnter)
	h.waitFor("run it in second shell")
	h.waitGone("alpha-output")
}

// With "this dir" on, the browser's full-text search finds the messages
// of the agent's work dir only, as its list does.
func TestBrowserThisDirLimitsTheSearch(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48, before: func(h *harness) {
		for _, s := range []struct{ title, dir string }{{"here task", h.work}, {"there task", "/srv/other/proj2"}} {
			sess, err := h.db.CreateSession(h.ctx, store.NewSession{Title: s.title, WorkDir: s.dir})
			if err != nil {
				t.Fatal(err)
			}
			seedTurns(t, h.db, sess.ID, "the walrus migrates in "+s.title)
		}
	}})
	h.openBrowser()
	h.typeText("/walrus", false)
	h.waitFor("4 hits")
	h.ctrl(tcell.KeyCtrlT)
	h.waitFor("2 hits")
	if text := h.text(); strings.Contains(text, "there task") {
		t.Errorf("a hit of another work dir is listed with this dir on:\n%s", text)
	}
	h.ctrl(tcell.KeyCtrlT)
	h.waitFor("4 hits", "there task")
}

// At 80 columns the Sessions pane's "no sessions here" message wraps at
// words and names the dir; it was cut mid-sentence ("No sessions in this
// work dir (").
func TestSessionsPaneEmptyThisDirWrapsAt80(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 80, h: 24, before: func(h *harness) {
		sess, err := h.db.CreateSession(h.ctx, store.NewSession{Title: "elsewhere", WorkDir: "/srv/other/proj2"})
		if err != nil {
			t.Fatal(err)
		}
		seedTurns(t, h.db, sess.ID, "far away")
	}})
	h.focus(h.c.sessions)
	h.waitFor("elsewhere")
	h.ctrl(tcell.KeyCtrlT)
	h.waitFor("No sessions in", "(Ctrl-T shows all).")
	h.waitFor(filepath.Base(h.work))
}

// At 80 columns the browser's title keeps "F1 help" (it stopped at "Enter
// resume …", hiding rename, delete, fork, export and Ctrl-T), F1 opens
// help with the browser's keys first (it did nothing), and so does "?"
// while the filter is empty; typed in a filter "?" is a character.
func TestBrowserHelpAt80Columns(t *testing.T) {
	t.Parallel()
	var ids []string
	h := newHarness(t, hopts{w: 80, h: 24,
		before: func(h *harness) { ids = browserSessions(t, h.db, h.work) },
		mutate: func(o *Options) { o.Mode, o.SessionID = ModeResume, ids[2] },
	})
	h.openBrowser()
	h.waitFor("F1 help")
	h.key(tcell.KeyF1)
	h.waitUntil("help over the browser", func() bool { return h.c.pages.top() == "help" })
	text := h.waitFor("Session browser", "rename", "the dir the agent works in / all")
	if i, j := strings.Index(text, "Session browser"), strings.Index(text, "Workspace"); j >= 0 && j < i {
		t.Errorf("the browser's keys are not listed first:\n%s", text)
	}
	h.key(tcell.KeyEsc)
	h.waitUntil("back in the browser", func() bool { return h.c.pages.top() == browserPage })
	h.typeText("?", false)
	h.waitUntil("help from ?", func() bool { return h.c.pages.top() == "help" })
	h.key(tcell.KeyEsc)
	h.waitUntil("back in the browser", func() bool { return h.c.pages.top() == browserPage })
	h.typeText("ze?", false)
	h.waitUntil("? typed in the filter", func() bool { return h.c.br.list.Filter() == "ze?" })
	var top string
	h.c.onUIThread(func() { top = h.c.pages.top() })
	if top != browserPage {
		t.Errorf("top page %q after ? in a filter", top)
	}
}

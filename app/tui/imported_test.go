package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store/peers"
	"github.com/rewind-agent/rewind/views"
)

// TestContinueImportedSessionFromBrowser opens an imported codex session
// from the browser (Enter) and sends a prompt: the workspace says once
// that the session came from codex, and the request holds the earlier
// turns with every call followed by its result.
func TestContinueImportedSessionFromBrowser(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48, before: func(h *harness) {
		data, err := os.ReadFile("../../store/peers/testdata/codex-home/sessions/2026/11/27/rollout-2026-11-27T00-19-25-01a21a5f-0700-7353-89ca-3d07664189fe.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "rollout-2026-11-27T00-19-25-01a21a5f-0700-7353-89ca-3d07664189fe.jsonl")
		if err := os.WriteFile(path, []byte(strings.ReplaceAll(string(data), `"/tmp/peers/fx/work"`, `"`+h.work+`"`)), 0o644); err != nil {
			t.Fatal(err)
		}
		d, _, err := peers.Detect(path)
		if err != nil {
			t.Fatal(err)
		}
		if res, err := peers.ImportAll(h.ctx, h.db, d.Sources, peers.Options{}); err != nil || res.Imported != 1 {
			t.Fatalf("import: %+v %v", res, err)
		}
	}}, llmtest.Text("Going on from codex."), llmtest.Text("Still going."))
	h.openBrowser()
	h.typeText("Write a file", false)
	h.waitUntil("one match", func() bool { return len(h.c.br.list.Visible()) == 1 })
	var imported string
	h.c.onUIThread(func() { imported = h.c.br.list.Visible()[0].ID })
	h.key(tcell.KeyEnter)
	// The browser's preview shows the session's text before Enter opens it:
	// a prompt typed before the switch ends starts a session of its own,
	// and one typed before the open session's view is read loses its
	// notice to that view. The timeline shows the text first (the last
	// turn's prompt): a loaded -race run typed there, and saw no notice.
	h.waitUntil("the imported session open and shown", func() bool { // cond runs on the UI goroutine
		if h.c.SessionID() != imported || h.c.pages.top() != "" {
			return false
		}
		for _, it := range convItems(h.c.conv, h.c.conv.Len()) {
			if strings.Contains(it.Text, "Thanks, that is all.") {
				return true
			}
		}
		return false
	})
	h.typeText("and now?", true)
	h.waitFor("Going on from codex.")
	notices := func() (n int) {
		h.c.onUIThread(func() {
			for i := range h.c.conv.Len() {
				if it, _ := h.c.conv.Item(i); it.Kind == views.ItemBanner && strings.Contains(it.Text, "this session came from codex") {
					n++
				}
			}
		})
		return n
	}
	if n := notices(); n != 1 {
		t.Errorf("%d notices that the session came from codex, want 1", n)
	}
	// The answer is on screen before its run ends; Enter while it runs keeps
	// the prompt in the input (a loaded machine met it).
	h.waitUntil("the run to end", h.idle)
	h.typeText("and then?", true)
	h.waitFor("Still going.")
	if n := notices(); n != 1 {
		t.Errorf("after a second prompt, %d notices that the session came from codex, want 1", n)
	}
	reqs := h.srv.Requests()
	msgs := reqs[0].Messages
	calls := 0
	for i, m := range msgs {
		for k, c := range m.ToolCalls {
			calls++
			if r := msgs[i+1+k]; r.Role != "tool" || r.ToolCallID != c.ID {
				t.Fatalf("call %s (%s) is not followed by its result: %+v", c.ID, c.Name, r)
			}
		}
	}
	if calls != 4 {
		t.Errorf("%d calls sent, want the rollout's 4", calls)
	}
}

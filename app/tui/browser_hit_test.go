package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
)

// zeppelinRecords is longRecords(turns) with the answer of turn hit saying
// "answer <hit> about the zeppelin", the one record a search for zeppelin
// finds.
func zeppelinRecords(turns, hit int) []store.Record {
	recs := longRecords(turns)
	asst := message.NewText("assistant", fmt.Sprintf("answer %d about the zeppelin", hit))
	asst.ToolCalls = []message.ToolCall{{ID: fmt.Sprintf("call_%d", hit), Name: "Shell", Args: fmt.Sprintf(`{"command":"echo %d"}`, hit)}}
	b, err := json.Marshal(asst)
	if err != nil {
		panic(err)
	}
	recs[5*hit+2].Body = b
	for i := range recs {
		recs[i].TokenCount = min(recs[i].TokenCount, 1000) // no compaction before a prompt's run
	}
	return recs
}

// hitHarness starts a workspace on a new session beside a session of the
// given generations (the last current), and opens the search hit for
// "zeppelin" from the browser. It returns the session's id. The window
// reads shortWindow's pages.
func hitHarness(t *testing.T, w, hh int, gens ...[]store.Record) (*harness, string) {
	t.Helper()
	var id string
	h := newHarness(t, hopts{w: w, h: hh, window: &shortWindow, before: func(h *harness) {
		var ig []store.ImportedGeneration
		for _, g := range gens {
			ig = append(ig, store.ImportedGeneration{Records: g})
		}
		s, err := h.db.ImportSession(context.Background(), store.NewSession{Title: "long haul", WorkDir: h.work}, ig)
		if err != nil {
			t.Fatal(err)
		}
		id = s.ID
	}}, llmtest.Text("the reply after the hit"))
	openHit(h, id)
	return h, id
}

// fixtureHitHarness is hitHarness on a session built once (zeppelin300,
// stepped300).
func fixtureHitHarness(t *testing.T, w, hh int, f *sessionFixture) (*harness, string) {
	t.Helper()
	h, id := fixtureHarness(t, f, hopts{w: w, h: hh}, false)
	h.srv.Enqueue(llmtest.Text("the reply after the hit"))
	openHit(h, id)
	return h, id
}

// openHit opens the search hit for "zeppelin" in session id from the
// browser.
func openHit(h *harness, id string) {
	h.t.Helper()
	h.openBrowser()
	h.typeText("/zeppelin", false)
	h.waitUntil("the hit", func() bool { return len(h.c.br.list.Hits()) == 1 })
	h.key(tcell.KeyEnter)
	h.waitUntil("the workspace on the hit's session", func() bool { return h.c.SessionID() == id && h.c.pages.top() == "" })
}

// assertMarked fails unless sub is on screen in a row the conversation
// marks as the search hit: a bar in the match colour left of it.
func (h *harness) assertMarked(sub string) {
	h.t.Helper()
	x, y, ok := h.findText(sub)
	if !ok {
		h.t.Fatalf("%q is not on screen:\n%s", sub, h.text())
	}
	want := h.theme().MatchHighlight
	for cx := range x {
		c := h.cell(cx, y)
		if fg, _, _ := c.Style.Decompose(); len(c.Runes) > 0 && c.Runes[0] == '┃' && fg == want {
			return
		}
	}
	h.t.Fatalf("the row of %q has no mark (┃ in %v):\n%s", sub, want, h.text())
}

// TestBrowserOpensASearchHitAtTheHit: Enter on a full-text hit far from
// the end of a long session (1,500 records) opens the conversation at the
// hit, marked, not at the session's tail; only the pages around it are
// read, and the messages either side are counted.
func TestBrowserOpensASearchHitAtTheHit(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			h, _ := fixtureHitHarness(t, size[0], size[1], zeppelin300)
			text := h.waitFor("about the zeppelin")
			if strings.Contains(text, "prompt 299") || strings.Contains(text, "← here") {
				t.Fatalf("the session's tail, or its current position, is on screen:\n%s", text)
			}
			h.assertMarked("about the zeppelin")
			h.waitFor("hit ┃ · End: the newest")
			h.c.onUIThread(func() {
				w := h.c.pg.win
				// 101 records around the hit aligned to turns: turns 91–109
				if len(w.records) != 5*19 || w.earlier != 3*91 || w.later != 3*190 {
					t.Errorf("window of %d records, %d earlier and %d later messages; want %d, %d, %d",
						len(w.records), w.earlier, w.later, 5*19, 3*91, 3*190)
				}
				if it, ok := h.c.conv.Item(h.c.conv.Marked()); !ok || it.Text != "answer 100 about the zeppelin" || h.c.app.GetFocus() != h.c.conv {
					t.Errorf("marked item %+v, focus on the conversation %v", it, h.c.app.GetFocus() == h.c.conv)
				}
			})
		})
	}
}

// TestSearchHitWindowScrollsDownToTheEnd: from a search hit, reaching the
// bottom of the conversation loads the page after it, page by page, each
// turn once, until the end of the session; from there the window is the
// tail's, and a prompt's run appends to it.
func TestSearchHitWindowScrollsDownToTheEnd(t *testing.T) {
	t.Parallel()
	h, _ := hitHarness(t, 120, 40, zeppelinRecords(60, 10))
	h.waitFor("about the zeppelin")
	pages := 0
	for {
		var later int
		var loading bool
		h.c.onUIThread(func() { later, loading = h.c.pg.win.later, h.c.pg.win.loading })
		if loading {
			continue
		}
		if later == 0 {
			break
		}
		if pages++; pages > 5 {
			t.Fatalf("still %d later messages after %d pages", later, pages)
		}
		// the last item (j there): the bottom, above the later marker
		h.c.onUIThread(func() { h.c.conv.Select(h.c.conv.Len() - 1) })
		h.waitUntil("the page after", func() bool { return h.c.pg.win.later != later && !h.c.pg.win.loading })
	}
	if pages != 3 { // 200 records after the window, a page ending before the turn it cuts
		t.Errorf("loaded %d pages after the window, want 3 (200 records in pages of %d)", pages, shortWindow.page)
	}
	h.c.onUIThread(func() {
		var prompts []string
		for i := range h.c.conv.Len() {
			if it, _ := h.c.conv.Item(i); strings.HasPrefix(it.Text, "prompt ") {
				prompts = append(prompts, it.Text)
			}
		}
		first := 60 - len(prompts)
		for i, p := range prompts {
			if p != fmt.Sprintf("prompt %d", first+i) {
				t.Fatalf("prompt %d of the conversation is %q, want prompt %d (turns missing or twice)", i, p, first+i)
			}
		}
		if first > 10 {
			t.Errorf("the conversation starts at prompt %d, after the hit's turn", first)
		}
	})
	h.c.onUIThread(func() { h.c.conv.Select(h.c.conv.Len() - 1) }) // the page stayed where it was read
	h.waitFor("answer 59")
	h.focus(h.c.input)
	h.submit("one more question")
	h.waitFor("the reply after the hit")
	h.c.onUIThread(func() {
		n := h.c.conv.Len()
		prev, _ := h.c.conv.Item(n - 3)
		if !strings.HasPrefix(prev.Text, "echo 59") && prev.KeyArg != "echo 59" {
			t.Errorf("the prompt does not follow the session's last turn: item before it %+v", prev)
		}
	})
}

// TestSearchHitPromptJumpsToTheEnd: a prompt sent while the conversation
// shows a search hit far from the end goes after the newest message: the
// conversation jumps to the end first (as End does), then the run streams
// there.
func TestSearchHitPromptJumpsToTheEnd(t *testing.T) {
	t.Parallel()
	h, _ := fixtureHitHarness(t, 120, 40, zeppelin300)
	h.waitFor("about the zeppelin")
	h.focus(h.c.input)
	h.submit("what came of it")
	h.waitFor("the reply after the hit", "answer 299")
	h.waitUntil("the run's end", h.idle)
	h.c.onUIThread(func() {
		if h.c.pg.win.later != 0 || h.c.conv.Marked() != -1 {
			t.Errorf("after the prompt: %d later messages, marked item %d", h.c.pg.win.later, h.c.conv.Marked())
		}
		n := h.c.conv.Len()
		if p, _ := h.c.conv.Item(n - 2); p.Text != "what came of it" {
			t.Errorf("the item before the reply is %+v", p)
		}
	})
}

// TestSearchHitInAnArchivedGeneration: a hit in an archived generation
// opens the session at its current conversation with that generation's
// preview over it, at the hit and marked, as the timeline shows an
// archived generation; Esc goes back to the current conversation.
func TestSearchHitInAnArchivedGeneration(t *testing.T) {
	t.Parallel()
	cur := longRecords(3)
	h, _ := hitHarness(t, 160, 48, zeppelinRecords(40, 30), cur)
	h.waitFor("ARCHIVED generation 0", "about the zeppelin")
	h.assertMarked("about the zeppelin")
	h.waitFor("archived generation 0 (read-only)")
	h.c.onUIThread(func() {
		if item, ok := h.c.timeline.SelectedItem(); !ok || item.Generation.Gen != 0 {
			t.Errorf("the timeline's selection is %+v, want generation 0", item)
		}
	})
	h.key(tcell.KeyEsc)
	h.waitGone("ARCHIVED generation 0")
	h.waitFor("prompt 2", "answer 2")
	if strings.Contains(h.text(), "zeppelin") {
		t.Fatalf("the current conversation shows the archived hit:\n%s", h.text())
	}
}

// TestSearchHitWindowStaysWhileTheSessionGrows: turns added to the session
// while the conversation shows a search hit far from the end leave the
// conversation and its timeline where they are (no whole read of the tail
// replaces them); End then shows the end with the new turn.
func TestSearchHitWindowStaysWhileTheSessionGrows(t *testing.T) {
	t.Parallel()
	h, id := fixtureHitHarness(t, 120, 40, zeppelin300)
	h.waitFor("about the zeppelin")
	var timeline int
	h.c.onUIThread(func() { timeline = len(h.c.timeline.Model().Checkpoints) })
	h.waitUntil("the followed view to read the session", func() bool {
		h.c.watch.viewMu.Lock()
		defer h.c.watch.viewMu.Unlock()
		return h.c.watch.view.id == id
	})
	seedTurns(t, h.db, id, "a new prompt")
	last, err := h.db.SessionVersion(h.ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	h.waitUntil("the followed view to read the new turn", func() bool {
		h.c.watch.viewMu.Lock()
		defer h.c.watch.viewMu.Unlock()
		return h.c.watch.view.id == id && h.c.watch.view.cursor >= last.MaxSeq
	})
	applied := make(chan struct{})
	h.c.post(evFunc{f: func() { close(applied) }}) // after what the catch-up posted
	<-applied
	h.assertMarked("about the zeppelin")
	h.c.onUIThread(func() {
		if n := len(h.c.timeline.Model().Checkpoints); n != timeline || h.c.pg.win.later == 0 {
			t.Errorf("after the new turn: %d timeline checkpoints (%d before), %d later messages", n, timeline, h.c.pg.win.later)
		}
	})
	h.key(tcell.KeyEnd)
	h.waitFor("a new prompt")
	h.waitGone("about the zeppelin")
}

// TestSearchHitSharedWithTheCurrentView: a hit that names an archived
// generation whose record the current view shares (a revert keeps the
// turns before its checkpoint) opens in the current conversation, marked,
// with no archived preview.
func TestSearchHitSharedWithTheCurrentView(t *testing.T) {
	t.Parallel()
	var id string
	h := newHarness(t, hopts{w: 160, h: 48, before: func(h *harness) {
		s, err := h.db.ImportSession(h.ctx, store.NewSession{Title: "reverted", WorkDir: h.work},
			[]store.ImportedGeneration{{Records: zeppelinRecords(100, 10)}})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := h.db.RevertTo(h.ctx, s.ID, 50, store.CauseRevert, ""); err != nil {
			t.Fatal(err)
		}
		id = s.ID
	}})
	h.openBrowser()
	h.typeText("/zeppelin", false)
	h.waitUntil("the hit in generation 0", func() bool { hs := h.c.br.list.Hits(); return len(hs) == 1 && hs[0].Gen == 0 })
	h.key(tcell.KeyEnter)
	h.waitUntil("the workspace on the hit's session", func() bool { return h.c.SessionID() == id && h.c.pages.top() == "" })
	h.waitFor("about the zeppelin", "hit ┃ · End: the newest")
	h.assertMarked("about the zeppelin")
	if strings.Contains(h.text(), "ARCHIVED") {
		t.Fatalf("the hit opened as archived:\n%s", h.text())
	}
	h.c.onUIThread(func() {
		if h.c.tt.previewing || h.c.pg.win.gen != 1 {
			t.Errorf("previewing %v, window of generation %d; want the current view (1)", h.c.tt.previewing, h.c.pg.win.gen)
		}
	})
}

// TestSearchHitInAToolResult: a hit in a tool call's output opens with
// the call marked and unfolded, so the output that matched is on screen.
func TestSearchHitInAToolResult(t *testing.T) {
	t.Parallel()
	h, _ := fixtureHitHarness(t, 120, 40, toolHit300)
	h.waitFor("the zeppelin landed", "hit ┃ · End: the newest")
	h.assertMarked("▾ ✓ Shell echo 100") // unfolded (the tool pane shows it too, without ▾)
}

// TestSearchHitSharedWithANewerFork: a record a fork shares with its
// source is listed under the newer of the two (store.SearchHit), and Enter
// opens that session, the fork, at the record, marked. The fork's own
// records have seqs of their own that the source's also have, so the hit
// names the session that wrote it.
func TestSearchHitSharedWithANewerFork(t *testing.T) {
	t.Parallel()
	var fork string
	h := newHarness(t, hopts{w: 160, h: 48, before: func(h *harness) {
		src, err := h.db.ImportSession(h.ctx, store.NewSession{Title: "the source", WorkDir: h.work},
			[]store.ImportedGeneration{{Records: zeppelinRecords(20, 10)}})
		if err != nil {
			t.Fatal(err)
		}
		f, err := h.db.ForkSession(h.ctx, src.ID, -1, -1)
		if err != nil {
			t.Fatal(err)
		}
		fork = f.ID
		if err := h.db.RenameSession(h.ctx, fork, "the fork"); err != nil {
			t.Fatal(err)
		}
		// the fork's own records, some with the hit's seq; written until
		// the fork is the newer by the clock
		for i := 0; ; i++ {
			if _, err := h.db.AppendMessage(h.ctx, fork, message.NewText("user", fmt.Sprintf("fork note %d", i))); err != nil {
				t.Fatal(err)
			}
			s, _ := h.db.GetSession(h.ctx, src.ID)
			f, _ := h.db.GetSession(h.ctx, fork)
			if i >= 120 && f.UpdatedAt.After(s.UpdatedAt) {
				break
			}
		}
	}})
	h.openBrowser()
	h.typeText("/zeppelin", false)
	h.waitUntil("one hit, under the fork", func() bool {
		hs := h.c.br.list.Hits()
		return len(hs) == 1 && hs[0].SessionID == fork && hs[0].AlsoIn == 1
	})
	h.waitFor("⑂ the fork (fork of the source) (+1 session)") // the list title, marked a fork
	h.key(tcell.KeyEnter)
	h.waitUntil("the workspace on the fork", func() bool { return h.c.SessionID() == fork && h.c.pages.top() == "" })
	h.waitFor("about the zeppelin", "hit ┃ · End: the newest")
	h.assertMarked("about the zeppelin")
}

// TestSearchHitInTheGenerationThisProcessCompactedInto: after /compact in
// this process, a hit in the new (current) generation opens in the live
// conversation, writable, not as an archived generation's read-only
// preview (the open session's generation was the one before the
// compaction).
func TestSearchHitInTheGenerationThisProcessCompactedInto(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{w: 160, h: 48},
		llmtest.Text("first answer"),
		llmtest.Text("second answer"),
		llmtest.Text("marmalade noted"),
		llmtest.Text("SUMMARY: the user likes kumquat marmalade."))
	for _, p := range []string{"one", "two", "kumquat marmalade"} {
		h.submit(p)
		h.waitUntil("the run to end", h.idle)
	}
	h.waitFor("marmalade noted")
	h.submit("/compact")
	h.waitFor("Context compacted into generation 1")
	h.waitUntil("compaction to end", h.idle)
	h.openBrowser()
	h.typeText("/kumquat", false)
	h.waitUntil("a hit in generation 1", func() bool {
		hs := h.c.br.list.Hits()
		return len(hs) > 0 && hs[0].Gen == 1
	})
	h.key(tcell.KeyEnter)
	h.waitUntil("the workspace", func() bool { return h.c.pages.top() == "" })
	h.waitFor("hit ┃ · End: the newest")
	if text := h.text(); strings.Contains(text, "read-only") || strings.Contains(text, "ARCHIVED") {
		t.Fatalf("the hit in the current generation opened archived:\n%s", text)
	}
	h.c.onUIThread(func() {
		if h.c.tt.previewing || h.c.pg.win.gen != 1 || h.c.cur().soul == nil {
			t.Errorf("previewing %v, window of generation %d, writable %v; want the live current view (1)",
				h.c.tt.previewing, h.c.pg.win.gen, h.c.cur().soul != nil)
		}
	})
}

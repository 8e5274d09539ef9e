package tui

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/store/storetest"
	"github.com/rewind-agent/rewind/views"
)

// The preview of a search hit shows the hit's record, not the start of
// the session, with its markdown rendered as the conversation pane does.
func TestBrowserHitPreviewShowsTheHit(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			h := newHarness(t, hopts{w: size[0], h: size[1], before: func(h *harness) {
				ctx := context.Background()
				s, err := h.db.CreateSession(ctx, store.NewSession{Title: "long haul", WorkDir: h.work})
				if err != nil {
					t.Fatal(err)
				}
				for i := range 30 {
					answer := fmt.Sprintf("plain answer number %d", i)
					if i == 20 {
						answer = "## Route\n\nthe **zeppelin** flies at dawn"
					}
					seedAnswer(t, h.db, s.ID, fmt.Sprintf("opening question %c%c", 'a'+i/26, 'a'+i%26), answer)
				}
			}})
			h.openBrowser()
			h.typeText("/zeppelin", false)
			// the preview: the answer, its heading rendered
			text := h.waitFor("● Route", "  the zeppelin flies at dawn")
			for _, bad := range []string{"**", "##", "opening question aa"} {
				if strings.Contains(text, bad) {
					t.Errorf("the browser shows %q:\n%s", bad, text)
				}
			}
			if size[0] == 160 {
				h.waitFor("opening question au") // the hit's own question, just above it
			}
		})
	}
}

// seedAnswer adds one turn: a checkpoint, a user message and an answer.
func seedAnswer(t *testing.T, db *store.DB, id, question, answer string) {
	t.Helper()
	ctx := context.Background()
	if _, err := db.Checkpoint(ctx, id, false); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AppendMessage(ctx, id, message.NewText("user", question)); err != nil {
		t.Fatal(err)
	}
	if _, err := db.CommitStep(ctx, id, store.Step{Assistant: message.NewText("assistant", answer), TokenCount: 10}); err != nil {
		t.Fatal(err)
	}
}

// previewOf finds a hit's record in a long session without decoding all of
// it: an answer is the focused item, a tool result focuses its call, and a
// session's preview is its newest items.
func TestPreviewOfHits(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := storetest.Open(t)
	s, err := db.CreateSession(ctx, store.NewSession{Title: "long", WorkDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		seedAnswer(t, db, s.ID, fmt.Sprintf("question %d", i), fmt.Sprintf("answer %d", i))
		if i == 100 {
			call := message.NewText("assistant", "")
			call.ToolCalls = []message.ToolCall{{ID: "c1", Name: "Shell", Args: `{"command":"ls"}`}}
			result := message.Message{Role: "tool", ToolCallID: "c1", Content: message.TextContent("walrus.txt")}
			if _, err := db.CommitStep(ctx, s.ID, store.Step{Assistant: call, ToolResults: []message.Message{result}}); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct{ query, want string }{{"answer 150", "answer 150"}, {"walrus", "ls"}, {"question 3", "question 3"}} {
		hits, err := db.Search(ctx, store.SearchOptions{Query: `"` + c.query + `"`})
		if err != nil || len(hits) != 1 {
			t.Fatalf("search %q: %v %v", c.query, hits, err)
		}
		v, err := db.GenerationView(ctx, s.ID, hits[0].Gen)
		if err != nil {
			t.Fatal(err)
		}
		p := previewOf(v, views.PreviewKey{SessionID: s.ID, Hit: true, Gen: hits[0].Gen, Seq: hits[0].Seq})
		if p.Focus < 0 || p.Focus >= len(p.Items) {
			t.Fatalf("%q: focus %d of %d items", c.query, p.Focus, len(p.Items))
		}
		if got := p.Items[p.Focus]; (got.Text != c.want && got.KeyArg != c.want) || !got.Expanded {
			t.Errorf("%q: the focused item is %+v, want %q unfolded", c.query, got, c.want)
		}
		if len(p.Items) > previewItems+3 {
			t.Errorf("%q: %d items, want at most %d", c.query, len(p.Items), previewItems+3)
		}
	}
	v, err := db.View(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	p := previewOf(v, views.PreviewKey{SessionID: s.ID})
	if p.Focus != -1 || len(p.Items) != previewItems || p.Items[len(p.Items)-1].Text != "answer 199" {
		t.Errorf("session preview: focus %d, %d items, last %+v", p.Focus, len(p.Items), p.Items[len(p.Items)-1])
	}
}

// A preview superseded before its wait is over is never loaded: scrolling
// through a list reads only the preview it stops at.
func TestPreviewLoaderDropsSupersededRequests(t *testing.T) {
	t.Parallel()
	loaded := make(chan string, 3)
	p := &previewLoader{wait: time.Hour, run: func(f func()) { go f() }}
	p.request(func() { loaded <- "a" })
	p.request(func() { loaded <- "b" })
	p.wait = 0
	p.request(func() { loaded <- "c" })
	if got := <-loaded; got != "c" {
		t.Fatalf("loaded %q first, want only the last request c", got)
	}
	if len(loaded) != 0 {
		t.Fatalf("a superseded request was loaded too: %q", <-loaded)
	}
}

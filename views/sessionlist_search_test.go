package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// At 80 columns a hit whose match is at the end of a long snippet shows the
// match: the snippet loses words before it, not the match itself.
func TestSessionListHitShowsTheMatchAt80Columns(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetTheme(dark)
	l.SetSessions(sampleSessions())
	send(l, runes("/deadlock")...)
	snippet := "…we looked at the pool, the scheduler, the queue and the retry loop before we found the «deadlock» in the worker…"
	l.SetHits("deadlock", []SearchHit{{SessionID: "s1", Title: "a long title of a session about the parser", Role: "assistant", Snippet: snippet}}, false)
	s := draw(t, l, 80, 24)
	x, y := mustFind(t, s, "found the deadlock in")
	x += len("found the ")
	if fg(s, x, y) != dark.MatchHighlight {
		t.Errorf("the match is drawn in %v, want the highlight %v", fg(s, x, y), dark.MatchHighlight)
	}
	if r := row(s, y); strings.Contains(r, "«") || strings.Contains(r, "»") {
		t.Errorf("row %q shows the match markers", r)
	}
	mustFind(t, s, "· assistant: …")
}

func TestSnippetWindow(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		w    int
		want string
		mark string
	}{
		{"a «b» c", 20, "a b c", "b"},
		{"one two three four five six «seven» eight", 20, "…five six seven eight", "seven"},
		{"«first» and then much more text after it", 10, "first and then much more text after it", "first"},
		{"naïve café «crème» brûlée", 12, "…crème brûlée", "crème"},
		{"naïve café «crème» brûlée", 16, "…café crème brûlée", "crème"},
		{"no match here", 5, "no match here", ""},
	} {
		got, marks := snippetWindow(c.in, c.w)
		var m strings.Builder
		for _, i := range marks {
			m.WriteByte(got[i])
		}
		if got != c.want || m.String() != c.mark {
			t.Errorf("snippetWindow(%q, %d) = %q marking %q, want %q marking %q", c.in, c.w, got, m.String(), c.want, c.mark)
		}
	}
}

// When the list holds fewer hits than there are, the count says so.
func TestSessionListHitCountSaysWhenThereAreMore(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetTheme(dark)
	send(l, runes("/the")...)
	hits := make([]SearchHit, 200)
	for i := range hits {
		hits[i] = SearchHit{SessionID: fmt.Sprintf("s%d", i), Title: "t", Role: "user", Snippet: "«the» end"}
	}
	l.SetHits("the", hits, true)
	s := draw(t, l, 100, 20)
	mustFind(t, s, "200+ hits")
	l.SetHits("the", hits[:1], false)
	redraw(s, l)
	mustFind(t, s, " 1 hit")
	if _, _, ok := find(s, "1+"); ok {
		t.Error("a complete list of one hit says 1+")
	}
}

// The preview of a hit starts at the hit's record, marked, with its
// markdown rendered as the conversation pane renders it.
func TestSessionListHitPreviewShowsTheHit(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetTheme(dark)
	var asked []PreviewKey
	l.SetPreviewFunc(func(k PreviewKey) { asked = append(asked, k) })
	send(l, runes("/needle")...)
	l.SetHits("needle", []SearchHit{{SessionID: "s1", Title: "haystack", Role: "assistant", Gen: 1, Seq: 40, Snippet: "the «needle»"}}, false)
	k := PreviewKey{SessionID: "s1", Hit: true, Gen: 1, Seq: 40}
	if len(asked) == 0 || asked[len(asked)-1] != k {
		t.Fatalf("preview asked for %v, want %v", asked, k)
	}
	var items []Item
	for i := range 30 {
		items = append(items, Item{Kind: ItemUser, Text: fmt.Sprintf("question %d", i)})
	}
	items = append(items, Item{Kind: ItemAssistant, Text: "## Found\n\nthe **needle** is in `hay.go`"})
	items = append(items, Item{Kind: ItemUser, Text: "thanks"})
	l.SetPreview(k, Preview{Items: items, Focus: 30})
	s := draw(t, l, 160, 40)
	x, y := mustFind(t, s, "the needle is in hay.go")
	if _, _, ok := find(s, "**needle**"); ok {
		t.Error("the preview shows raw markdown")
	}
	if _, _, ok := find(s, "question 0"); ok {
		t.Error("the preview shows the start of the session, not the hit")
	}
	_, fy := mustFind(t, s, "Found")
	if fy > y {
		t.Fatalf("heading below the text")
	}
	// the hit is marked in the gutter
	var marked bool
	for gx := x - 3; gx < x; gx++ {
		if str, _, _ := s.Get(gx, fy); str == "▎" {
			marked = true
		}
	}
	if !marked {
		t.Errorf("the hit's first row %q is not marked", row(s, fy))
	}
	// its question above it, and the blank line between them unmarked
	_, qy := mustFind(t, s, "question 29")
	for gy := qy + 1; gy < fy; gy++ {
		if strings.Contains(row(s, gy), "▎") {
			t.Errorf("blank row %q above the hit is marked", row(s, gy))
		}
	}
}

// TestSessionListHitMarksForkAndArchived: at 80 columns a hit under a fork
// shows the fork mark, and a hit of an archived generation says so, so the
// two hits of a message a compaction kept can be told apart.
func TestSessionListHitMarksForkAndArchived(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetTheme(dark)
	l.SetSessions(sampleSessions())
	send(l, runes("/kumquat")...)
	l.SetHits("kumquat", []SearchHit{
		{SessionID: "s1", Title: "demo", Gen: 1, Role: "user", Snippet: "«kumquat» marmalade"},
		{SessionID: "s1", Title: "demo", Gen: 0, Archived: true, Role: "user", Snippet: "«kumquat» marmalade"},
		{SessionID: "s2", Title: "fork of demo @ checkpoint 2", Gen: 0, Fork: true, Role: "user", Snippet: "«kumquat» jam"},
	}, false)
	s := draw(t, l, 80, 24)
	_, y0 := mustFind(t, s, "demo · user: kumquat marmalade")
	_, y1 := mustFind(t, s, "demo g0 archived · user: kumquat marmalade")
	if y0 == y1 {
		t.Errorf("the current and the archived hit on one row %d", y0)
	}
	x, y := mustFind(t, s, "⑂ fork of demo @ checkpoint… · user: kumquat jam")
	if fg(s, x, y) == fg(s, x+2, y) {
		t.Errorf("the fork mark is drawn like the title")
	}
	if fg(s, x+len("demo "), y1) == dark.MatchHighlight {
		t.Errorf("archived mark drawn as a match")
	}
}

// TestSessionListCtrlUKeepsTheSlash: Ctrl-U in a full-text search clears
// the words and keeps the "/", so what is typed next is searched for, not
// matched against the titles (Backspace keeps it too).
func TestSessionListCtrlUKeepsTheSlash(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetTheme(dark)
	l.SetSessions(sampleSessions())
	l.SetSearchFunc(func(string) {})
	send(l, runes("/build")...)
	send(l, key(tcell.KeyCtrlU, 0, tcell.ModCtrl))
	if f := l.Filter(); f != "/" || !l.FullText() {
		t.Fatalf("filter after Ctrl-U %q, want \"/\"", f)
	}
	send(l, runes("deadlock")...)
	if f := l.Filter(); f != "/deadlock" {
		t.Errorf("filter %q, want /deadlock", f)
	}
	mustFind(t, draw(t, l, 80, 24), "search: /deadlock")
	// a second Ctrl-U at the "/" clears it too: back to the title filter
	send(l, key(tcell.KeyCtrlU, 0, tcell.ModCtrl), key(tcell.KeyCtrlU, 0, tcell.ModCtrl))
	if f := l.Filter(); f != "" {
		t.Errorf("filter after Ctrl-U at the slash %q, want empty", f)
	}
}

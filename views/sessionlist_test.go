package views

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

func sampleSessions() []SessionRow {
	now := time.Now()
	return []SessionRow{
		{ID: "s1", Title: "fix the parser bug", WorkDir: "/home/ann/src/rewind", Updated: now.Add(-5 * time.Minute), Messages: 42, Tokens: 12000, Generations: 3, Live: true},
		{ID: "s2", Title: "write release notes", WorkDir: "/home/ann/docs", Updated: now.Add(-3 * time.Hour), Messages: 8, Tokens: 900, Generations: 1},
		{ID: "s3", Title: "\x1b]0;pwned\x07[red]evil[-]", WorkDir: "/tmp/x", Updated: now.Add(-48 * time.Hour), Messages: 1, Tokens: 10, Generations: 1},
	}
}

func TestSessionListRenderAndFilter(t *testing.T) {
	t.Parallel()
	for _, sz := range sizes {
		t.Run(fmt.Sprint(sz.w), func(t *testing.T) {
			l := NewSessionList()
			l.SetTheme(dark)
			l.SetSessions(sampleSessions())
			s := draw(t, l, sz.w, sz.h)
			mustFind(t, s, "fix the parser bug")
			mustFind(t, s, "[red]evil[-]")
			if sz.w >= 80 {
				mustFind(t, s, "/home/ann/src/rewind")
				mustFind(t, s, "5m")
				mustFind(t, s, "12.0k")
			}
			assertNoControls(t, s)

			send(l, runes("rnotes")...)
			vis := l.Visible()
			if len(vis) == 0 || vis[0].ID != "s2" {
				t.Fatalf("fuzzy 'rnotes' → %+v", vis)
			}
			redraw(s, l)
			mustFind(t, s, fmt.Sprintf(" %d/3", len(vis)))
			x, y := mustFind(t, s, "write release notes")
			// exactly the matched characters are highlighted
			hl := ""
			for i, r := range "write release notes" {
				if fg(s, x+i, y) == dark.MatchHighlight {
					hl += string(r)
				}
			}
			if hl != "rnotes" {
				t.Errorf("highlighted %q, want the matched characters rnotes", hl)
			}
			// work dir matches too
			l.SetFilter("ann/docs")
			if vis := l.Visible(); len(vis) != 1 || vis[0].ID != "s2" {
				t.Fatalf("work dir filter → %+v", vis)
			}
			send(l, key(tcell.KeyEsc, 0, 0))
			if l.Filter() != "" || len(l.Visible()) != 3 {
				t.Fatal("Esc did not clear the filter")
			}
		})
	}
}

func TestSessionListFullTextAsync(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetTheme(dark)
	var asked []string
	l.SetSearchFunc(func(q string) { asked = append(asked, q) })
	var previews []PreviewKey
	l.SetPreviewFunc(func(k PreviewKey) { previews = append(previews, k) })
	l.SetSessions(sampleSessions())
	if len(previews) != 1 || previews[0] != (PreviewKey{SessionID: "s1"}) {
		t.Fatalf("preview asked for %v", previews)
	}
	l.SetPreview(PreviewKey{SessionID: "s1"}, Preview{Focus: -1, Items: []Item{
		{Kind: ItemUser, Text: "hello"}, {Kind: ItemAssistant, Text: "assistant: **hi** \x1b[2J"}}})
	s := draw(t, l, 200, 60)
	mustFind(t, s, "assistant: hi")
	assertNoControls(t, s)

	send(l, runes("/deadlock")...)
	if !l.FullText() || len(asked) == 0 || asked[len(asked)-1] != "deadlock" {
		t.Fatalf("search asked %v", asked)
	}
	redraw(s, l)
	mustFind(t, s, "search:")
	mustFind(t, s, "Searching…")
	// a stale answer is ignored
	l.SetHits("deadl", []SearchHit{{SessionID: "s2", Title: "stale"}}, false)
	if len(l.Hits()) != 0 {
		t.Fatal("stale hits accepted")
	}
	l.SetHits("deadlock", []SearchHit{{SessionID: "s1", Title: "fix the parser bug", Role: "assistant", Snippet: "found a «Deadlock» in the pool", Gen: 2, Seq: 7}}, false)
	redraw(s, l)
	wantFg(t, s, "Deadlock in the pool", dark.MatchHighlight)
	if want := (PreviewKey{SessionID: "s1", Hit: true, Gen: 2, Seq: 7}); previews[len(previews)-1] != want {
		t.Fatalf("preview asked for %v, want the hit's record %v", previews[len(previews)-1], want)
	}
	var resumed string
	l.SetOnResume(func(id string) { resumed = id })
	send(l, key(tcell.KeyEnter, 0, 0))
	if resumed != "s1" {
		t.Fatalf("resumed %q", resumed)
	}
}

func TestSessionListActions(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetSessions(sampleSessions())
	var got []string
	l.SetOnRename(func(r SessionRow) { got = append(got, "rename "+r.ID) })
	l.SetOnDelete(func(r SessionRow) { got = append(got, "delete "+r.ID) })
	l.SetOnFork(func(r SessionRow) { got = append(got, "fork "+r.ID) })
	l.SetOnExport(func(r SessionRow) { got = append(got, "export "+r.ID) })
	l.SetOnResume(func(id string) { got = append(got, "resume "+id) })
	send(l, key(tcell.KeyDown, 0, 0))
	send(l, key(tcell.KeyCtrlR, 0, tcell.ModCtrl), key(tcell.KeyCtrlD, 0, tcell.ModCtrl), key(tcell.KeyCtrlF, 0, tcell.ModCtrl),
		key(tcell.KeyCtrlE, 0, tcell.ModCtrl), key(tcell.KeyEnter, 0, 0))
	if fmt.Sprint(got) != "[rename s2 delete s2 fork s2 export s2 resume s2]" {
		t.Fatalf("actions %v", got)
	}
	// refreshing keeps the highlighted session
	rows := sampleSessions()
	rows[0], rows[1] = rows[1], rows[0]
	l.SetSessions(rows)
	if r, _ := l.SelectedSession(); r.ID != "s2" {
		t.Fatalf("selection after refresh %q", r.ID)
	}
}

// TestSessionListFilter10k: typing a query over 10,000 sessions narrows the
// list to matches. Its speed (the 16 ms bar) is BenchmarkSessionListFilter's
// job, not a timed test's.
func TestSessionListFilter10k(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetSessions(manySessions(10000))
	for _, q := range []string{"r", "re", "ref", "refa", "refac", "refact"} {
		l.SetFilter(q)
	}
	vis := l.Visible()
	if len(vis) == 0 || len(vis) == 10000 {
		t.Fatalf("%d of 10000 sessions match \"refact\"", len(vis))
	}
	if !strings.HasPrefix(vis[0].Title, "refactor") {
		t.Fatalf("best match for \"refact\" is %q", vis[0].Title)
	}
}

func manySessions(n int) []SessionRow {
	words := []string{"refactor", "parser", "release", "deadlock", "tests", "docs", "timeline", "store", "migrate", "theme"}
	rows := make([]SessionRow, n)
	now := time.Now()
	for i := range rows {
		rows[i] = SessionRow{
			ID:       fmt.Sprintf("s%05d", i),
			Title:    fmt.Sprintf("%s the %s module, take %d", words[i%10], words[(i/10)%10], i),
			WorkDir:  fmt.Sprintf("/home/user/src/project-%d/%s", i%97, words[(i/7)%10]),
			Updated:  now.Add(-time.Duration(i) * time.Minute),
			Messages: i % 300, Tokens: i * 37, Generations: 1 + i%5,
		}
	}
	return rows
}

// A preview that arrives while a full-text search has no hits yet (the
// query typed before the preview came back) is kept, and the hits ask for
// their own preview (the hit's record), which is shown; the late one once
// left "…" for good.
func TestSessionListPreviewArrivingBeforeTheHitsIsShown(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetTheme(dark)
	l.SetSearchFunc(func(string) {})
	var asked []PreviewKey
	l.SetPreviewFunc(func(k PreviewKey) { asked = append(asked, k) })
	l.SetSessions(sampleSessions()) // s1 selected: its preview is asked for
	send(l, runes("/deadlock")...)
	l.SetPreview(PreviewKey{SessionID: "s1"}, Preview{Focus: -1, Items: []Item{{Kind: ItemAssistant, Text: "the pool holds its lock"}}})
	l.SetHits("deadlock", []SearchHit{{SessionID: "s1", Title: "fix the parser bug", Role: "assistant", Snippet: "found a «deadlock» in the pool", Seq: 3}}, false)
	hit := PreviewKey{SessionID: "s1", Hit: true, Seq: 3}
	if len(asked) != 2 || asked[1] != hit {
		t.Fatalf("previews asked for %v, want the session's and then the hit's %v", asked, hit)
	}
	l.SetPreview(hit, Preview{Focus: 0, Items: []Item{{Kind: ItemAssistant, Text: "found a deadlock in the pool"}}})
	s := draw(t, l, 200, 60)
	mustFind(t, s, "● found a deadlock in the pool")
}

// A list that holds the newest sessions only says so in its count and,
// while the rest load, in its empty message; typing a filter and clearing
// it tells the owner, which loads every session while the filter is typed.
func TestSessionListPartialCountAndFilterCallback(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetTheme(dark)
	var calls []bool
	l.SetOnFilter(func(on bool) { calls = append(calls, on) })
	l.SetMore(true)
	l.SetSessions(sampleSessions())
	s := draw(t, l, 100, 20)
	send(l, runes("zzz")...)
	redraw(s, l)
	mustFind(t, s, " 0/3+")
	mustFind(t, s, "No match in the newest 3 sessions · searching them all…")
	send(l, key(tcell.KeyEsc, 0, 0))
	if fmt.Sprint(calls) != "[true false]" {
		t.Fatalf("onFilter calls %v, want [true false] (started, cleared)", calls)
	}
	// A full-text query is not a filter of the list.
	send(l, runes("/word")...)
	if len(calls) != 2 {
		t.Fatalf("a full-text query called onFilter: %v", calls)
	}
}

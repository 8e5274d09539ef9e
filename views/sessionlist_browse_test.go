package views

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
)

// Sessions the filter scores the same are listed newest first, however
// the filter was typed: narrowing "g" to "glob" used to keep "g"'s ranking
// for the ties (ages 22d, 17d, 21d…).
func TestSessionListFilterTiesNewestFirst(t *testing.T) {
	t.Parallel()
	now := time.Now()
	l := NewSessionList()
	l.SetTheme(dark)
	l.now = func() time.Time { return now }
	l.SetSessions([]SessionRow{
		{ID: "new", Title: "glob go", WorkDir: "/w", Updated: now.Add(-time.Hour)},
		{ID: "old", Title: "glob lo", WorkDir: "/w", Updated: now.Add(-48 * time.Hour)},
	})
	send(l, runes("g")...)
	send(l, runes("lob")...)
	s := draw(t, l, 80, 24)
	_, yNew := mustFind(t, s, "glob go")
	_, yOld := mustFind(t, s, "glob lo")
	if yNew > yOld {
		t.Errorf("equal matches listed oldest first:\n%s", screenText(s))
	}
	if v := l.Visible(); len(v) != 2 || v[0].ID != "new" {
		t.Errorf("visible %+v, want new then old", v)
	}
}

// Ctrl-W deletes the word before the cursor in the filter, as it does in
// the input line.
func TestSessionListCtrlWDeletesAWord(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetTheme(dark)
	l.SetSessions(sampleSessions())
	send(l, runes("/build cache")...)
	send(l, key(tcell.KeyCtrlW, 0, tcell.ModCtrl))
	if got := l.Filter(); got != "/build " {
		t.Fatalf("filter after Ctrl-W is %q, want %q", got, "/build ")
	}
	send(l, key(tcell.KeyCtrlW, 0, tcell.ModCtrl))
	if got := l.Filter(); got != "" {
		t.Fatalf("filter after a second Ctrl-W is %q, want it empty", got)
	}
	s := draw(t, l, 80, 24)
	mustFind(t, s, "filter: type to filter")
}

// Typing on after a query keeps its hits on screen until the new ones
// arrive, with "searching…" where the count was: every key used to blank
// the list to "Searching…" for the length of a query.
func TestSessionListKeepsHitsWhileSearching(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetTheme(dark)
	l.SetSessions(sampleSessions())
	var asked []string
	l.SetSearchFunc(func(q string) { asked = append(asked, q) })
	send(l, runes("/build")...)
	l.SetHits("build", []SearchHit{{SessionID: "s1", Title: "fix the parser bug", Role: "assistant", Snippet: "the «build» failed"}}, true)
	send(l, runes("s")...)
	if asked[len(asked)-1] != "builds" {
		t.Fatalf("asked %q", asked)
	}
	s := draw(t, l, 80, 24)
	if _, _, ok := find(s, "Searching…"); ok {
		t.Errorf("the list was blanked while the next query runs:\n%s", screenText(s))
	}
	mustFind(t, s, "the build failed")
	if r := row(s, 1); !strings.Contains(r, "searching…") || strings.Contains(r, "hit") {
		t.Errorf("filter row %q: want a searching… marker, not the old count", r)
	}
	l.SetHits("builds", []SearchHit{{SessionID: "s2", Title: "write release notes", Role: "user", Snippet: "two «builds»"}}, false)
	redraw(s, l)
	mustFind(t, s, "two builds")
	if _, _, ok := find(s, "the build failed"); ok {
		t.Errorf("the old hits stayed after the new ones came:\n%s", screenText(s))
	}
	if r := row(s, 1); !strings.Contains(r, "1 hit") {
		t.Errorf("filter row %q: want the new count", r)
	}
}

// "/" alone after Ctrl-U cleared a query shows no count: it showed the
// cleared query's "200+ hits" next to "Type words to search all messages."
func TestSessionListSlashAloneHasNoCount(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetTheme(dark)
	l.SetSessions(sampleSessions())
	l.SetSearchFunc(func(string) {})
	send(l, runes("/build")...)
	l.SetHits("build", []SearchHit{{SessionID: "s1", Title: "fix the parser bug", Role: "assistant", Snippet: "the «build» failed"}}, true)
	send(l, key(tcell.KeyCtrlU, 0, tcell.ModCtrl)) // keeps the "/"
	s := draw(t, l, 80, 24)
	mustFind(t, s, "Type words to search all messages.")
	if r := row(s, 1); strings.Contains(r, "hit") {
		t.Errorf("filter row %q shows a count for no query", r)
	}
	if _, _, ok := find(s, "the build failed"); ok {
		t.Errorf("the cleared query's hits are shown:\n%s", screenText(s))
	}
}

// The marks after titles line up in one column whether the title is cut
// or not: "⇣ kimi" followed a short title directly, one column left of
// where it stood after a cut one.
func TestSessionListMarksAligned(t *testing.T) {
	t.Parallel()
	now := time.Now()
	for _, sz := range []struct{ w, h int }{{80, 24}, {160, 48}} {
		l := NewSessionList()
		l.SetTheme(dark)
		l.SetSessions([]SessionRow{
			{ID: "a", Title: "short", WorkDir: "/w", Updated: now, Imported: true},
			{ID: "b", Title: strings.Repeat("a long imported title ", 6), WorkDir: "/w", Updated: now, Imported: true},
		})
		s := draw(t, l, sz.w, sz.h)
		_, y1 := mustFind(t, s, "short")
		x1, x2 := slices.Index([]rune(row(s, y1)), '⇣'), slices.Index([]rune(row(s, y1+1)), '⇣')
		if x1 < 0 || x1 != x2 {
			t.Errorf("%dx%d: the ⇣ marks are not in one column:\n%s\n%s", sz.w, sz.h, row(s, y1), row(s, y1+1))
		}
	}
}

// A checkpoint with no tokens counted yet (row 0, before the first answer)
// shows its time in the time column, not in the tokens column.
func TestTimelineTimeColumnWithoutTokens(t *testing.T) {
	t.Parallel()
	at := time.Now().Add(-time.Minute)
	tl := NewTimeline()
	tl.SetTheme(dark)
	tl.SetModel(TimelineModel{Checkpoints: []CheckpointRow{
		{ID: 0, Label: "first prompt", Time: at},
		{ID: 1, Label: "second prompt", Time: at, Tokens: 1200},
	}, Position: -1})
	s := draw(t, tl, 60, 10)
	ts := at.Format("15:04")
	_, y0 := mustFind(t, s, "first prompt")
	col := func(y int) int { r := row(s, y); return utf8.RuneCountInString(r[:max(0, strings.Index(r, ts))]) }
	x0, x1 := col(y0), col(y0+1)
	if x0 < 0 || x0 != x1 {
		t.Errorf("the times are not in one column:\n%s\n%s", row(s, y0), row(s, y0+1))
	}
}

// A hit shared with other sessions (its source, forks) says so as `rewind
// search` does: "(+1 session)", "(+2 sessions)", not "+1 fork(s)".
func TestSessionListHitNamesItsForks(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetTheme(dark)
	l.SetSearchFunc(func(string) {})
	send(l, runes("/build")...)
	l.SetHits("build", []SearchHit{
		{SessionID: "s1", Title: "one", Role: "user", Snippet: "the «build»", AlsoIn: 1},
		{SessionID: "s2", Title: "two", Role: "user", Snippet: "a «build»", AlsoIn: 2},
	}, false)
	s := draw(t, l, 160, 48)
	mustFind(t, s, "one (+1 session) · user: the build")
	mustFind(t, s, "two (+2 sessions) · user: a build")
}

// Sessions listed again during a full-text search (Ctrl-T: fewer of them)
// keep the hits; the list indexed its fuzzy matches of the longer list.
func TestSessionListFewerSessionsDuringASearch(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetTheme(dark)
	l.SetSessions(sampleSessions())
	l.SetSearchFunc(func(string) {})
	send(l, runes("/build")...)
	l.SetHits("build", []SearchHit{{SessionID: "s1", Title: "fix the parser bug", Role: "user", Snippet: "the «build»"}}, false)
	l.SetSessions(sampleSessions()[:1])
	mustFind(t, draw(t, l, 80, 24), "the build")
}

// The "this dir" header names the dir at any width, elided in the middle,
// and keeps the key that shows all while it can.
func TestThisDirHeaderFits(t *testing.T) {
	t.Parallel()
	dir := "/home/dev/project47"
	for w, want := range map[int]string{
		60: "TITLE · in /home/dev/project47 (Ctrl-T: all)",
		36: "in /home/dev/project47 (Ctrl-T: all)",
		28: "in /home…/project47 (Ctrl-T)",
		20: "in /home/…/project47",
	} {
		got := thisDirHeader(dir, w)
		if got != want {
			t.Errorf("thisDirHeader(%q, %d) = %q, want %q", dir, w, got, want)
		}
		if strWidth(got) > w {
			t.Errorf("thisDirHeader(%q, %d) = %q: wider than %d", dir, w, got, w)
		}
	}
}

// A title the filter equals, or starts with, ranks before fuzzy matches:
// "scale-50" listed SCALE-508, 506, 501 and 500 (newer) before SCALE-50.
func TestSessionListFilterExactAndPrefixFirst(t *testing.T) {
	t.Parallel()
	now := time.Now()
	l := NewSessionList()
	l.SetTheme(dark)
	l.now = func() time.Time { return now }
	var rows []SessionRow
	for i, n := range []string{"SCALE-508", "SCALE-506", "a scale-50 rerun", "SCALE-501", "SCALE-500", "SCALE-50", "sc ale-5 0"} {
		dir := "/home/dev/project7"
		if n == "SCALE-50" {
			dir = "/home/dev/project42" // one more unmatched letter: fuzzy scored it below SCALE-508
		}
		rows = append(rows, SessionRow{ID: n, Title: n, WorkDir: dir, Updated: now.Add(-time.Duration(i) * time.Hour)})
	}
	l.SetSessions(rows)
	send(l, runes("scale-50")...)
	var got []string
	for _, r := range l.Visible() {
		got = append(got, r.ID)
	}
	want := []string{"SCALE-50", "SCALE-508", "SCALE-506", "SCALE-501", "SCALE-500", "a scale-50 rerun", "sc ale-5 0"}
	if !slices.Equal(got, want) {
		t.Fatalf("filter \"scale-50\" lists %q, want %q (exact, then prefixes newest first, then the word inside, then fuzzy)", got, want)
	}
	s := draw(t, l, 80, 24)
	_, yExact := mustFind(t, s, "SCALE-50 ")
	_, y508 := mustFind(t, s, "SCALE-508")
	if yExact > y508 {
		t.Errorf("SCALE-50 drawn below SCALE-508:\n%s", screenText(s))
	}
}

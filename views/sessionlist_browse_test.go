package views

import (
	"testing"
	"time"

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

package views

import (
	"testing"
	"time"
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

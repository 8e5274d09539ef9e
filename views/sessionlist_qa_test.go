package views

import (
	"strings"
	"testing"
	"time"
)

// A session older than a month still fits the AGE column: its GENS count is
// not pushed out of the row (the age was once a 10-character date in a
// 5-character column).
func TestSessionListOldSessionKeepsItsColumns(t *testing.T) {
	t.Parallel()
	now := time.Now()
	l := NewSessionList()
	l.SetTheme(dark)
	l.now = func() time.Time { return now }
	l.SetSessions([]SessionRow{
		{ID: "a", Title: "last autumn", WorkDir: "/w", Updated: now.Add(-40 * 24 * time.Hour), Messages: 600, Tokens: 122200, Generations: 7},
		{ID: "b", Title: "years ago", WorkDir: "/w", Updated: now.Add(-800 * 24 * time.Hour), Messages: 12, Tokens: 900, Generations: 3},
	})
	s := draw(t, l, 100, 10)
	_, y := mustFind(t, s, "last autumn")
	if row := row(s, y); !strings.HasSuffix(strings.TrimRight(row, " │"), "1mo   600 122.2k    7") {
		t.Errorf("row %q: want the age as 1mo and GENS 7 at the end", row)
	}
	_, y = mustFind(t, s, "years ago")
	if row := row(s, y); !strings.HasSuffix(strings.TrimRight(row, " │"), "2y    12    900    3") {
		t.Errorf("row %q: want the age as 2y and GENS 3 at the end", row)
	}
	for _, d := range []time.Duration{31, 200, 364, 365, 4000} {
		if a := FormatAge(now.Add(-d*24*time.Hour), now); strWidth(a) > 5 {
			t.Errorf("FormatAge(%d days) = %q, wider than the 5-cell AGE column", d, a)
		}
	}
}

// The open session is not marked "no answer" while its first prompt is
// still running (in the writer) or being watched: only a past run that
// never got an answer is.
func TestSessionListCurrentSessionIsNotMarkedUnanswered(t *testing.T) {
	t.Parallel()
	now := time.Now()
	l := NewSessionList()
	l.SetTheme(dark)
	l.SetSessions([]SessionRow{
		{ID: "a", Title: "running now", WorkDir: "/w", Updated: now, Messages: 1, Unanswered: true, Current: true},
		{ID: "b", Title: "failed run", WorkDir: "/w", Updated: now, Messages: 1, Unanswered: true},
	})
	s := draw(t, l, 100, 10)
	_, y := mustFind(t, s, "running now")
	if row := row(s, y); strings.Contains(row, "no answer") {
		t.Errorf("current session row %q says no answer", row)
	}
	_, y = mustFind(t, s, "failed run")
	if row := row(s, y); !strings.Contains(row, " ✗ no answer") {
		t.Errorf("failed run row %q is not marked no answer", row)
	}
}

// In the narrow Sessions tab (80 columns) the filter hint loses whole parts,
// never half a word ("/ sea").
func TestSessionListFilterHintFitsNarrowPane(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetTheme(dark)
	l.SetSessions([]SessionRow{{ID: "a", Title: "one", WorkDir: "/w", Updated: time.Now()}})
	s := draw(t, l, 32, 8)
	_, y := mustFind(t, s, "filter:")
	got := strings.TrimRight(row(s, y), " │")
	if !strings.HasSuffix(got, "type to filter …") {
		t.Errorf("filter hint row %q: want whole parts ending in \"type to filter …\"", got)
	}
}

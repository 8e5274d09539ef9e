package views

import (
	"strings"
	"testing"
	"time"
)

func TestElidePathKeepsLastElement(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		w    int
		want string
	}{
		{"/x/proj1", 20, "/x/proj1"},
		{"/home/dev/work/clients/acme/proj1", 20, "/home/dev/wor…/proj1"},
		{"/home/dev/work/clients/acme/proj2", 20, "/home/dev/wor…/proj2"},
		{"/home/dev/a-very-long-project-name", 12, "…/a-very-lo…"},
		{"relative", 4, "rel…"},
	} {
		if got := ElidePath(c.in, c.w); got != c.want || strWidth(got) > c.w {
			t.Errorf("ElidePath(%q, %d) = %q, want %q", c.in, c.w, got, c.want)
		}
	}
}

// The list has column headers, marks the current session, imported and
// unanswered ones, and elides work dirs in the middle.
func TestSessionListHeadersAndMarks(t *testing.T) {
	t.Parallel()
	now := time.Now()
	l := NewSessionList()
	l.SetTheme(dark)
	l.SetScope("all", "")
	l.SetSessions([]SessionRow{
		{ID: "a", Title: "open one", WorkDir: "/home/dev/clients/acme/services/proj1", Updated: now, Current: true},
		{ID: "b", Title: "from kimi", WorkDir: "/home/dev/clients/acme/services/proj2", Updated: now, Imported: true},
		{ID: "c", Title: "failed run", WorkDir: "/w", Updated: now, Messages: 1, Unanswered: true},
	})
	s := draw(t, l, 100, 20)
	mustFind(t, s, "TITLE · all (Ctrl-T)")
	mustFind(t, s, "WORK DIR")
	mustFind(t, s, "MSGS TOKENS GENS")
	x, y := mustFind(t, s, "open one")
	if str, _, _ := s.Get(x-1, y); str != "▶" {
		t.Errorf("current session marked %q, want ▶", str)
	}
	for title, mark := range map[string]string{"from kimi": "⇣ kimi", "failed run": "✗ no answer"} {
		_, y := mustFind(t, s, title)
		if r := row(s, y); !strings.Contains(r, title+" ") || !strings.Contains(r, " "+mark+" ") {
			t.Errorf("row %q: want %q marked %q", r, title, mark)
		}
	}
	mustFind(t, s, "…/proj1")
	mustFind(t, s, "…/proj2")
}

func TestSessionListEmptyThisDirSaysHowToSeeAll(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetTheme(dark)
	l.SetScope("this dir", "/home/dev/proj")
	l.SetSessions(nil)
	mustFind(t, draw(t, l, 100, 20), "No sessions in /home/dev/proj (Ctrl-T shows all).")
}

// A fork's long title is cut, but its ⑂ mark and checkpoint stay in view,
// so it never looks like its source (it read "mouse theme the focus
// colour (for…" at 160 columns).
func TestSessionListMarksForks(t *testing.T) {
	t.Parallel()
	now := time.Now()
	l := NewSessionList()
	l.SetTheme(dark)
	long := "mouse theme the focus colour for every pane and dialog"
	l.SetSessions([]SessionRow{
		{ID: "a", Title: long + " (fork of " + long + " @ checkpoint 187)", WorkDir: "/w", Updated: now, ForkOf: "src", ForkCheckpoint: 187},
		{ID: "b", Title: long, WorkDir: "/w", Updated: now},
	})
	s := draw(t, l, 100, 20)
	mustFind(t, s, "⑂ fork @187")
}

// TestSessionListEmptyThisDirElidesALongPath: in a narrow list a long dir
// is elided in the middle, never broken across rows mid-word ("…/path/t",
// "o/a/project…").
func TestSessionListEmptyThisDirElidesALongPath(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetTheme(dark)
	l.SetScope("this dir", "/home/dev/a/very/long/path/to/a/project/with/many/levels/proj")
	l.SetSessions(nil)
	s := draw(t, l, 30, 20)
	mustFind(t, s, "…/proj")
	if _, _, ok := find(s, "levels/p"); ok {
		t.Errorf("the path is not elided:\n%s", screenText(s))
	}
	for y := range 20 {
		if r := strings.TrimSpace(strings.Trim(row(s, y), "│")); strings.HasPrefix(r, "o/") || strings.HasSuffix(r, "/t") {
			t.Errorf("row %d %q breaks the path", y, r)
		}
	}
	send(l, runes("/")...)
	mustFind(t, draw(t, l, 30, 20), "…/proj")
}

// A parent imported from another agent keeps its mark beside its
// children's fold: "▸ 1 ↳" took the place of "⇣ claude".
func TestImportedParentShowsBothMarks(t *testing.T) {
	t.Parallel()
	l := NewSessionList()
	l.SetTheme(dark)
	l.SetScope("all", "")
	l.SetSessions([]SessionRow{{ID: "p", Title: "from claude", WorkDir: "/w", Updated: time.Now(), Imported: true, Origin: "claude", Subagents: 1}})
	s := draw(t, l, 100, 10)
	_, y := mustFind(t, s, "from claude")
	if r := row(s, y); !strings.Contains(r, "⇣ claude ▸ 1 ↳") {
		t.Errorf("row %q: want both marks, \"⇣ claude ▸ 1 ↳\"", r)
	}
}

package views

import (
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

func mouse(p tview.Primitive, action tview.MouseAction, x, y int) tview.Primitive {
	var focused tview.Primitive
	h := p.MouseHandler()
	h(action, tcell.NewEventMouse(x, y, tcell.ButtonNone, 0), func(f tview.Primitive) { focused = f })
	return focused
}

func TestConversationMouse(t *testing.T) {
	t.Parallel()
	c := NewConversation()
	c.SetTheme(dark)
	c.SetItems(manyItems(200))
	s := draw(t, c, 80, 24)
	mouse(c, tview.MouseScrollUp, 10, 10)
	if c.Following() {
		t.Fatal("wheel up still follows")
	}
	for i := 0; i < 10; i++ {
		mouse(c, tview.MouseScrollUp, 10, 10)
	}
	redraw(s, c)
	if _, _, ok := find(s, "message 199"); ok {
		t.Fatal("wheel did not scroll")
	}
	for i := 0; i < 50; i++ {
		mouse(c, tview.MouseScrollDown, 10, 10)
	}
	if !c.Following() {
		t.Fatal("wheel down to the end does not follow again")
	}
	// click selects, second click on the same item toggles it
	c.SetItems([]Item{{Kind: ItemUser, Text: "q"}, {Kind: ItemReasoning, Text: "hidden thought"}, {Kind: ItemAssistant, Text: "a"}})
	redraw(s, c)
	_, y := mustFind(t, s, "Thinking")
	if f := mouse(c, tview.MouseLeftClick, 5, y); f != c {
		t.Fatal("click did not focus")
	}
	if c.Selected() != 1 {
		t.Fatalf("click selected %d", c.Selected())
	}
	mouse(c, tview.MouseLeftClick, 5, y)
	redraw(s, c)
	mustFind(t, s, "hidden thought")
}

func TestWorkspaceMouseFocus(t *testing.T) {
	t.Parallel()
	ws := newTestWorkspace()
	setFocus := focuser(ws)
	ws.FocusPane(PaneInput, setFocus)
	s := draw(t, ws, 200, 60)
	x, y := mustFind(t, s, "Timeline")
	h := ws.MouseHandler()
	h(tview.MouseLeftClick, tcell.NewEventMouse(x, y+2, tcell.Button1, 0), setFocus)
	if ws.Focused() != PaneTimeline {
		t.Fatalf("click focused %v", ws.Focused())
	}
	redraw(s, ws)
	mustFind(t, s, "▶ Timeline")
}

// TestListMouse: in the runs and session lists a click selects the row
// under it, a double click opens it, and the wheel moves the selection.
func TestListMouse(t *testing.T) {
	t.Parallel()
	runs := NewRunList()
	runs.SetTheme(dark)
	runs.SetRuns(runRows())
	var watched string
	runs.SetOnWatch(func(r RunRow) { watched = r.SessionID })
	s := draw(t, runs, 100, 10)
	x, y := mustFind(t, s, "flaky tests")
	if f := mouse(runs, tview.MouseLeftClick, x, y); f != runs {
		t.Fatal("a click did not focus the runs list")
	}
	if r, _ := runs.Selected(); r.SessionID != "b" || watched != "" {
		t.Fatalf("a click selected %q, watched %q; want b selected, nothing watched", r.SessionID, watched)
	}
	mouse(runs, tview.MouseScrollUp, x, y)
	if r, _ := runs.Selected(); r.SessionID != "a" {
		t.Fatalf("the wheel selected %q, want a", r.SessionID)
	}
	mouse(runs, tview.MouseLeftDoubleClick, x, y)
	if watched != "b" {
		t.Fatalf("a double click watched %q, want b", watched)
	}

	sessions := NewSessionList()
	sessions.SetTheme(dark)
	sessions.SetSessions([]SessionRow{{ID: "s1", Title: "zebra notes", WorkDir: "/w"}, {ID: "s2", Title: "parser rewrite", WorkDir: "/w"}})
	var resumed string
	sessions.SetOnResume(func(id string) { resumed = id })
	s = draw(t, sessions, 100, 12)
	x, y = mustFind(t, s, "parser rewrite")
	mouse(sessions, tview.MouseLeftDoubleClick, x, y)
	if r, _ := sessions.SelectedSession(); r.ID != "s2" || resumed != "s2" {
		t.Fatalf("a double click selected %q and resumed %q, want s2", r.ID, resumed)
	}
}

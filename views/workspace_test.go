package views

import (
	"fmt"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

// focuser mimics Application.SetFocus for tests without an app.
func focuser(ws *Workspace) func(tview.Primitive) {
	return func(p tview.Primitive) {
		for id := PaneID(0); id < paneCount; id++ {
			ws.Pane(id).Blur()
		}
		p.Focus(func(tview.Primitive) {})
	}
}

func newTestWorkspace() *Workspace {
	ws := NewWorkspace()
	ws.SetTheme(dark)
	ws.Conversation.SetItems(sampleItems())
	ws.Timeline.SetModel(sampleTimeline())
	ws.Sessions.SetSessions(sampleSessions())
	ws.ToolOutput.SetTool(ToolCallInfo{ID: "t1", Name: "Shell", Args: "go test ./..."})
	ws.ToolOutput.AppendOutput("ok  \tpkg\n")
	ws.Input.SetCommands([]SlashCommand{{Name: "/compact", Description: "summarise"}})
	ws.Status.SetStatus(Status{Model: "demo-model", Demo: true, Step: 2})
	return ws
}

func TestWorkspaceLayout(t *testing.T) {
	t.Parallel()
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}, {200, 60}, {60, 20}} {
		t.Run(fmt.Sprint(sz.w, "x", sz.h), func(t *testing.T) {
			ws := newTestWorkspace()
			setFocus := focuser(ws)
			ws.FocusPane(PaneInput, setFocus)
			s := draw(t, ws, sz.w, sz.h)
			// status bar on the last row, input just above
			if _, y := mustFind(t, s, "DEMO"); y != sz.h-1 {
				t.Errorf("status bar at row %d", y)
			}
			_, iy := mustFind(t, s, "Ask anything")
			if iy != sz.h-3 {
				t.Errorf("input text at row %d", iy)
			}
			// focused input: border in the focused colour, title marked
			wantFg(t, s, "▶ Input", dark.FocusedBorder)
			if fg(s, 0, iy-1) != dark.FocusedBorder {
				t.Errorf("focused border colour %v", fg(s, 0, iy-1))
			}
			x, y := mustFind(t, s, "Conversation")
			if fg(s, 0, y) != dark.Border || fg(s, x, y) == dark.FocusedBorder {
				t.Errorf("unfocused border colour %v", fg(s, 0, y))
			}
			mustFind(t, s, "model error: 500")
			if sz.w >= 70 && sz.h >= 40 {
				mustFind(t, s, "Tool output")
			} else if sz.w >= 70 {
				mustFind(t, s, "Tools  Timeline  Sessions")
			}
			if sz.w >= 120 && sz.h >= 40 {
				mustFind(t, s, "Timeline")
				mustFind(t, s, "Sessions")
				mustFind(t, s, "├─○ gen 2")
			}
			// Tab cycles: conversation, tool output, timeline, sessions, input
			// (a lone side pane shows tabs "Tools Timeline Sessions" instead of its title)
			order := []string{"▶ Conversation", "▶ Tool output", "▶ Timeline", "▶ Sessions", "▶ Input"}
			if sz.h < 40 {
				order = []string{"▶ Conversation", "▶Tools", "▶Timeline", "▶Sessions", "▶ Input"}
			}
			for _, want := range order {
				send2(ws, setFocus, key(tcell.KeyTab, 0, 0))
				redraw(s, ws)
				wantFg(t, s, want, dark.FocusedBorder)
			}
			send2(ws, setFocus, key(tcell.KeyBacktab, 0, 0))
			if ws.Focused() != PaneSessions {
				t.Fatalf("Shift-Tab focused %v", ws.Focused())
			}
			send2(ws, setFocus, key(tcell.KeyTab, 0, 0))
			// typing reaches the input; Tab completes a slash command
			send2(ws, setFocus, runes("/co")...)
			send2(ws, setFocus, key(tcell.KeyTab, 0, 0))
			if ws.Input.Text() != "/compact" || ws.Focused() != PaneInput {
				t.Fatalf("Tab completion: %q, focus %v", ws.Input.Text(), ws.Focused())
			}
			assertNoControls(t, s)
		})
	}
}

func send2(p tview.Primitive, setFocus func(tview.Primitive), evs ...*tcell.EventKey) {
	h := p.InputHandler()
	for _, ev := range evs {
		h(ev, setFocus)
	}
}

func TestWorkspaceOnApplication(t *testing.T) {
	t.Parallel()
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	s.SetSize(80, 24)
	app := tview.NewApplication().SetScreen(s).EnableMouse(true)
	ws := newTestWorkspace()
	got := make(chan string, 1)
	ws.Input.SetOnSubmit(func(text string) { got <- text })
	app.SetRoot(ws, true)
	app.SetFocus(ws.Input)
	done := make(chan error, 1)
	go func() { done <- app.Run() }()
	s.InjectKey(tcell.KeyTab, 0, tcell.ModNone)
	s.InjectKey(tcell.KeyBacktab, 0, tcell.ModNone)
	for _, r := range "hello" {
		s.InjectKey(tcell.KeyRune, r, tcell.ModNone)
	}
	s.InjectKey(tcell.KeyEnter, 0, tcell.ModNone)
	text := <-got
	app.Stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if text != "hello" {
		t.Fatalf("submitted %q", text)
	}
}

package views

import (
	"fmt"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/themes"
)

// TestPaneFrameDrawsAsTviewsBox: a pane's frame (its background, border
// and title, drawn by pane.draw on a FrameScreen) is cell for cell what
// tview's Box.DrawForSubclass draws with the same settings, focused or
// not, its title whole or cut, down to boxes too small for a border or a
// title.
func TestPaneFrameDrawsAsTviewsBox(t *testing.T) {
	th := themes.Default()
	for _, c := range []struct {
		title   string
		w, h    int
		focused bool
		border  bool
	}{
		{"Conversation", 60, 12, false, true},
		{"Conversation", 60, 12, true, true},
		{"Sessions · 12 of 40 · Enter open · f fork · e export", 30, 6, true, true},
		{"Averyveryverylongtitlewithoutparts", 14, 4, false, true},
		{"Conversation · /tmp/[red]x[::b]/work", 50, 4, true, true},
		{"Conversation · /tmp/会話/work", 50, 4, false, true},
		{"Tool output", 15, 4, false, true},
		{"Tool output", 16, 4, true, true},
		{"Timeline", 5, 3, true, true},
		{"Timeline", 4, 3, false, true},
		{"Timeline", 3, 3, false, true},
		{"Timeline", 1, 5, false, true},
		{"Input", 20, 3, false, false},
		{"", 10, 4, false, true},
	} {
		t.Run(fmt.Sprintf("%q %dx%d focused=%v border=%v", c.title, c.w, c.h, c.focused, c.border), func(t *testing.T) {
			draw := func(viaTview bool) []tcell.SimCell {
				sim := tcell.NewSimulationScreen("UTF-8")
				if err := sim.Init(); err != nil {
					t.Fatal(err)
				}
				defer sim.Fini()
				sim.SetSize(c.w+4, c.h+4)
				f, err := NewFrameScreen(sim)
				if err != nil {
					t.Fatal(err)
				}
				p := newPane(c.title)
				p.setTheme(th)
				p.ShowBorder(c.border)
				p.SetRect(2, 1, c.w, c.h)
				if c.focused {
					p.Focus(nil)
				}
				f.Clear()
				p.frame(f, p.Box)
				if viaTview { // the box as frame set it up, drawn by tview, as frame drew it before
					f.Clear()
					p.Box.DrawForSubclass(f, p.Box)
				}
				f.Show()
				cells, _, _ := sim.GetContents()
				return cells
			}
			want, got := draw(true), draw(false)
			for i := range want {
				w, g := want[i], got[i]
				if string(w.Runes) != string(g.Runes) || w.Style != g.Style {
					t.Fatalf("cell %d,%d: pane drew %q in %v, tview's box %q in %v", i%(c.w+4), i/(c.w+4), string(g.Runes), g.Style, string(w.Runes), w.Style)
				}
			}
		})
	}
}

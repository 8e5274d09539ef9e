package views

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/themes"
)

var sizes = []struct{ w, h int }{{80, 24}, {200, 60}}

// draw renders p full-screen on a fresh simulation screen.
func draw(t testing.TB, p tview.Primitive, w, h int) tcell.SimulationScreen {
	t.Helper()
	s := tcell.NewSimulationScreen("UTF-8")
	if err := s.Init(); err != nil {
		t.Fatal(err)
	}
	s.SetSize(w, h)
	p.SetRect(0, 0, w, h)
	p.Draw(s)
	s.Show()
	return s
}

func redraw(s tcell.SimulationScreen, p tview.Primitive) {
	s.Clear()
	p.Draw(s)
	s.Show()
}

// row returns the text of screen row y (wide runes once).
func row(s tcell.SimulationScreen, y int) string {
	cells, w, _ := s.GetContents()
	var b strings.Builder
	for x := 0; x < w; x++ {
		c := cells[y*w+x]
		if len(c.Runes) == 0 {
			continue
		}
		b.WriteString(string(c.Runes))
	}
	return b.String()
}

func screenText(s tcell.SimulationScreen) string {
	_, _, h := s.GetContents()
	var rows []string
	for y := 0; y < h; y++ {
		rows = append(rows, row(s, y))
	}
	return strings.Join(rows, "\n")
}

// find returns the position of the first cell where text starts.
func find(s tcell.SimulationScreen, text string) (int, int, bool) {
	cells, w, h := s.GetContents()
	want := []rune(text)
	for y := 0; y < h; y++ {
		for x := 0; x+len(want) <= w; x++ {
			ok := true
			for i, r := range want {
				c := cells[y*w+x+i]
				if len(c.Runes) == 0 || c.Runes[0] != r {
					ok = false
					break
				}
			}
			if ok {
				return x, y, true
			}
		}
	}
	return 0, 0, false
}

func mustFind(t testing.TB, s tcell.SimulationScreen, text string) (int, int) {
	t.Helper()
	x, y, ok := find(s, text)
	if !ok {
		t.Fatalf("%q not on screen:\n%s", text, screenText(s))
	}
	return x, y
}

func fg(s tcell.SimulationScreen, x, y int) tcell.Color {
	cells, w, _ := s.GetContents()
	f, _, _ := cells[y*w+x].Style.Decompose()
	return f
}

func bg(s tcell.SimulationScreen, x, y int) tcell.Color {
	cells, w, _ := s.GetContents()
	_, b, _ := cells[y*w+x].Style.Decompose()
	return b
}

func key(k tcell.Key, r rune, mod tcell.ModMask) *tcell.EventKey {
	return tcell.NewEventKey(k, r, mod)
}

func send(p tview.Primitive, evs ...*tcell.EventKey) {
	h := p.InputHandler()
	for _, ev := range evs {
		h(ev, func(tview.Primitive) {})
	}
}

func runes(s string) []*tcell.EventKey {
	var out []*tcell.EventKey
	for _, r := range s {
		out = append(out, key(tcell.KeyRune, r, 0))
	}
	return out
}

var dark = themes.Default()

// assertNoControls fails if any cell holds an escape or control rune.
func assertNoControls(t testing.TB, s tcell.SimulationScreen) {
	t.Helper()
	cells, _, _ := s.GetContents()
	for i, c := range cells {
		for _, r := range c.Runes {
			if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
				t.Fatalf("cell %d holds control rune %U", i, r)
			}
		}
	}
}

// wantFg reports an error unless text is on screen with its first cell
// drawn in the foreground colour want.
func wantFg(t testing.TB, s tcell.SimulationScreen, text string, want tcell.Color) {
	t.Helper()
	x, y := mustFind(t, s, text)
	if got := fg(s, x, y); got != want {
		t.Errorf("%q drawn in %v, want %v", text, got, want)
	}
}

// wantBg is wantFg for the background colour.
func wantBg(t testing.TB, s tcell.SimulationScreen, text string, want tcell.Color) {
	t.Helper()
	x, y := mustFind(t, s, text)
	if got := bg(s, x, y); got != want {
		t.Errorf("%q on background %v, want %v", text, got, want)
	}
}

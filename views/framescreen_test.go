package views

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// dirtyScreen counts the cells each Show hands the terminal (tcell sends
// the dirty cells of its buffer).
type dirtyScreen struct {
	tcell.SimulationScreen
	last, frames, repaints int
}

func (d *dirtyScreen) Show() {
	cb := d.SimulationScreen.(interface{ GetCells() *tcell.CellBuffer }).GetCells()
	w, h := d.Size()
	n := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if cb.Dirty(x, y) {
				n++
			}
		}
	}
	d.last = n
	d.frames++
	if n > w*h/4 {
		d.repaints++
	}
	d.SimulationScreen.Show()
}

func newDirtyScreen(t *testing.T, w, h int) (*dirtyScreen, *FrameScreen) {
	t.Helper()
	sim := tcell.NewSimulationScreen("UTF-8")
	d := &dirtyScreen{SimulationScreen: sim}
	f, err := NewFrameScreen(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Init(); err != nil {
		t.Fatal(err)
	}
	f.SetSize(w, h)
	return d, f
}

// frame draws p as tview does: clear, draw, show.
func frame(s tcell.Screen, p interface{ Draw(tcell.Screen) }) {
	s.Clear()
	p.Draw(s)
	s.Show()
}

// TestFrameScreenSendsOnlyTheChangedCells: tview clears before each frame
// and views draw over their backgrounds; the terminal still gets only the
// cells whose final content changed (tcell alone resent every non-blank
// cell of every frame).
func TestFrameScreenSendsOnlyTheChangedCells(t *testing.T) {
	t.Parallel()
	d, f := newDirtyScreen(t, 80, 24)
	c := NewConversation()
	c.SetRect(0, 0, 80, 24)
	c.SetItems(sampleItems())
	frame(f, c)
	if d.last < 500 {
		t.Fatalf("the first frame sent %d cells; want the whole screen", d.last)
	}
	frame(f, c)
	if d.last != 0 {
		t.Fatalf("an unchanged frame sent %d cells", d.last)
	}
	c.AppendDelta("Done.")
	frame(f, c)
	// "● Done." on the new last rows (the gap, the gutter), the selection
	// mark moving to it
	if d.last == 0 || d.last > 40 {
		t.Fatalf("a frame adding one word sent %d cells", d.last)
	}
	rows := strings.Split(screenText(d), "\n")
	if !strings.Contains(strings.Join(rows, "\n"), "Done.") {
		t.Fatalf("the word is not on screen:\n%s", screenText(d))
	}
}

// TestStreamedAnswerKeepsTheViewStill: while an answer streams in, the
// view following it stays still and moves a page when the text reaches the
// bottom, so a frame sends the new words, not the pane shifted by a row;
// the newest word is always on screen.
func TestStreamedAnswerKeepsTheViewStill(t *testing.T) {
	t.Parallel()
	const w, h = 80, 24
	d, f := newDirtyScreen(t, w, h)
	c := NewConversation()
	c.SetRect(0, 0, w, h)
	c.SetItems(sampleItems())
	frame(f, c)
	words := 0
	for i := 0; i < 600; i++ {
		word := "w" + strings.Repeat("x", i%7)
		if i%40 == 39 {
			word += "\n\n"
		} else {
			word += " "
		}
		c.AppendDelta(word)
		words++
		frame(f, c)
		if i%50 == 0 {
			marker := "END" + string(rune('a'+i/50))
			c.AppendDelta(marker + " ")
			frame(f, c)
			if _, _, ok := find(d, marker); !ok {
				t.Fatalf("after %d words the newest word is not on screen:\n%s", i, screenText(d))
			}
		}
	}
	c.Settle()
	frame(f, c)
	if got := strings.TrimSpace(row(d, h-2)); got == "" {
		t.Fatalf("after Settle the last row is blank: the answer's end should be at the bottom:\n%s", screenText(d))
	}
	rows := len(c.lines(len(c.items) - 1))
	// a page move every three quarters of the rows, at most
	if most := rows/(h*3/4-2) + 3; d.repaints > most { // and the settle
		t.Fatalf("%d of %d frames repainted the pane (the answer is %d rows; want at most %d)", d.repaints, d.frames, rows, most)
	}
}

// sizeCounter counts the calls asking the screen under for its size.
type sizeCounter struct {
	tcell.SimulationScreen
	sizes int
}

func (s *sizeCounter) Size() (int, int) {
	s.sizes++
	return s.SimulationScreen.Size()
}

// TestFrameScreenCellsCostNoSizeOrAllocation: a frame sets every cell two
// or three times (tview's clear, the panes' backgrounds, the text), so a
// cell must be cheap: the frame's size is taken once per frame, not per
// cell from the screen under (behind its lock), and an ASCII cell
// allocates nothing.
func TestFrameScreenCellsCostNoSizeOrAllocation(t *testing.T) {
	// not parallel: AllocsPerRun
	sim := &sizeCounter{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}
	f, err := NewFrameScreen(sim)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Init(); err != nil {
		t.Fatal(err)
	}
	f.SetSize(80, 24)
	c := NewConversation()
	c.SetRect(0, 0, 80, 24)
	c.SetItems(sampleItems())
	frame(f, c)
	sim.sizes = 0
	frame(f, c)
	if sim.sizes > 4 {
		t.Fatalf("a frame asked the screen under for its size %d times; want a few (once per frame)", sim.sizes)
	}
	style := tcell.StyleDefault.Bold(true)
	if n := testing.AllocsPerRun(100, func() {
		for x := 0; x < 80; x++ {
			f.SetContent(x, 3, 'a'+rune(x%26), nil, style)
		}
	}); n != 0 {
		t.Fatalf("setting 80 ASCII cells allocated %v times; want 0", n)
	}
	// a cell set after a resize lands in the resized frame
	f.SetSize(100, 30)
	f.Clear()
	f.SetContent(95, 28, 'z', nil, style)
	if s, _, _ := f.Get(95, 28); s != "z" {
		t.Fatalf("a cell of the resized frame reads %q; want z", s)
	}
}

// putCounter counts the cells handed to it.
type putCounter struct {
	tcell.SimulationScreen
	puts int
}

func (p *putCounter) Put(x, y int, str string, style tcell.Style) (string, int) {
	p.puts++
	return p.SimulationScreen.Put(x, y, str, style)
}

// TestFrameScreenStyleTablesStayBounded: the cells hold their styles and
// graphemes of several runes as indexes into per-screen tables; frames of
// ever new colours and graphemes (an RGB theme, combining marks) keep the
// tables bounded, and the cells the terminal holds survive the tables'
// rebuild: unchanged cells are not sent again, changed ones arrive as set.
func TestFrameScreenStyleTablesStayBounded(t *testing.T) {
	t.Parallel()
	const w, h, n = 80, 24, 1000
	d := &putCounter{SimulationScreen: tcell.NewSimulationScreen("UTF-8")}
	f, err := NewFrameScreen(d)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Init(); err != nil {
		t.Fatal(err)
	}
	f.SetSize(w, h)
	keep := tcell.StyleDefault.Foreground(tcell.ColorRed).Bold(true)
	for k := 0; k < 12; k++ {
		f.Clear()
		for i := 0; i < n; i++ {
			style := tcell.StyleDefault.Foreground(tcell.NewRGBColor(int32(k), int32(i/256), int32(i%256)))
			f.SetContent(i%w, 1+i/w, 'a'+rune(i%26), []rune{0x300 + rune(i%112), 0x300 + rune(k)}, style)
		}
		// a row of kept cells and a changed one, drawn last (new indexes)
		f.SetContent(0, 0, 'k', nil, keep)
		f.Put(1, 0, "e\u0301", keep)
		f.SetContent(10, 0, '0'+rune(k), nil, keep)
		d.puts = 0
		f.Show()
		if k > 0 && d.puts != n+1 {
			t.Fatalf("frame %d handed over %d cells; want the %d that changed", k, d.puts, n+1)
		}
		for i := 0; i < n; i++ {
			str, style, _ := d.Get(i%w, 1+i/w)
			want := tcell.StyleDefault.Foreground(tcell.NewRGBColor(int32(k), int32(i/256), int32(i%256)))
			if g := string([]rune{'a' + rune(i%26), 0x300 + rune(i%112), 0x300 + rune(k)}); str != g || style != want {
				t.Fatalf("frame %d: cell %d holds %q %v; want %q in %v", k, i, str, style, g, want)
			}
		}
		if s, style, _ := f.Get(1, 0); s != "e\u0301" || style != keep {
			t.Fatalf("frame %d: the kept cell reads %q %v", k, s, style)
		}
		if len(f.styles) > maxInterned+n+2 || len(f.strs) > maxInterned+n+2 {
			t.Fatalf("frame %d: %d styles and %d graphemes interned; want at most %d", k, len(f.styles), len(f.strs), maxInterned+n+2)
		}
	}
}

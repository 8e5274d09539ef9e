package views

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/uniseg"
)

// FrameScreen is a tcell.Screen that collects a frame in its own cells and
// hands the screen under it only the cells that differ from the last frame
// shown.
//
// tview clears the screen before each frame and the views draw over their
// backgrounds, and tcell marks a cell changed whenever it is given content
// other than what it holds at that moment (the blank of the clear, a
// background), not what the terminal shows. So every drawn cell was sent
// again each frame: a whole 160x48 screen, ~13 KB, for a streamed word.
// Given only the final changes, tcell sends the terminal only those.
type FrameScreen struct {
	tcell.Screen
	w, h  int
	back  []frameCell // the frame being drawn
	front []frameCell // what the screen under holds
	stale bool        // front is unknown: hand over every cell
	err   error       // Init's
}

// Init starts the screen under; tview ignores the error, InitErr has it.
func (f *FrameScreen) Init() error {
	f.err = f.Screen.Init()
	return f.err
}

// InitErr is the error of the last Init.
func (f *FrameScreen) InitErr() error { return f.err }

type frameCell struct {
	str   string // one grapheme; "" is a blank
	style tcell.Style
}

// NewFrameScreen wraps s, or the terminal's screen when s is nil.
func NewFrameScreen(s tcell.Screen) (*FrameScreen, error) {
	if s == nil {
		var err error
		if s, err = tcell.NewScreen(); err != nil {
			return nil, err
		}
	}
	return &FrameScreen{Screen: s, stale: true}, nil
}

// fit follows the size of the screen under.
func (f *FrameScreen) fit() {
	w, h := f.Screen.Size()
	if w == f.w && h == f.h && f.back != nil {
		return
	}
	f.w, f.h = w, h
	f.back = make([]frameCell, w*h)
	f.front = make([]frameCell, w*h)
	f.stale = true
}

// cell is the frame's cell at x, y, or nil outside it. The size is the one
// the frame began with (Clear, which tview calls after Size at the start of
// each frame): asking the screen under for it at every cell locked its
// mutex a hundred thousand times a second while a long answer streamed.
func (f *FrameScreen) cell(x, y int) *frameCell {
	if f.back == nil {
		f.fit()
	}
	if x < 0 || y < 0 || x >= f.w || y >= f.h {
		return nil
	}
	return &f.back[y*f.w+x]
}

// Clear blanks the frame.
func (f *FrameScreen) Clear() { f.Fill(' ', tcell.StyleDefault) }

// Fill fills the frame with r in style.
func (f *FrameScreen) Fill(r rune, style tcell.Style) {
	f.fit()
	s := string(r)
	for i := range f.back {
		f.back[i] = frameCell{s, style}
	}
}

// SetContent sets a cell of the frame.
func (f *FrameScreen) SetContent(x, y int, primary rune, combining []rune, style tcell.Style) {
	if c := f.cell(x, y); c != nil {
		if len(combining) == 0 {
			*c = frameCell{string(primary), style}
		} else {
			*c = frameCell{string(append([]rune{primary}, combining...)), style}
		}
	}
}

// SetCell sets a cell of the frame.
func (f *FrameScreen) SetCell(x, y int, style tcell.Style, ch ...rune) {
	if len(ch) > 0 {
		f.SetContent(x, y, ch[0], ch[1:], style)
	}
}

// Put sets a cell to the first grapheme of str and returns the rest and
// the grapheme's width, as tcell's does.
func (f *FrameScreen) Put(x, y int, str string, style tcell.Style) (string, int) {
	g, rest, width, _ := uniseg.FirstGraphemeClusterInString(str, -1)
	if c := f.cell(x, y); c != nil && g != "" {
		*c = frameCell{g, style}
	}
	return rest, width
}

// PutStr puts str from x on in the default style.
func (f *FrameScreen) PutStr(x, y int, str string) { f.PutStrStyled(x, y, str, tcell.StyleDefault) }

// PutStrStyled puts str from x on.
func (f *FrameScreen) PutStrStyled(x, y int, str string, style tcell.Style) {
	for str != "" && x < f.w {
		var w int
		str, w = f.Put(x, y, str, style)
		x += max(1, w)
	}
}

// Get reads a cell of the frame.
func (f *FrameScreen) Get(x, y int) (string, tcell.Style, int) {
	c := f.cell(x, y)
	if c == nil {
		return "", tcell.StyleDefault, 0
	}
	str := c.str
	switch {
	case str == "":
		return " ", c.style, 1
	case len(str) == 1: // ASCII: one column, without asking uniseg
		return str, c.style, 1
	}
	return str, c.style, max(1, uniseg.StringWidth(str))
}

// GetContent reads a cell of the frame.
func (f *FrameScreen) GetContent(x, y int) (rune, []rune, tcell.Style, int) {
	str, style, width := f.Get(x, y)
	var main rune
	var comb []rune
	for i, r := range str {
		if i == 0 {
			main = r
		} else {
			comb = append(comb, r)
		}
	}
	return main, comb, style, width
}

// flush hands the changed cells to the screen under.
func (f *FrameScreen) flush() {
	f.fit()
	for i := range f.back {
		b := f.back[i]
		if !f.stale && b == f.front[i] {
			continue
		}
		str := b.str
		if str == "" {
			str = " "
		}
		f.Screen.Put(i%f.w, i/f.w, str, b.style)
		f.front[i] = b
	}
	f.stale = false
}

// Show shows the frame: only its changes reach the terminal.
func (f *FrameScreen) Show() {
	f.flush()
	f.Screen.Show()
}

// Sync shows the frame, every cell of it (a repaint of a corrupted
// terminal).
func (f *FrameScreen) Sync() {
	f.stale = true
	f.flush()
	f.Screen.Sync()
}

// SetSize resizes a simulation screen under (tests).
func (f *FrameScreen) SetSize(w, h int) {
	f.Screen.SetSize(w, h)
	f.fit()
}

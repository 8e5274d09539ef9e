package views

import (
	"slices"
	"unicode/utf8"

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
	drawn []frameCell // the last frame as drawn (back at the last flush)
	front []frameCell // what the screen under holds (drawn as handed over)
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
	f.drawn = make([]frameCell, w*h)
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
	s := runeString(r)
	for i := range f.back {
		f.back[i] = frameCell{s, style}
	}
}

// SetContent sets a cell of the frame.
func (f *FrameScreen) SetContent(x, y int, primary rune, combining []rune, style tcell.Style) {
	c := f.cell(x, y)
	switch {
	case c == nil:
	case len(combining) == 0:
		*c = frameCell{runeString(primary), style}
	default:
		*c = frameCell{string(append([]rune{primary}, combining...)), style}
	}
}

// asciiStrings are the one-byte strings: a cell of ASCII takes no
// allocation (string(rune) allocates).
var asciiStrings = func() (t [utf8.RuneSelf]string) {
	for i := range t {
		t[i] = string(rune(i))
	}
	return t
}()

func runeString(r rune) string {
	if r >= 0 && r < utf8.RuneSelf {
		return asciiStrings[r]
	}
	return string(r)
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
	for y := 0; y < f.h; y++ {
		row, drawn := f.back[y*f.w:(y+1)*f.w], f.drawn[y*f.w:(y+1)*f.w]
		if !f.stale && slices.Equal(row, drawn) {
			continue // most rows: drawn as the last frame drew them
		}
		copy(drawn, row)
		var prev frameCell // the cell before on the row, as handed over
		last := -1         // the last cell of the row handed over
		for x := 0; x < f.w; x++ {
			i := y*f.w + x
			fr := f.front[i]
			b := f.styled(x, i, prev.style)
			if !f.stale && (b == fr || (fr.str == " " || fr.str == "") && blankIn(b, fr.style)) {
				prev = fr
				continue
			}
			if last >= 0 && x-last-1 <= maxGap && f.resend(y, last+1, x) {
				b = f.styled(x, i, f.front[i-1].style) // after the gap, as sent
			}
			f.put(i, b)
			prev, last = b, x
		}
	}
	f.stale = false
}

// styled is cell i (column x) of the frame as it is handed over: a blank
// takes the style of the cell before it on the row (prev), or else of the
// word after it (a code row's first column), when it looks the same in
// it, so the terminal is sent no colours for it.
func (f *FrameScreen) styled(x, i int, prev tcell.Style) frameCell {
	b := f.back[i]
	switch {
	case x > 0 && blankIn(b, prev):
		b.style = prev
	case x+1 < f.w && f.back[i+1].str != " " && blankIn(b, f.back[i+1].style):
		b.style = f.back[i+1].style
	}
	return b
}

// maxGap is the longest run of unchanged cells between two changed ones
// of a row that is sent again rather than skipped: the terminal is sent a
// cursor move (6 to 8 bytes) to skip it, and a plain cell costs one, so
// the space between two new words is sent as a space.
const maxGap = 6

// resend hands the cells of row y from a to b (the gap between the
// changed cells a-1 and b) over again, when that costs the terminal less
// than the cursor move over them: each is a blank or a one-byte cell in
// the style the terminal is in after cell a-1, or in the style of cell b
// (the colours b needs are then sent before the gap); a blank takes it.
// It reports whether it did.
func (f *FrameScreen) resend(y, a, b int) bool {
	cells, ok := f.Screen.(interface{ GetCells() *tcell.CellBuffer })
	if !ok || a >= b {
		return false
	}
	row := f.front[y*f.w : (y+1)*f.w]
	fits := func(style tcell.Style) bool {
		for x := a; x < b; x++ {
			if c := row[x]; len(c.str) > 1 || !blankIn(c, style) && c.style != style {
				return false
			}
		}
		return true
	}
	style := row[a-1].style
	if !fits(style) {
		if style = f.back[y*f.w+b].style; !fits(style) {
			return false
		}
	}
	for x := a; x < b; x++ {
		c := row[x]
		if blankIn(c, style) {
			c.style = style
		}
		f.put(y*f.w+x, c)
		cells.GetCells().SetDirty(x, y, true)
	}
	return true
}

// put hands cell i over to the screen under.
func (f *FrameScreen) put(i int, c frameCell) {
	str := c.str
	if str == "" {
		str = " "
	}
	f.Screen.Put(i%f.w, i/f.w, str, c.style)
	f.front[i] = c
}

// blankIn reports whether c is a blank that looks the same drawn in
// style: a space shows only its background. So a blank takes the style
// of the cell before it on the row (the terminal is sent no colours for
// it: a code row's spaces between differently coloured words, its
// padding), and a blank whose invisible colour changed is not sent again.
func blankIn(c frameCell, style tcell.Style) bool {
	if c.str != " " && c.str != "" {
		return false
	}
	if c.style == style {
		return true
	}
	if c.style == tcell.StyleDefault || style == tcell.StyleDefault {
		return false // the default style is the screen's, whatever its colours
	}
	_, cbg, cattr := c.style.Decompose()
	_, bg, attr := style.Decompose()
	const visible = tcell.AttrReverse | tcell.AttrUnderline | tcell.AttrStrikeThrough
	return cbg == bg && (cattr|attr)&visible == 0 &&
		c.style.GetUnderlineStyle() == tcell.UnderlineStyleNone && style.GetUnderlineStyle() == tcell.UnderlineStyleNone &&
		c.style.Url("") == c.style && style.Url("") == style
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

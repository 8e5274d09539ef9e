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

	// The styles and the graphemes of more than one rune the cells refer
	// to, each once: a cell is then 8 bytes without pointers, so the
	// frame's clear is a memclr-like fill, the GC never scans the frame
	// and a row compares as plain memory.
	styles    []tcell.Style
	styleIDs  map[tcell.Style]uint32
	lastStyle tcell.Style // the style last looked up, and its index:
	lastID    uint32      // a view draws runs of cells in one style
	strs      []string
	strIDs    map[string]uint32
}

// Init starts the screen under; tview ignores the error, InitErr has it.
func (f *FrameScreen) Init() error {
	f.err = f.Screen.Init()
	return f.err
}

// InitErr is the error of the last Init.
func (f *FrameScreen) InitErr() error { return f.err }

// frameCell is a cell of a frame: its grapheme and its style as indexes.
type frameCell struct {
	ch    uint32 // 0: a blank (""); a rune r: r+1; strFlag|i: FrameScreen.strs[i]
	style uint32 // FrameScreen.styles[style]; 0 is tcell.StyleDefault
}

const strFlag = 1 << 31

// maxInterned is the size of the style or grapheme table past which a
// clear rebuilds it with only what the shown frame still uses.
const maxInterned = 4096

// runeCell is the grapheme of a cell of one rune, as runeString makes it.
func runeCell(r rune) uint32 {
	if !utf8.ValidRune(r) {
		r = utf8.RuneError // string(r) is U+FFFD
	}
	return uint32(r) + 1
}

// styleID is the index of style in the table, added when new.
func (f *FrameScreen) styleID(style tcell.Style) uint32 {
	if style == f.lastStyle {
		return f.lastID
	}
	if style == tcell.StyleDefault {
		return 0
	}
	if id, ok := f.styleIDs[style]; ok {
		f.lastStyle, f.lastID = style, id
		return id
	}
	if f.styleIDs == nil {
		f.styleIDs = map[tcell.Style]uint32{}
	}
	if len(f.styles) == 0 {
		f.styles = append(f.styles, tcell.StyleDefault)
	}
	id := uint32(len(f.styles))
	f.styles = append(f.styles, style)
	f.styleIDs[style] = id
	f.lastStyle, f.lastID = style, id
	return id
}

// strCell is the grapheme g of a cell: its rune when g is one rune, else
// its index in the table, added when new.
func (f *FrameScreen) strCell(g string) uint32 {
	switch r, size := utf8.DecodeRuneInString(g); {
	case g == "":
		return 0
	case size == len(g) && (r != utf8.RuneError || size > 1):
		return uint32(r) + 1
	}
	if id, ok := f.strIDs[g]; ok {
		return strFlag | id
	}
	if f.strIDs == nil {
		f.strIDs = map[string]uint32{}
	}
	id := uint32(len(f.strs))
	f.strs = append(f.strs, g)
	f.strIDs[g] = id
	return strFlag | id
}

// str is the grapheme of c; "" is a blank.
func (f *FrameScreen) str(c frameCell) string {
	switch {
	case c.ch == 0:
		return ""
	case c.ch&strFlag != 0:
		return f.strs[c.ch&^strFlag]
	}
	return runeString(rune(c.ch - 1))
}

// isBlank reports whether c is a blank or a space.
func isBlank(c frameCell) bool { return c.ch == 0 || c.ch == ' '+1 }

// compact rebuilds the tables, when grown large, with only the entries of
// the cells of drawn and front (back is about to be cleared).
func (f *FrameScreen) compact() {
	if len(f.styles) <= maxInterned && len(f.strs) <= maxInterned {
		return
	}
	styles, strs := f.styles, f.strs
	f.styles, f.styleIDs, f.strs, f.strIDs = nil, nil, nil, nil
	f.lastStyle, f.lastID = tcell.StyleDefault, 0
	for _, cells := range [][]frameCell{f.drawn, f.front} {
		for i, c := range cells {
			if c.style != 0 {
				cells[i].style = f.styleID(styles[c.style])
			}
			if c.ch&strFlag != 0 {
				cells[i].ch = f.strCell(strs[c.ch&^strFlag])
			}
		}
	}
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
	f.compact()
	c := frameCell{runeCell(r), f.styleID(style)}
	for i := range f.back {
		f.back[i] = c
	}
}

// fillRow sets the cells of row y from x on, w of them, to blanks in
// style: a view's background, set without a call and a style lookup per
// cell (fill).
func (f *FrameScreen) fillRow(x, y, w int, style tcell.Style) {
	if f.back == nil {
		f.fit()
	}
	if y < 0 || y >= f.h {
		return
	}
	if x < 0 {
		w += x
		x = 0
	}
	w = min(w, f.w-x)
	if w <= 0 {
		return
	}
	c := frameCell{runeCell(' '), f.styleID(style)}
	row := f.back[y*f.w+x : y*f.w+x+w]
	for i := range row {
		row[i] = c
	}
}

// SetContent sets a cell of the frame.
func (f *FrameScreen) SetContent(x, y int, primary rune, combining []rune, style tcell.Style) {
	c := f.cell(x, y)
	switch {
	case c == nil:
	case len(combining) == 0:
		*c = frameCell{runeCell(primary), f.styleID(style)}
	default:
		*c = frameCell{f.strCell(string(append([]rune{primary}, combining...))), f.styleID(style)}
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
		*c = frameCell{f.strCell(g), f.styleID(style)}
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
	str, style := f.str(*c), f.style(c.style)
	switch {
	case str == "":
		return " ", style, 1
	case len(str) == 1: // ASCII: one column, without asking uniseg
		return str, style, 1
	}
	return str, style, max(1, uniseg.StringWidth(str))
}

// style is the style of index id.
func (f *FrameScreen) style(id uint32) tcell.Style {
	if id == 0 {
		return tcell.StyleDefault
	}
	return f.styles[id]
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
			if !f.stale && (b == fr || isBlank(fr) && f.blankIn(b, fr.style)) {
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
func (f *FrameScreen) styled(x, i int, prev uint32) frameCell {
	b := f.back[i]
	switch {
	case x > 0 && f.blankIn(b, prev):
		b.style = prev
	case x+1 < f.w && f.back[i+1].ch != ' '+1 && f.blankIn(b, f.back[i+1].style):
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
	fits := func(style uint32) bool {
		for x := a; x < b; x++ {
			if c := row[x]; c.ch > utf8.RuneSelf || !f.blankIn(c, style) && c.style != style {
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
		if f.blankIn(c, style) {
			c.style = style
		}
		f.put(y*f.w+x, c)
		cells.GetCells().SetDirty(x, y, true)
	}
	return true
}

// put hands cell i over to the screen under.
func (f *FrameScreen) put(i int, c frameCell) {
	str := f.str(c)
	if str == "" {
		str = " "
	}
	f.Screen.Put(i%f.w, i/f.w, str, f.style(c.style))
	f.front[i] = c
}

// blankIn reports whether c is a blank that looks the same drawn in
// style: a space shows only its background. So a blank takes the style
// of the cell before it on the row (the terminal is sent no colours for
// it: a code row's spaces between differently coloured words, its
// padding), and a blank whose invisible colour changed is not sent again.
func (f *FrameScreen) blankIn(c frameCell, styleID uint32) bool {
	if !isBlank(c) {
		return false
	}
	if c.style == styleID {
		return true
	}
	if c.style == 0 || styleID == 0 {
		return false // the default style is the screen's, whatever its colours
	}
	cs, style := f.styles[c.style], f.styles[styleID]
	_, cbg, cattr := cs.Decompose()
	_, bg, attr := style.Decompose()
	const visible = tcell.AttrReverse | tcell.AttrUnderline | tcell.AttrStrikeThrough
	return cbg == bg && (cattr|attr)&visible == 0 &&
		cs.GetUnderlineStyle() == tcell.UnderlineStyleNone && style.GetUnderlineStyle() == tcell.UnderlineStyleNone &&
		cs.Url("") == cs && style.Url("") == style
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

package views

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/themes"
)

// modalRect centres a box of at most w×h (at least minW wide) in the
// primitive's rectangle.
func modalRect(b *tview.Box, w, h int) (int, int, int, int) {
	x, y, W, H := b.GetRect()
	w = min(w, W)
	h = min(h, H)
	return x + (W-w)/2, y + (H-h)/2, w, h
}

// drawModalFrame fills and borders a modal box and returns its inner rect.
func drawModalFrame(screen tcell.Screen, th themes.Theme, x, y, w, h int, title string, border tcell.Color) (int, int, int, int) {
	base := tcell.StyleDefault.Background(th.ModalBg).Foreground(th.Text)
	fillRect(screen, x, y, w, h, base)
	if w < 2 || h < 2 {
		return x, y, 0, 0
	}
	bs := base.Foreground(border)
	for i := x + 1; i < x+w-1; i++ {
		screen.SetContent(i, y, '═', nil, bs)
		screen.SetContent(i, y+h-1, '═', nil, bs)
	}
	for j := y + 1; j < y+h-1; j++ {
		screen.SetContent(x, j, '║', nil, bs)
		screen.SetContent(x+w-1, j, '║', nil, bs)
	}
	screen.SetContent(x, y, '╔', nil, bs)
	screen.SetContent(x+w-1, y, '╗', nil, bs)
	screen.SetContent(x, y+h-1, '╚', nil, bs)
	screen.SetContent(x+w-1, y+h-1, '╝', nil, bs)
	if title != "" && w > 6 {
		t := " " + truncate(title, w-6) + " "
		drawText(screen, x+2, y, w-4, t, bs.Bold(true))
	}
	return x + 2, y + 1, max(0, w-4), max(0, h-2)
}

// lineEditor is a one-line text field used inside dialogs.
type lineEditor struct {
	text []rune
	pos  int
}

func (e *lineEditor) set(s string) {
	e.text = []rune(SanitizeLine(s))
	e.pos = len(e.text)
}

func (e *lineEditor) String() string { return string(e.text) }

// handle edits on ev and reports whether it used it.
func (e *lineEditor) handle(ev *tcell.EventKey) bool {
	switch ev.Key() {
	case tcell.KeyRune:
		if ev.Modifiers()&(tcell.ModAlt|tcell.ModCtrl) != 0 {
			return false
		}
		e.text = append(e.text[:e.pos], append([]rune{ev.Rune()}, e.text[e.pos:]...)...)
		e.pos++
	case tcell.KeyBackspace, tcell.KeyBackspace2:
		if e.pos > 0 {
			e.text = append(e.text[:e.pos-1], e.text[e.pos:]...)
			e.pos--
		}
	case tcell.KeyDelete:
		if e.pos < len(e.text) {
			e.text = append(e.text[:e.pos], e.text[e.pos+1:]...)
		}
	case tcell.KeyLeft:
		e.pos = max(0, e.pos-1)
	case tcell.KeyRight:
		e.pos = min(len(e.text), e.pos+1)
	case tcell.KeyHome, tcell.KeyCtrlA:
		e.pos = 0
	case tcell.KeyEnd, tcell.KeyCtrlE:
		e.pos = len(e.text)
	case tcell.KeyCtrlU:
		e.text, e.pos = e.text[e.pos:], 0
	case tcell.KeyCtrlW:
		i := wordStart(e.text, e.pos)
		e.text, e.pos = append(e.text[:i], e.text[e.pos:]...), i
	default:
		return false
	}
	return true
}

func (e *lineEditor) paste(s string) {
	for _, r := range SanitizeLine(s) {
		e.text = append(e.text[:e.pos], append([]rune{r}, e.text[e.pos:]...)...)
		e.pos++
	}
}

// draw draws the field (scrolled so the cursor shows) and places the
// cursor when focused.
func (e *lineEditor) draw(screen tcell.Screen, x, y, w int, style tcell.Style, focused bool) {
	if w <= 0 {
		return
	}
	fill(screen, x, y, w, style)
	start := 0
	if e.pos >= w {
		start = e.pos - w + 1
	}
	drawText(screen, x, y, w, string(e.text[start:]), style)
	if focused {
		screen.ShowCursor(x+(e.pos-start), y)
	}
}

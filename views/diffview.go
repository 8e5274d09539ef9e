package views

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/themes"
)

// DiffOp is a diff line's operation.
type DiffOp rune

const (
	DiffSame   DiffOp = ' '
	DiffAdd    DiffOp = '+'
	DiffRemove DiffOp = '-'
	DiffHeader DiffOp = '@' // a hunk or section header
)

// DiffLine is one line of a DiffView model. Text may hold newlines; each
// becomes a row with the same op.
type DiffLine struct {
	Op   DiffOp
	Text string
}

// ParseUnifiedDiff turns unified diff text into DiffLines, sanitised for
// display.
func ParseUnifiedDiff(s string) []DiffLine { return parseDiffRaw(Sanitize(s)) }

// diffRows flattens lines into one row per text line.
func diffRows(lines []DiffLine) []DiffLine {
	var out []DiffLine
	for _, l := range lines {
		for _, t := range strings.Split(Sanitize(l.Text), "\n") {
			out = append(out, DiffLine{l.Op, t})
		}
	}
	return out
}

// diffStyle returns the style and gutter of a diff row.
func diffStyle(op DiffOp, th themes.Theme, base tcell.Style) (tcell.Style, string) {
	switch op {
	case DiffAdd:
		return base.Foreground(th.DiffAdd), "+ "
	case DiffRemove:
		return base.Foreground(th.DiffRemove), "- "
	case DiffHeader:
		return base.Foreground(th.DiffHeader).Bold(true), ""
	}
	return base.Foreground(th.Text), "  "
}

// DiffView shows a generation diff (messages added/removed inline).
type DiffView struct {
	pane
	rows    []DiffLine
	wrapped []diffRow // rows wrapped to wrapW columns
	wrapW   int
	top     int
	height  int
	keys    Keymap
	onClose func()
	adds    int
	removes int
}

// NewDiffView returns an empty diff view.
func NewDiffView() *DiffView {
	d := &DiffView{pane: newPane("Diff"), height: 10}
	d.keys = Keymap{
		bind("scroll down", func() { d.Scroll(1) }, R('j'), K(tcell.KeyDown)),
		bind("scroll up", func() { d.Scroll(-1) }, R('k'), K(tcell.KeyUp)),
		bind("page down", func() { d.Scroll(d.height - 1) }, K(tcell.KeyPgDn), R(' ')),
		bind("page up", func() { d.Scroll(-(d.height - 1)) }, K(tcell.KeyPgUp)),
		bind("top", func() { d.top = 0 }, R('g'), K(tcell.KeyHome)),
		bind("bottom", func() { d.Scroll(len(d.rows)) }, R('G'), K(tcell.KeyEnd)),
		bind("close", func() {
			if d.onClose != nil {
				d.onClose()
			}
		}, K(tcell.KeyEsc), R('q')),
	}
	return d
}

// SetTheme applies a theme.
func (d *DiffView) SetTheme(t themes.Theme) { d.setTheme(t) }

// Bindings lists the view's keys.
func (d *DiffView) Bindings() []KeyBinding { return d.keys }

// SetOnClose sets the callback for Esc/q.
func (d *DiffView) SetOnClose(f func()) { d.onClose = f }

// SetDiff shows a diff under a title (e.g. "generation 3 → current").
func (d *DiffView) SetDiff(title string, lines []DiffLine) {
	d.SetPaneTitle(title)
	d.rows = diffRows(lines)
	d.wrapped, d.wrapW = nil, 0
	d.top = 0
	d.adds, d.removes = 0, 0
	for _, l := range lines {
		switch l.Op {
		case DiffAdd:
			d.adds++
		case DiffRemove:
			d.removes++
		}
	}
}

// Scroll moves by n rows.
func (d *DiffView) Scroll(n int) {
	d.top = max(0, min(d.top+n, len(d.wrapped)-d.height))
}

// Draw draws the summary and the visible rows.
func (d *DiffView) Draw(screen tcell.Screen) {
	x, y, w, h := d.frame(screen, d)
	if w <= 0 || h <= 0 {
		return
	}
	th := d.theme
	base := d.base()
	cx := x
	cx += drawText(screen, cx, y, w, fmt.Sprintf("+%d ", d.adds), base.Foreground(th.DiffAdd).Bold(true))
	cx += drawText(screen, cx, y, x+w-cx, fmt.Sprintf("-%d ", d.removes), base.Foreground(th.DiffRemove).Bold(true))
	drawText(screen, cx, y, x+w-cx, " Esc closes", base.Foreground(th.Dim))
	y++
	h--
	d.height = max(1, h)
	if d.wrapW != w || d.wrapped == nil {
		d.wrapped, d.wrapW = wrapDiff(d.rows, w), w
	}
	d.top = max(0, min(d.top, len(d.wrapped)-h))
	if len(d.rows) == 0 {
		drawText(screen, x, y, w, "No differences.", base.Foreground(th.Dim))
	}
	for r := 0; r < h && d.top+r < len(d.wrapped); r++ {
		l := d.wrapped[d.top+r]
		st, gutter := diffStyle(l.Op, th, base)
		drawDiffRow(screen, x, y+r, w, l, st, gutter)
	}
}

// InputHandler scrolls and closes.
func (d *DiffView) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return d.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) { d.keys.Handle(ev) })
}

// MouseHandler scrolls on the wheel.
func (d *DiffView) MouseHandler() func(tview.MouseAction, *tcell.EventMouse, func(tview.Primitive)) (bool, tview.Primitive) {
	return d.WrapMouseHandler(func(a tview.MouseAction, ev *tcell.EventMouse, setFocus func(tview.Primitive)) (bool, tview.Primitive) {
		if !d.InRect(ev.Position()) {
			return false, nil
		}
		switch a {
		case tview.MouseScrollUp:
			d.Scroll(-3)
		case tview.MouseScrollDown:
			d.Scroll(3)
		case tview.MouseLeftClick:
			setFocus(d)
		default:
			return false, nil
		}
		return true, nil
	})
}

package views

import (
	"strings"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"
)

// Span is a run of sanitised text drawn in one style.
type Span struct {
	Text  string
	Style tcell.Style
}

// Line is one screen row made of spans.
type Line []Span

// Width is the number of terminal columns the line takes.
func (l Line) Width() int {
	w := 0
	for _, s := range l {
		w += strWidth(s.Text)
	}
	return w
}

// strWidth is the terminal width of s, rune by rune as drawText draws it
// (fast for ASCII; no grapheme segmentation).
func strWidth(s string) int {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] >= 0x7f {
			ascii = false
			break
		}
	}
	if ascii {
		return len(s)
	}
	w := 0
	for _, r := range s {
		w += runeWidth(r)
	}
	return w
}

// cutWidth returns the longest prefix of s at most w columns wide.
func cutWidth(s string, w int) string {
	used := 0
	for i, r := range s {
		rw := runeWidth(r)
		if used+rw > w {
			return s[:i]
		}
		used += rw
	}
	return s
}

// String is the line's text without styles.
func (l Line) String() string {
	var b strings.Builder
	for _, s := range l {
		b.WriteString(s.Text)
	}
	return b.String()
}

// runeWidth is the terminal width of r; control runes take no cell (they
// are never drawn).
func runeWidth(r rune) int {
	if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
		return 0
	}
	return runewidth.RuneWidth(r)
}

// drawText draws s at (x, y), at most maxW columns, and returns the columns
// used. Control runes are skipped (text should already be sanitised; this
// is a second line of defence because the cells go to the terminal as is).
func drawText(screen tcell.Screen, x, y, maxW int, s string, style tcell.Style) int {
	used := 0
	for _, r := range s {
		w := runeWidth(r)
		if w == 0 {
			continue
		}
		if used+w > maxW {
			break
		}
		screen.SetContent(x+used, y, r, nil, style)
		used += w
	}
	return used
}

// drawLine draws the spans of l from column x, clipped to maxW.
func drawLine(screen tcell.Screen, x, y, maxW int, l Line) int {
	used := 0
	for _, s := range l {
		if used >= maxW {
			break
		}
		used += drawText(screen, x+used, y, maxW-used, s.Text, s.Style)
	}
	return used
}

// fill paints w cells from (x, y) with spaces in style.
func fill(screen tcell.Screen, x, y, w int, style tcell.Style) {
	if f, ok := screen.(*FrameScreen); ok {
		f.fillRow(x, y, w, style)
		return
	}
	for i := 0; i < w; i++ {
		screen.SetContent(x+i, y, ' ', nil, style)
	}
}

// fillRect paints a rectangle.
func fillRect(screen tcell.Screen, x, y, w, h int, style tcell.Style) {
	for j := 0; j < h; j++ {
		fill(screen, x, y+j, w, style)
	}
}

// truncate cuts s to at most w columns, ending in "…" when cut.
func truncate(s string, w int) string {
	if w <= 0 {
		return ""
	}
	if strWidth(s) <= w {
		return s
	}
	return cutWidth(s, w-1) + "…"
}

// padRight pads s with spaces to exactly w columns (truncating if longer).
func padRight(s string, w int) string {
	s = truncate(s, w)
	if n := w - strWidth(s); n > 0 {
		s += strings.Repeat(" ", n)
	}
	return s
}

// cell is one rune of a span being wrapped. It names its span rather
// than holding the span's style (72 bytes): wrapping a streamed answer
// every frame allocated and compared the styles of every rune.
type cell struct {
	r    rune
	w    int32
	span int32 // index in the spans wrapped
}

// wrapSpans word-wraps spans (which may contain '\n') to width columns.
// Continuation rows start with indent (already styled). Words longer than
// a row are broken. An empty input yields one empty line.
func wrapSpans(spans []Span, width int, first, indent Line) []Line {
	if width < 1 {
		width = 1
	}
	var lines []Line
	size := 0
	for _, sp := range spans {
		size += len(sp.Text)
	}
	// reused from row to row: a row's runes become its spans' strings; a
	// row holds at most width cells and the one that did not fit
	cur := make([]cell, 0, min(size, width+1))
	prefix := first
	// avail is the row's room after its prefix, measured once a row.
	room := func() int { return max(width-prefix.Width(), 1) }
	avail := room()
	emit := func(cells []cell) {
		l := make(Line, 0, len(prefix)+2)
		l = append(l, prefix...)
		l = appendCellSpans(l, cells, spans)
		lines = append(lines, l)
		prefix = indent
		avail = room()
	}
	curW := 0
	lastSpace := -1
	for si, sp := range spans {
		for _, r := range sp.Text {
			if r == '\n' {
				emit(cur)
				cur, curW, lastSpace = cur[:0], 0, -1
				continue
			}
			w := runeWidth(r)
			if w == 0 {
				continue
			}
			if curW+w > avail {
				if r == ' ' {
					// break here; drop the space
					emit(cur)
					cur, curW, lastSpace = cur[:0], 0, -1
					continue
				}
				if lastSpace >= 0 {
					emit(cur[:lastSpace])
					cur = cur[:copy(cur, cur[lastSpace+1:])]
				} else {
					emit(cur)
					cur = cur[:0]
				}
				curW = 0
				for _, c := range cur {
					curW += int(c.w)
				}
				lastSpace = -1
			}
			if r == ' ' {
				lastSpace = len(cur)
			}
			cur = append(cur, cell{r, int32(w), int32(si)})
			curW += w
		}
	}
	if len(cur) > 0 || len(lines) == 0 {
		emit(cur)
	}
	return lines
}

// appendCellSpans appends cells to l as spans: a run of cells of one
// style is one span. The spans are parts of one string, the row's.
func appendCellSpans(l Line, cells []cell, spans []Span) Line {
	if len(cells) == 0 {
		return l
	}
	var b strings.Builder
	b.Grow(len(cells))
	for _, c := range cells {
		b.WriteRune(c.r)
	}
	row := b.String()
	from, at := 0, 0
	for i, c := range cells {
		if i > 0 && c.span != cells[i-1].span && spans[c.span].Style != spans[cells[i-1].span].Style {
			l = append(l, Span{row[from:at], spans[cells[i-1].span].Style})
			from = at
		}
		at += utf8.RuneLen(c.r)
	}
	return append(l, Span{row[from:], spans[cells[len(cells)-1].span].Style})
}

// clipLine cuts a line to width columns without wrapping, ending in "…"
// when anything was cut (one-line headers, rules).
func clipLine(l Line, width int) Line {
	if l.Width() <= width {
		return l
	}
	if width <= 0 {
		return nil
	}
	out := cutLine(l, width-1)
	st := l[0].Style
	if len(out) > 0 {
		st = out[len(out)-1].Style
	}
	return append(out, Span{"…", st})
}

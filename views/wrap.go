package views

import (
	"strings"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
)

// wrapCode breaks a code row into rows of at most w columns, cell by cell
// (code has no words to keep whole), so nothing is cut.
func wrapCode(l Line, w int) []Line {
	if l.Width() <= w {
		return []Line{l}
	}
	var out []Line
	var cur Line
	used := 0
	for _, s := range l {
		rest := s.Text
		for rest != "" {
			if used == w {
				out = append(out, cur)
				cur, used = nil, 0
			}
			head := cutWidth(rest, w-used)
			if head == "" {
				if used > 0 { // a wide rune on a row with one column left
					out = append(out, cur)
					cur, used = nil, 0
					continue
				}
				_, size := utf8.DecodeRuneInString(rest) // wider than a row
				head = rest[:size]
			}
			cur = append(cur, Span{head, s.Style})
			used += strWidth(head)
			rest = rest[len(head):]
		}
	}
	return append(out, cur)
}

// shiftLine is the part of l from column shift on, at most w columns, with
// "…" in mark's style where it goes on to the left or the right.
func shiftLine(l Line, shift, w int, mark tcell.Style) Line {
	total := l.Width()
	var out Line
	if shift > 0 && total > 0 {
		out = append(out, Span{"…", mark})
		shift++ // the mark takes the first column
	}
	skip := shift
	for _, s := range l {
		sw := strWidth(s.Text)
		if skip >= sw {
			skip -= sw
			continue
		}
		text := s.Text
		if skip > 0 {
			text = text[len(cutWidth(text, skip)):]
			skip = 0
		}
		out = append(out, Span{text, s.Style})
	}
	if out.Width() > w {
		out = append(cutLine(out, w-1), Span{"…", mark})
	}
	return out
}

// cutLine is the first w columns of l.
func cutLine(l Line, w int) Line {
	var out Line
	used := 0
	for _, s := range l {
		if used >= w {
			break
		}
		t := cutWidth(s.Text, w-used)
		out = append(out, Span{t, s.Style})
		used += strWidth(t)
	}
	return out
}

// wrapPlain word-wraps plain text to rows of at most w columns, keeping
// the leading indentation on continuation rows short of half the width.
func wrapPlain(s string, w int, st tcell.Style) []Line {
	indent := len(s) - len(strings.TrimLeft(s, " "))
	if indent > w/2 {
		indent = 0
	}
	pad := Line{{strings.Repeat(" ", indent), st}}
	return wrapSpans([]Span{{strings.TrimLeft(s, " "), st}}, w, pad, pad)
}

// codeShiftStep is how far ←/→ move unwrapped code blocks.
const codeShiftStep = 8

// ToggleCodeWrap switches code blocks between wrapping (the default) and
// horizontal scrolling.
func (c *Conversation) ToggleCodeWrap() {
	c.code = CodeLayout{NoWrap: !c.code.NoWrap}
	c.invalidateAll()
}

// CodeLayout reports how code blocks are laid out.
func (c *Conversation) CodeLayout() CodeLayout { return c.code }

// ShiftCode scrolls unwrapped code blocks sideways by d columns.
func (c *Conversation) ShiftCode(d int) {
	if !c.code.NoWrap {
		return
	}
	if s := max(0, c.code.Shift+d); s != c.code.Shift {
		c.code.Shift = s
		c.invalidateAll()
	}
}

// diffRow is one screen row of a wrapped diff; cont rows continue the row
// above and get a blank gutter.
type diffRow struct {
	DiffLine
	cont bool
}

// wrapDiff wraps diff rows to w columns after their two-column gutter, so
// long diff lines are never cut; they break between words (a generation
// diff is prose: "…Pʼ lea…" split words mid-line), and only a word longer
// than the row is cut.
func wrapDiff(rows []DiffLine, w int) []diffRow {
	out := make([]diffRow, 0, len(rows))
	for _, r := range rows {
		for i, l := range wrapPlain(r.Text, max(1, w-2), tcell.StyleDefault) {
			out = append(out, diffRow{DiffLine{r.Op, l.String()}, i > 0})
		}
	}
	return out
}

// drawDiffRow draws one wrapped diff row from (x, y) in w columns.
func drawDiffRow(screen tcell.Screen, x, y, w int, r diffRow, st tcell.Style, gutter string) {
	if r.cont {
		gutter = strings.Repeat(" ", strWidth(gutter))
	}
	n := drawText(screen, x, y, w, gutter, st)
	drawText(screen, x+n, y, w-n, r.Text, st)
}

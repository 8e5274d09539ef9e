package views

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gdamore/tcell/v2"
)

// spaceRunLimit: a run of more spaces than this is shown as a count, so
// that blank space cannot push the rest of a command out of sight.
const spaceRunLimit = 8

// hidden reports whether r draws as nothing, as blank, or changes how the
// text around it is shown: controls (C0 except newline, DEL, C1), format
// characters (zero-width, bidi controls, tags, soft hyphen), spaces other
// than U+0020, and blank-looking letters and symbols (U+2800 braille
// blank, Hangul fillers, the combining grapheme joiner, variation
// selectors, line and paragraph separators).
func hidden(r rune) bool {
	switch {
	case r == '\n':
		return false
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
		return true
	case r == 0x2800, r == 0x3164, r == 0x115f, r == 0x1160, r == 0xffa0, r == 0x034f,
		r == 0x2028, r == 0x2029, r == utf8.RuneError:
		return true
	case r >= 0xfe00 && r <= 0xfe0f, r >= 0xe0100 && r <= 0xe01ef:
		return true
	}
	return unicode.Is(unicode.Cf, r) || (unicode.Is(unicode.Zs, r) && r != ' ')
}

// revealToken names n repetitions of r: ⟨U+2800×400⟩, ⟨U+200B⟩.
func revealToken(r rune, n int) string {
	if n == 1 {
		return fmt.Sprintf("⟨U+%04X⟩", r)
	}
	return fmt.Sprintf("⟨U+%04X×%d⟩", r, n)
}

// revealSpans renders untrusted text (a command to approve) so that every
// character is accounted for: hidden characters and long runs of spaces
// become tokens in the token style; the rest keeps the normal style.
// Newlines are kept as line breaks. Invalid UTF-8 shows as U+FFFD tokens.
func revealSpans(s string, normal, token tcell.Style) []Span {
	return revealRuns(nil, s, normal, token, false)
}

// indentLimit: indentation up to this many columns shows as blanks in code
// (a diff's lines, JSON arguments); deeper is named like any long run.
const indentLimit = 40

// revealCode is revealSpans for code to approve (an edit's diff, a tool's
// arguments): the same, except that what code is made of stays blank, as
// code shows it: a line's indentation of tabs and spaces (up to
// indentLimit columns) and a tab or two between words. hardWrap draws a
// tab as tabWidth blanks.
func revealCode(s string, normal, token tcell.Style) []Span {
	var spans []Span
	for i, line := range strings.Split(s, "\n") {
		if i > 0 {
			spans = append(spans, Span{"\n", normal})
		}
		end, width := 0, 0
		for end < len(line) && (line[end] == ' ' || line[end] == '\t') {
			if line[end] == '\t' {
				width += tabWidth
			} else {
				width++
			}
			end++
		}
		if width > indentLimit {
			end = 0
		}
		if end > 0 {
			spans = append(spans, Span{line[:end], normal})
		}
		spans = revealRuns(spans, line[end:], normal, token, true)
	}
	return spans
}

// revealRuns appends s to spans, runs of hidden characters and of more
// than spaceRunLimit spaces as tokens; in code a run of one or two tabs
// stays plain.
func revealRuns(spans []Span, s string, normal, token tcell.Style, code bool) []Span {
	var plain strings.Builder
	flush := func() {
		if plain.Len() > 0 {
			spans = append(spans, Span{plain.String(), normal})
			plain.Reset()
		}
	}
	rs := []rune(s) // invalid bytes decode to utf8.RuneError, which is hidden
	for i := 0; i < len(rs); {
		r, j := rs[i], i+1
		for j < len(rs) && rs[j] == r {
			j++
		}
		n := j - i
		blankTabs := code && r == '\t' && n <= 2
		if (hidden(r) && !blankTabs) || (r == ' ' && n > spaceRunLimit) {
			flush()
			spans = append(spans, Span{revealToken(r, n), token})
		} else {
			plain.WriteString(string(rs[i:j]))
		}
		i = j
	}
	flush()
	return spans
}

// RevealHidden is revealSpans as plain text, e.g.
// "echo safe⟨U+2800×400⟩; touch PWNED".
func RevealHidden(s string) string {
	var b strings.Builder
	for _, sp := range revealSpans(s, tcell.StyleDefault, tcell.StyleDefault) {
		b.WriteString(sp.Text)
	}
	return b.String()
}

// revealedChars counts the characters of the original text that a span
// stands for: a token's repeat count, else its runes (newlines excluded).
func revealedChars(sp Span, token tcell.Style) int {
	if sp.Style == token && strings.HasPrefix(sp.Text, "⟨U+") {
		body := strings.TrimSuffix(strings.TrimPrefix(sp.Text, "⟨U+"), "⟩")
		if _, count, ok := strings.Cut(body, "×"); ok {
			if n, err := strconv.Atoi(count); err == nil {
				return n
			}
		}
		return 1
	}
	return utf8.RuneCountInString(sp.Text) - strings.Count(sp.Text, "\n")
}

// hardWrap breaks spans into rows of width columns exactly where they are
// full, dropping nothing (a command shown for approval must be shown
// whole; word wrapping would swallow the spaces at the breaks). Newlines
// start a new row. Continuation rows start with indent. Spans in the
// whole style (reveal tokens) move to the next row rather than split, when
// they fit in one.
func hardWrap(spans []Span, width int, first, indent Line, whole tcell.Style) []Line {
	var lines []Line
	var cur []cell
	prefix := first
	avail := func() int { return max(1, width-prefix.Width()) }
	emit := func() {
		lines = append(lines, appendCellSpans(append(Line{}, prefix...), cur, spans))
		cur, prefix = cur[:0], indent
	}
	curW := 0
	for si, sp := range spans {
		if sp.Style == whole {
			if w := strWidth(sp.Text); curW+w > avail() && w <= width-indent.Width() && len(cur) > 0 {
				emit()
				curW = 0
			}
		}
		for _, r := range sp.Text {
			if r == '\n' {
				emit()
				curW = 0
				continue
			}
			n, w := 1, runeWidth(r)
			if r == '\t' { // code's tabs (revealCode): blanks
				r, n, w = ' ', tabWidth, 1
			}
			if w == 0 {
				continue
			}
			for range n {
				if curW+w > avail() && len(cur) > 0 {
					emit()
					curW = 0
				}
				cur = append(cur, cell{r, int32(w), int32(si)})
				curW += w
			}
		}
	}
	if len(cur) > 0 || len(lines) == 0 {
		emit()
	}
	return lines
}

package views

import (
	"strings"
	"unicode/utf8"
)

// tabWidth is how many spaces a tab expands to.
const tabWidth = 4

// Sanitize makes untrusted text safe to draw: it removes terminal escape
// sequences (CSI, OSC, DCS/SOS/PM/APC strings, two-byte ESC sequences, and
// their 8-bit C1 forms), C0/C1 control characters other than newline,
// carriage returns, DEL, bidi override characters, and invalid UTF-8; tabs
// become spaces. Newlines are kept. Text that needs none of this is returned
// as is without allocating.
func Sanitize(s string) string { return sanitize(s, false) }

// sanitizeKeepTabs is Sanitize that keeps tabs: the conversation stores
// text so, for copying what the model wrote (a Makefile's tab is not four
// spaces), and expands the tabs only when it lays the text out.
func sanitizeKeepTabs(s string) string { return sanitize(s, true) }

// expandTabs draws each tab as tabWidth spaces.
func expandTabs(s string) string {
	if strings.IndexByte(s, '\t') < 0 {
		return s
	}
	return strings.ReplaceAll(s, "\t", strings.Repeat(" ", tabWidth))
}

func sanitize(s string, keepTabs bool) string {
	if isClean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			b.WriteRune('\uFFFD')
			i++
			continue
		}
		switch {
		case r == 0x1b: // ESC
			i = skipEscape(s, i+size)
			continue
		case r == 0x9b: // C1 CSI
			i = skipCSI(s, i+size)
			continue
		case r == 0x9d || r == 0x90 || r == 0x98 || r == 0x9e || r == 0x9f: // C1 OSC, DCS, SOS, PM, APC
			i = skipString(s, i+size)
			continue
		case r == '\n':
			b.WriteByte('\n')
		case r == '\t' && keepTabs:
			b.WriteByte('\t')
		case r == '\t':
			b.WriteString(strings.Repeat(" ", tabWidth))
		case r == '\r':
			// dropped: a lone CR would move the cursor and overwrite
		case r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0):
			// other C0 / DEL / C1 controls dropped
		case isBidiControl(r):
			// dropped: would reorder what the user sees
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// SanitizeLine is Sanitize and then newlines replaced by spaces, for
// one-line fields (titles, arguments, status text).
func SanitizeLine(s string) string {
	s = Sanitize(s)
	if strings.IndexByte(s, '\n') >= 0 {
		s = strings.ReplaceAll(s, "\n", " ")
	}
	return s
}

func isClean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			// Slow path for non-ASCII: check for C1, bidi and invalid UTF-8.
			for _, r := range s[i:] {
				if r == utf8.RuneError || r < 0x20 && r != '\n' || r == 0x7f || (r >= 0x80 && r < 0xa0) || isBidiControl(r) {
					return false
				}
			}
			return true
		}
	}
	return true
}

func isBidiControl(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x200e || r == 0x200f || r == 0x061c
}

// skipEscape skips the rest of a sequence that started with ESC at i-1.
func skipEscape(s string, i int) int { j, _ := escapeEnd(s, i); return j }

// skipCSI skips parameter and intermediate bytes and the final byte.
func skipCSI(s string, i int) int { j, _ := csiEnd(s, i); return j }

// skipString skips an OSC/DCS-style string up to BEL, ESC \ or C1 ST.
func skipString(s string, i int) int { j, _ := stringEnd(s, i); return j }

// escapeEnd returns where the sequence after ESC (at i-1) ends and whether
// it was complete.
func escapeEnd(s string, i int) (int, bool) {
	if i >= len(s) {
		return i, false
	}
	switch s[i] {
	case '[':
		return csiEnd(s, i+1)
	case ']', 'P', 'X', '^', '_':
		return stringEnd(s, i+1)
	}
	// ESC followed by intermediates (0x20-0x2f) then one final byte.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		return i + 1, true
	}
	return i, i < len(s)
}

// csiEnd finds the final byte of a CSI sequence whose parameters start at i.
func csiEnd(s string, i int) (int, bool) {
	for i < len(s) {
		c := s[i]
		if c >= 0x40 && c <= 0x7e {
			return i + 1, true
		}
		if c < 0x20 || c >= 0x80 {
			// not a CSI byte: the sequence is broken; stop here
			return i, true
		}
		i++
	}
	return i, false
}

// stringEnd finds the end of an OSC/DCS-style string: BEL, ESC \ or C1 ST.
func stringEnd(s string, i int) (int, bool) {
	for i < len(s) {
		if s[i] == 0x07 {
			return i + 1, true
		}
		if s[i] == 0x1b {
			if i+1 < len(s) {
				if s[i+1] == '\\' {
					return i + 2, true
				}
				return i + 1, true
			}
			return i, false
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == 0x9c {
			return i + size, true
		}
		i += size
	}
	return i, false
}

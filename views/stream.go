package views

import "unicode/utf8"

// maxPendingEscape bounds how much of an unterminated escape sequence a
// streamSanitizer holds back; beyond it the fragment is dropped.
const maxPendingEscape = 4096

// streamSanitizer sanitises text that arrives in pieces: an escape
// sequence or UTF-8 rune split across two deltas is held back until it is
// complete, so no fragment of it is ever shown.
type streamSanitizer struct{ pending string }

// Write returns the sanitised part of pending+delta that is complete.
func (s *streamSanitizer) Write(delta string) string {
	text := s.pending + delta
	s.pending = ""
	cut := incompleteTail(text)
	if cut < len(text) {
		s.pending = text[cut:]
		text = text[:cut]
		if len(s.pending) > maxPendingEscape {
			s.pending = ""
		}
	}
	return sanitizeKeepTabs(text)
}

// incompleteTail returns the index where an unfinished escape sequence or
// rune at the end of s starts, or len(s).
func incompleteTail(s string) int {
	// incomplete UTF-8 at the very end
	if n := len(s); n > 0 && s[n-1] >= 0x80 {
		start := n - 1
		for start > 0 && n-start < utf8.UTFMax && !utf8.RuneStart(s[start]) {
			start--
		}
		if !utf8.FullRuneInString(s[start:]) {
			return start
		}
	}
	// the last ESC or C1 introducer within the window
	lo := len(s) - maxPendingEscape
	if lo < 0 {
		lo = 0
	}
	for i := len(s) - 1; i >= lo; i-- {
		c := s[i]
		if c == 0x1b {
			if _, ok := escapeEnd(s, i+1); !ok {
				return i
			}
			return len(s)
		}
		if c == 0xc2 && i+1 < len(s) {
			switch s[i+1] {
			case 0x9b:
				if _, ok := csiEnd(s, i+2); !ok {
					return i
				}
				return len(s)
			case 0x9d, 0x90, 0x98, 0x9e, 0x9f:
				if _, ok := stringEnd(s, i+2); !ok {
					return i
				}
				return len(s)
			}
		}
	}
	return len(s)
}

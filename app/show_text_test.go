package app

import (
	"bytes"
	"strings"
	"testing"
)

// TestTranscriptTextHelpers: the writers show's text mode uses write what
// the string-building helpers they replaced made (oneLine's fast path, the
// indented block written piece by piece).
func TestTranscriptTextHelpers(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "a", "a b", " a", "a ", "a  b", "a\tb", "a\nb\n\n", "\n", "é ü", "a\u00a0b", "x\x1b[31my", "c1\u0085z", "line\r\nnext", "  two\n  lines  \n"} {
		if got, want := oneLine(s), strings.Join(strings.Fields(sanitize(s)), " "); got != want {
			t.Errorf("oneLine(%q) = %q, want %q", s, got, want)
		}
		var b bytes.Buffer
		w := errWriter{w: &b}
		writeIndented(&w, s)
		if got, want := b.String(), "  "+strings.ReplaceAll(sanitize(strings.TrimRight(s, "\n")), "\n", "\n  ")+"\n"; got != want {
			t.Errorf("writeIndented(%q) wrote %q, want %q", s, got, want)
		}
	}
}

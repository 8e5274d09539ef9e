package views

import (
	"strings"
	"testing"
)

func TestSanitize(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ in, want string }{
		{"plain text", "plain text"},
		{"\x1b]0;pwned\x07after", "after"},
		{"\x1b]8;;http://evil\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"a\x1b[2Jb", "ab"},
		{"\x1b[31mred\x1b[0m", "red"},
		{"[red]x[-]", "[red]x[-]"},
		{"\u009b31mx", "x"},
		{"\u009d0;title\u009cok", "ok"},
		{"bell\x07 cr\r\nnext", "bell cr\nnext"},
		{"tab\there", "tab    here"},
		{"c1\u0085\u0090x\x1b\\y", "c1y"},
		{"\x1bPq#0;2;0;0;0\x1b\\dcs", "dcs"},
		{"\x1b(Bcharset", "charset"},
		{"del\x7f nul\x00", "del nul"},
		{"bidi\u202eevil\u202c", "bidievil"},
		{"bad\xffutf8", "bad\uFFFDutf8"},
		{"ünïcødé 世界", "ünïcødé 世界"},
		{"trailing esc\x1b", "trailing esc"},
	} {
		got := Sanitize(tc.in)
		if got != tc.want {
			t.Errorf("Sanitize(%q) = %q, want %q", tc.in, got, tc.want)
		}
		for _, r := range got {
			if r == 0x1b || r == 0x07 || r == '\r' || (r >= 0x80 && r < 0xa0) {
				t.Errorf("Sanitize(%q) left control %U", tc.in, r)
			}
		}
	}
	if got := SanitizeLine("a\nb\x1b[1mc"); got != "a bc" {
		t.Errorf("SanitizeLine = %q", got)
	}
	long := strings.Repeat("ok ", 1000)
	if Sanitize(long) != long {
		t.Error("clean text changed")
	}
}

func TestWrapSpans(t *testing.T) {
	t.Parallel()
	lines := wrapSpans([]Span{{Text: "the quick brown fox jumps over the lazy dog"}}, 10, nil, nil)
	var got []string
	for _, l := range lines {
		got = append(got, l.String())
		if l.Width() > 10 {
			t.Errorf("line %q wider than 10", l.String())
		}
	}
	if strings.Join(got, "|") != "the quick|brown fox|jumps over|the lazy|dog" {
		t.Fatalf("wrap = %q", got)
	}
	lines = wrapSpans([]Span{{Text: "abcdefghijklmnop\nx"}}, 5, Line{{Text: "> "}}, Line{{Text: "  "}})
	got = got[:0]
	for _, l := range lines {
		got = append(got, l.String())
	}
	if strings.Join(got, "|") != "> abc|  def|  ghi|  jkl|  mno|  p|  x" {
		t.Fatalf("hard wrap = %q", got)
	}
	if n := len(wrapSpans(nil, 10, nil, nil)); n != 1 {
		t.Fatalf("empty input gives %d lines", n)
	}
}

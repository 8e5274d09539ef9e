package words

import "testing"

func TestPlural(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "files", 1: "file", 2: "files", -1: "files"} {
		if got := Plural(n, "file", "files"); got != want {
			t.Errorf("Plural(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestLevenshtein(t *testing.T) {
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"abc", "", 3}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"--work-dir", "--wrok-dir", 2}, {"héllo", "hello", 1}, {"flaw", "lawn", 2},
	} {
		if got := Levenshtein([]rune(c.a), []rune(c.b)); got != c.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
		if got := Levenshtein([]rune(c.b), []rune(c.a)); got != c.want {
			t.Errorf("Levenshtein(%q, %q) = %d, want %d (not symmetric)", c.b, c.a, got, c.want)
		}
	}
}

func TestThousands(t *testing.T) {
	t.Parallel()
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 128000: "128,000", 1234567: "1,234,567", -45000: "-45,000"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestAlsoInSessions(t *testing.T) {
	t.Parallel()
	if got := AlsoInSessions(1); got != "(+1 session)" {
		t.Errorf("AlsoInSessions(1) = %q", got)
	}
	if got := AlsoInSessions(3); got != "(+3 sessions)" {
		t.Errorf("AlsoInSessions(3) = %q", got)
	}
}

func TestSize(t *testing.T) {
	for n, want := range map[int64]string{1: "1 byte", 999: "999 bytes", 70000: "70 KB", 6000000: "6 MB", 5242881: "5.2 MB", 2500000000: "2.5 GB"} {
		if got := Size(n); got != want {
			t.Errorf("Size(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestClip(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"eleven runes", 10, "eleven ru…"},
		{"ééééé", 3, "éé…"}, // runes, not bytes
	} {
		if got := Clip(tc.s, tc.n); got != tc.want {
			t.Errorf("Clip(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n          int
		word, want string
	}{
		{1, "line", "1 line"}, {3, "line", "3 lines"}, {2, "match", "2 matches"},
		{0, "entry", "0 entries"}, {4, "binary file", "4 binary files"},
	} {
		if got := Count(tc.n, tc.word); got != tc.want {
			t.Errorf("Count(%d, %q) = %q, want %q", tc.n, tc.word, got, tc.want)
		}
	}
}

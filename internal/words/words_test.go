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

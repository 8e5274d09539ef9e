package tui

import (
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// A one-letter word being typed is not searched: "/quokka g" keeps the
// hits of "quokka" (it showed "0 hits · No message matches." at the first
// letter of every new word), and a lone "/q" asks for one more letter.
func TestBrowserSearchWaitsForASecondLetter(t *testing.T) {
	t.Parallel()
	h, _ := browserHarness(t)
	h.openBrowser()
	h.typeText("/quokka", false)
	h.waitFor("quokka grammar", "2 hits")
	h.typeText(" g", false)
	// "2 hits" next to the new query: its hits are in (the count says
	// "searching…" until they are)
	text := h.waitFor("search: /quokka g ", "2 hits", "quokka grammar")
	if strings.Contains(text, "No message matches") {
		t.Errorf("the screen says no match for a one-letter word being typed:\n%s", text)
	}
	h.ctrl(tcell.KeyCtrlU)
	h.typeText("/q", false)
	h.waitFor("search: /q ", "Type one more letter")
	if text := h.text(); strings.Contains(text, "hits") || strings.Contains(text, "No message matches") {
		t.Errorf("a one-letter query shows a count or a result:\n%s", text)
	}
}

func TestAsYouType(t *testing.T) {
	t.Parallel()
	for q, want := range map[string]string{
		"build":          "build*",
		"build c":        "build*",
		"b":              "",
		"a b":            "",
		"a build":        "a build*",
		"build OR c":     "build*",
		`"flaky test" c`: `"flaky test"`,
		`"flaky te`:      `"flaky te`,
		"build OR":       "build OR",
	} {
		if got := asYouType(q); got != want {
			t.Errorf("asYouType(%q) = %q, want %q", q, got, want)
		}
	}
}

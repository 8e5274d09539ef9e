package tui

import (
	"slices"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// The full-screen browser hides the workspace under it (it was drawn, then
// overdrawn, on every frame); closing it shows the workspace again with the
// focus back on the input.
func TestBrowserHidesTheWorkspaceUnderIt(t *testing.T) {
	t.Parallel()
	h, _ := browserHarness(t)
	visible := func() (names []string) {
		h.c.onUIThread(func() { names = h.c.pages.root.GetPageNames(true) })
		return names
	}
	h.openBrowser()
	if v := visible(); slices.Contains(v, workspacePage) || !slices.Contains(v, browserPage) {
		t.Fatalf("visible pages with the browser open: %v", v)
	}
	h.key(tcell.KeyEsc)
	h.waitUntil("the browser closed", func() bool { return h.c.pages.top() == "" })
	if v := visible(); !slices.Contains(v, workspacePage) {
		t.Fatalf("visible pages after closing the browser: %v", v)
	}
	h.typeText("back in the input", false)
	h.waitFor("back in the input")
}

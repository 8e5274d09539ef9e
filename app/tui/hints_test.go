package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// At 80×24 and 120×40 titles and hints lose whole parts, never half a
// word: the browser's title, and the status bar keeps the token count
// while a message shows.
func TestHintsAndTitlesKeepWholeWords(t *testing.T) {
	t.Parallel()
	for _, sz := range []struct{ w, h int }{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprint(sz.w, "x", sz.h), func(t *testing.T) {
			t.Parallel()
			h, _ := browserHarness(t)
			h.resize(sz.w, sz.h)
			h.openBrowser()
			top := h.waitFor("Sessions · F1 help · Enter resume")
			title := strings.Split(top, "\n")[0]
			if !strings.HasSuffix(strings.TrimRight(title, "═╗┐─ "), "…") && !strings.Contains(title, "Esc close") {
				t.Errorf("browser title cut without a mark: %q", title)
			}
			for _, part := range []string{"/ search messages", "Ctrl-T this dir/all", "Ctrl-R rename"} {
				first := strings.Fields(part)[0]
				if strings.Contains(title, first) && !strings.Contains(title, part) {
					t.Errorf("browser title cuts %q: %q", part, title)
				}
			}
			h.key(tcell.KeyEsc)
			h.waitUntil("the browser to close", func() bool { return h.c.pages.top() == "" })
			h.c.onUIThread(func() { h.c.statusM.Tokens = 81234; h.c.refreshStatus() })
			h.key(tcell.KeyCtrlC)
			rows := strings.Split(h.waitFor("press Ctrl-C again to quit"), "\n")
			if bar := rows[len(rows)-1]; !strings.Contains(bar, "81.2k tok") {
				t.Errorf("the status bar dropped the token count: %q", bar)
			}
		})
	}
}

package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"
)

func TestInputHistorySearch(t *testing.T) {
	in := NewInput()
	in.SetTheme(dark)
	in.SetHistory([]string{"go test ./...", "fix the parser", "go vet ./...", "go test ./..."})
	send(in, runes("draft")...)
	send(in, key(tcell.KeyCtrlR, 0, tcell.ModCtrl))
	send(in, runes("go")...)
	matches, sel := in.SearchMatches()
	if strings.Join(matches, "|") != "go test ./...|go vet ./..." || sel != 0 {
		t.Fatalf("matches %q (sel %d): newest first, once each", matches, sel)
	}
	s := draw(t, in, 80, in.Height(80))
	mustFind(t, s, "history search: go")
	mustFind(t, s, "go vet ./...")
	send(in, key(tcell.KeyCtrlR, 0, tcell.ModCtrl)) // older match
	send(in, key(tcell.KeyEnter, 0, 0))
	if in.Searching() || in.Text() != "go vet ./..." {
		t.Fatalf("took %q (searching %v)", in.Text(), in.Searching())
	}
	in.SetText("draft")
	send(in, key(tcell.KeyCtrlR, 0, tcell.ModCtrl))
	send(in, runes("nothing like it")...)
	s = draw(t, in, 80, in.Height(80))
	mustFind(t, s, "no match")
	send(in, key(tcell.KeyEsc, 0, 0))
	if in.Searching() || in.Text() != "draft" {
		t.Fatalf("Esc gave back %q", in.Text())
	}
}

// A paste of more than 20 lines shows as one label in the input; the whole
// text is sent, and the conversation shows the label, unfolding on Enter.
func TestLongPasteIsFolded(t *testing.T) {
	var lines []string
	for i := range 214 {
		lines = append(lines, fmt.Sprintf("line %d", i))
	}
	paste := strings.Join(lines, "\n")
	in := NewInput()
	var sent, shown string
	in.SetOnSend(func(text, s string) { sent, shown = text, s })
	send(in, runes("review this: ")...)
	in.PasteHandler()(paste, func(tview.Primitive) {})
	if in.Text() != "review this: [pasted 214 lines]" {
		t.Fatalf("input shows %q", in.Text())
	}
	send(in, key(tcell.KeyEnter, 0, 0))
	if sent != "review this: "+paste || shown != "review this: [pasted 214 lines]" {
		t.Fatalf("sent %d bytes, shown %q", len(sent), shown)
	}
	in.PasteHandler()("short\npaste", func(tview.Primitive) {})
	if in.Text() != "short\npaste" {
		t.Fatalf("a short paste is kept whole: %q", in.Text())
	}

	c := NewConversation()
	c.SetTheme(dark)
	c.SetItems([]Item{{Kind: ItemUser, Text: shown, Full: sent}})
	s := draw(t, c, 80, 30)
	mustFind(t, s, "[pasted 214 lines]")
	if _, _, ok := find(s, "line 5"); ok {
		t.Fatal("the paste is not folded in the conversation")
	}
	send(c, key(tcell.KeyEnter, 0, 0))
	redraw(s, c)
	mustFind(t, s, "line 213")
}

package views

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

func sampleItems() []Item {
	return []Item{
		{Kind: ItemUser, Text: "Please fix the parser"},
		{Kind: ItemReasoning, Text: "secret thoughts line one\nline two"},
		{Kind: ItemAssistant, Text: "# Plan\n\nI will **fix** it with `go test`.\n\n- one\n- two\n\n```go\nfunc main() { return }\n```\n"},
		{Kind: ItemTool, ID: "t1", ToolName: "Shell", KeyArg: "go test ./...", Args: `{"command":"go test ./..."}`, Result: "FAIL parser", Status: ToolFailed, Duration: 1200 * time.Millisecond},
		{Kind: ItemTool, ID: "t2", ToolName: "ReadFile", KeyArg: "main.go", Status: ToolOK, Duration: 30 * time.Millisecond},
		{Kind: ItemBanner, Banner: BannerBacktrack, Text: "Backtracked to checkpoint 2 · discarded 5 messages (archived)"},
		{Kind: ItemError, Text: "model error: 500"},
	}
}

func TestConversationRenders(t *testing.T) {
	t.Parallel()
	for _, sz := range sizes {
		t.Run(fmt.Sprint(sz.w, "x", sz.h), func(t *testing.T) {
			c := NewConversation()
			c.SetTheme(dark)
			c.SetItems(sampleItems())
			s := draw(t, c, sz.w, sz.h)
			wantFg(t, s, "Please fix the parser", dark.User)
			mustFind(t, s, "Thinking (2 lines")
			if _, _, ok := find(s, "secret thoughts"); ok {
				t.Error("reasoning not folded")
			}
			wantFg(t, s, "✗ Shell go test ./...", dark.ToolError)
			mustFind(t, s, "1.2s")
			wantFg(t, s, "✓ ReadFile main.go", dark.ToolOK)
			wantFg(t, s, "Backtracked to checkpoint 2", dark.BannerBacktrack)
			wantFg(t, s, "model error: 500", dark.Error)
			wantFg(t, s, "Plan", dark.Heading)
			mustFind(t, s, "• one")
			x, y := mustFind(t, s, "fix")
			if _, _, attr := cellStyle(s, x, y).Decompose(); attr&tcell.AttrBold == 0 {
				t.Error("**fix** not bold")
			}
		})
	}
}

func cellStyle(s tcell.SimulationScreen, x, y int) tcell.Style {
	cells, w, _ := s.GetContents()
	return cells[y*w+x].Style
}

func TestConversationChromaHighlight(t *testing.T) {
	t.Parallel()
	c := NewConversation()
	c.SetTheme(dark)
	c.SetItems([]Item{{Kind: ItemAssistant, Text: "```go\nfunc main() {\n\tx := 1\n}\n```"}})
	s := draw(t, c, 80, 24)
	kx, ky := mustFind(t, s, "func")
	mx, my := mustFind(t, s, "main")
	if fg(s, kx, ky) == fg(s, mx, my) {
		t.Fatalf("keyword and identifier share colour %v", fg(s, kx, ky))
	}
	if fg(s, kx, ky) == dark.Assistant || fg(s, kx, ky) == dark.Text {
		t.Fatal("keyword drawn in plain text colour")
	}
	if bg(s, kx, ky) != dark.CodeBg {
		t.Fatalf("code background %v", bg(s, kx, ky))
	}
	mustFind(t, s, " go ")
}

func TestConversationMarkdownBlocks(t *testing.T) {
	t.Parallel()
	c := NewConversation()
	c.SetTheme(dark)
	c.SetItems([]Item{{Kind: ItemAssistant, Text: "> quoted words\n\n1. first\n2. second\n\n| a | bb |\n|---|----|\n| 1 | 2 |\n\nsee [docs](http://x.y) and *it*\n\n---"}})
	s := draw(t, c, 80, 24)
	wantFg(t, s, "│ quoted words", dark.Quote)
	mustFind(t, s, "1. first")
	mustFind(t, s, "2. second")
	mustFind(t, s, "a │ bb")
	mustFind(t, s, "1 │ 2")
	mustFind(t, s, "──┼─")
	wantFg(t, s, "docs (http://x.y)", dark.Link)
	x, y := mustFind(t, s, "and it")
	if _, _, attr := cellStyle(s, x+4, y).Decompose(); attr&tcell.AttrItalic == 0 {
		t.Error("*it* not italic")
	}
	if _, _, attr := cellStyle(s, x, y).Decompose(); attr&tcell.AttrItalic != 0 {
		t.Error("plain text around *it* italic")
	}
}

func TestConversationHostileStrings(t *testing.T) {
	t.Parallel()
	hostile := []string{"\x1b]0;pwned\x07", "\x1b[2J", "[red]x[-]", "\u009b31m", "a\rb", "\x07bell", "\x1b[31mred"}
	c := NewConversation()
	var items []Item
	for _, h := range hostile {
		items = append(items,
			Item{Kind: ItemUser, Text: h + "U"},
			Item{Kind: ItemAssistant, Text: h + "A"},
			Item{Kind: ItemTool, ToolName: h + "T", KeyArg: h, Args: h, Result: h, Expanded: true},
			Item{Kind: ItemBanner, Text: h + "B"},
			Item{Kind: ItemError, Text: h + "E"})
	}
	c.SetItems(items)
	c.SetPreview("\x1b]0;pwned\x07preview")
	s := draw(t, c, 200, 60)
	assertNoControls(t, s)
	text := screenText(s)
	if strings.Contains(text, "pwned") || strings.Contains(text, "[2J") || strings.Contains(text, "31m") {
		t.Fatalf("escape payload visible:\n%s", text)
	}
	if !strings.Contains(text, "[red]x[-]") {
		t.Fatal("tview tags must show literally")
	}
	// streamed escape split across deltas
	c.SetItems(nil)
	for _, d := range []string{"safe ", "\x1b]0;pw", "ned\x07", "\x1b[", "2J", "\xc2", "\x9b31m", "end"} {
		c.AppendDelta(d)
	}
	if got := c.items[0].Text; got != "safe end" {
		t.Fatalf("streamed text = %q", got)
	}
}

func TestConversationStreaming(t *testing.T) {
	t.Parallel()
	c := NewConversation()
	c.SetTheme(dark)
	var items []Item
	for i := 0; i < 200; i++ {
		items = append(items, Item{Kind: ItemUser, Text: fmt.Sprintf("question %d", i)})
	}
	c.SetItems(items)
	s := draw(t, c, 80, 24)
	mustFind(t, s, "question 199")
	for _, tok := range strings.Fields("the answer is forty two") {
		c.AppendDelta(tok + " ")
	}
	redraw(s, c)
	mustFind(t, s, "the answer is forty two")
	if c.Len() != 201 || c.items[200].Kind != ItemAssistant {
		t.Fatal("delta did not create one assistant item")
	}
	// layout of earlier items is not redone on a delta
	before := c.items[199].lines
	c.AppendDelta("more")
	redraw(s, c)
	if &before[0] != &c.items[199].lines[0] {
		t.Fatal("earlier item re-laid out on delta")
	}
	mustFind(t, s, "forty two more")

	// scroll up: stop following; new deltas do not move the view
	send(c, key(tcell.KeyPgUp, 0, 0), key(tcell.KeyPgUp, 0, 0))
	if c.Following() {
		t.Fatal("still following after PgUp")
	}
	redraw(s, c)
	top := row(s, 1)
	c.AppendDelta(" and more")
	c.Append(Item{Kind: ItemUser, Text: "newest"})
	redraw(s, c)
	if row(s, 1) != top {
		t.Fatal("view moved while scrolled up")
	}
	if _, _, ok := find(s, "newest"); ok {
		t.Fatal("scrolled-up view jumped to the bottom")
	}
	mustFind(t, s, "more below")
	send(c, key(tcell.KeyRune, 'G', 0))
	redraw(s, c)
	mustFind(t, s, "newest")
	if !c.Following() {
		t.Fatal("G does not follow")
	}
}

func TestConversationKeysAndToggle(t *testing.T) {
	t.Parallel()
	c := NewConversation()
	c.SetTheme(dark)
	c.SetItems(sampleItems())
	var got []int
	c.SetOnSelect(func(i int, it Item) { got = append(got, i) })
	s := draw(t, c, 80, 24)
	send(c, key(tcell.KeyRune, 'g', 0), key(tcell.KeyRune, 'j', 0))
	if c.Selected() != 1 {
		t.Fatalf("selected %d", c.Selected())
	}
	send(c, key(tcell.KeyEnter, 0, 0))
	redraw(s, c)
	mustFind(t, s, "secret thoughts line one")
	send(c, key(tcell.KeyDown, 0, 0), key(tcell.KeyDown, 0, 0), key(tcell.KeyEnter, 0, 0))
	redraw(s, c)
	mustFind(t, s, "FAIL parser")
	mustFind(t, s, `{"command":"go test ./..."}`)
	wantFg(t, s, "FAIL parser", dark.ToolError)
	if len(got) == 0 || got[len(got)-1] != 3 {
		t.Fatalf("OnSelect calls %v", got)
	}
	// update a running tool call
	send(c, key(tcell.KeyRune, 'G', 0))
	c.Append(Item{Kind: ItemTool, ID: "t9", ToolName: "Grep", KeyArg: "TODO"})
	redraw(s, c)
	wantFg(t, s, "… Grep TODO", dark.ToolRunning)
	if !c.UpdateItem("t9", func(it *Item) { it.Status = ToolOK; it.Duration = 2 * time.Second }) {
		t.Fatal("UpdateItem")
	}
	redraw(s, c)
	mustFind(t, s, "✓ Grep TODO  2.0s")
	if c.UpdateItem("nope", func(*Item) {}) {
		t.Fatal("UpdateItem of unknown id")
	}
	// preview banner
	c.SetPreview("Preview of checkpoint 3 — read-only")
	redraw(s, c)
	x, y := mustFind(t, s, "Preview of checkpoint 3")
	if y != 1 || bg(s, x, y) != dark.BannerPreview {
		t.Errorf("preview banner at row %d bg %v", y, bg(s, x, y))
	}
}

func TestConversationScrollMany(t *testing.T) {
	t.Parallel()
	c := NewConversation()
	c.SetTheme(dark)
	c.SetItems(manyItems(1000))
	s := draw(t, c, 80, 24)
	mustFind(t, s, "message 999")
	send(c, key(tcell.KeyHome, 0, 0))
	redraw(s, c)
	mustFind(t, s, "message 0 ")
	for i := 0; i < 10; i++ {
		send(c, key(tcell.KeyPgDn, 0, 0))
	}
	redraw(s, c)
	if _, _, ok := find(s, "message 0 "); ok {
		t.Fatal("PgDn did not scroll")
	}
	sel := c.Selected()
	y := 0
	for yy := 1; yy < 23; yy++ {
		if strings.Contains(row(s, yy), "▎") {
			y = yy
			break
		}
	}
	if y == 0 {
		t.Fatalf("selected item %d not visible after PgDn", sel)
	}
	send(c, key(tcell.KeyEnd, 0, 0))
	redraw(s, c)
	mustFind(t, s, "message 999")
}

func manyItems(n int) []Item {
	items := make([]Item, 0, n)
	for i := 0; i < n; i++ {
		switch i % 4 {
		case 0:
			items = append(items, Item{Kind: ItemUser, Text: fmt.Sprintf("message %d from the user, asking about something rather long so that it wraps at eighty columns for sure", i)})
		case 1:
			items = append(items, Item{Kind: ItemAssistant, Text: fmt.Sprintf("message %d **answer** with `code` and a list:\n\n- a\n- b\n\n```go\nfunc f() int { return %d }\n```", i, i)})
		case 2:
			items = append(items, Item{Kind: ItemTool, ToolName: "Shell", KeyArg: fmt.Sprintf("message %d ls -la", i), Status: ToolOK, Duration: time.Second})
		default:
			items = append(items, Item{Kind: ItemAssistant, Text: fmt.Sprintf("message %d short reply", i)})
		}
	}
	return items
}

// TestConversationTruncate: dropping the trailing items (a watcher's
// streamed step replaced by the committed one) forgets their ids, keeps the
// selection and the anchor in range, and the pane draws what is left.
func TestConversationTruncate(t *testing.T) {
	t.Parallel()
	c := NewConversation()
	c.SetTheme(dark)
	c.SetItems(sampleItems())
	c.Select(len(sampleItems()) - 1)
	c.Truncate(4) // keeps the user, reasoning, assistant and tool t1
	if c.Len() != 4 || c.Selected() != 3 {
		t.Fatalf("len %d selected %d", c.Len(), c.Selected())
	}
	if c.UpdateItem("t2", func(it *Item) { it.Status = ToolFailed }) {
		t.Error("t2 was dropped but still updatable")
	}
	if !c.UpdateItem("t1", func(it *Item) { it.Status = ToolOK }) {
		t.Error("t1 was kept but is not updatable")
	}
	c.Append(Item{Kind: ItemTool, ID: "t2", ToolName: "Glob", KeyArg: "*.go", Status: ToolOK})
	s := draw(t, c, 100, 30)
	mustFind(t, s, "✓ Glob *.go")
	if _, _, ok := find(s, "model error"); ok {
		t.Error("a dropped item is still drawn")
	}
	c.Truncate(0)
	if c.Len() != 0 || c.Selected() != -1 {
		t.Fatalf("after Truncate(0): len %d selected %d", c.Len(), c.Selected())
	}
	draw(t, c, 100, 30)
}

// TestConversationEarlierMarker: the items are the tail of a longer
// conversation; the marker shows above the first item only when the top is
// on screen, reaching the top asks for the earlier items, and prepending
// them keeps the rows on screen, the selection and the tool call ids.
func TestConversationEarlierMarker(t *testing.T) {
	t.Parallel()
	c := NewConversation()
	c.SetTheme(dark)
	var tail []Item
	for i := range 40 {
		tail = append(tail, Item{Kind: ItemUser, Text: fmt.Sprintf("prompt %d", 100+i)})
	}
	tail = append(tail, Item{Kind: ItemTool, ID: "call", ToolName: "Shell", KeyArg: "ls"})
	c.SetItems(tail)
	c.SetEarlier("↑ 100 earlier messages")
	tops := 0
	c.SetOnTop(func() { tops++ })
	s := draw(t, c, 60, 12)
	if _, _, ok := find(s, "earlier messages"); ok || tops != 0 {
		t.Fatalf("marker at the bottom (tops %d):\n%s", tops, screenText(s))
	}
	send(c, key(tcell.KeyRune, 'g', 0))
	redraw(s, c)
	if tops != 1 {
		t.Fatalf("reaching the top called onTop %d times", tops)
	}
	mx, my := mustFind(t, s, "↑ 100 earlier messages")
	px, py := mustFind(t, s, "prompt 100")
	if py <= my || px != mx+2 {
		t.Fatalf("marker at %d,%d, first item at %d,%d:\n%s", mx, my, px, py, screenText(s))
	}

	var page []Item
	for i := range 100 {
		page = append(page, Item{Kind: ItemUser, Text: fmt.Sprintf("prompt %d", i)})
	}
	c.Prepend(page, "")
	redraw(s, c)
	if _, _, ok := find(s, "earlier messages"); ok {
		t.Fatalf("marker still shown:\n%s", screenText(s))
	}
	if _, y := mustFind(t, s, "prompt 100"); y != py { // the gap above it takes the marker's row
		t.Errorf("prompt 100 moved from row %d to %d", py, y)
	}
	if it, _ := c.Item(c.Selected()); it.Text != "prompt 100" {
		t.Errorf("selection on %+v, want prompt 100", it)
	}
	if !c.UpdateItem("call", func(it *Item) { it.Status = ToolOK }) {
		t.Error("the tool call's id was lost")
	}
	if it, _ := c.Item(140); it.Status != ToolOK || it.ID != "call" {
		t.Errorf("item 140 after the update: %+v", it)
	}
	send(c, key(tcell.KeyRune, 'g', 0))
	if tops != 1 {
		t.Errorf("onTop called with everything loaded (%d)", tops)
	}
}

// TestConversationLaterMarkerAndMark: items that stop short of the end (a
// search hit's window) show a later marker under the last item once
// scrolled there, which asks for the page after; a later page keeps the
// rows on screen; G/End asks for the end instead of following; the marked
// item carries a bar in the match colour until the items are replaced.
func TestConversationLaterMarkerAndMark(t *testing.T) {
	t.Parallel()
	c := NewConversation()
	c.SetTheme(dark)
	var items []Item
	for i := range 40 {
		items = append(items, Item{Kind: ItemUser, Text: fmt.Sprintf("prompt %d", i)})
	}
	c.SetItems(items)
	c.SetLater("↓ 60 later messages")
	bottoms, ends := 0, 0
	c.SetOnBottom(func() { bottoms++ })
	c.SetOnEnd(func() { ends++ })
	s := draw(t, c, 60, 12)
	c.Mark(20)
	redraw(s, c)
	x, y := mustFind(t, s, "prompt 20")
	cell, st, _ := s.Get(x-3, y)
	if fg, _, _ := st.Decompose(); cell != "┃" || fg != dark.MatchHighlight {
		t.Fatalf("the marked item's row starts with %q:\n%s", cell, screenText(s))
	}
	if _, _, ok := find(s, "later messages"); ok || bottoms != 0 {
		t.Fatalf("later marker in the middle (bottoms %d):\n%s", bottoms, screenText(s))
	}
	send(c, key(tcell.KeyRune, 'G', 0))
	if ends != 1 || bottoms != 0 {
		t.Fatalf("G: %d ends, %d bottoms; want 1, 0", ends, bottoms)
	}
	c.Select(39) // j down to the last item
	redraw(s, c)
	if bottoms != 1 {
		t.Fatalf("reaching the bottom called onBottom %d times", bottoms)
	}
	mx, my := mustFind(t, s, "↓ 60 later messages")
	_, py := mustFind(t, s, "prompt 39")
	if my <= py || mx != x-2 {
		t.Fatalf("marker at %d,%d, last item at row %d:\n%s", mx, my, py, screenText(s))
	}

	var page []Item
	for i := range 60 {
		page = append(page, Item{Kind: ItemUser, Text: fmt.Sprintf("prompt %d", 40+i)})
	}
	c.AppendPage(page, "")
	redraw(s, c)
	if _, y := mustFind(t, s, "prompt 39"); y != py {
		t.Errorf("prompt 39 moved from row %d to %d", py, y)
	}
	if _, _, ok := find(s, "later messages"); ok {
		t.Fatalf("marker still shown:\n%s", screenText(s))
	}
	send(c, key(tcell.KeyRune, 'G', 0))
	redraw(s, c)
	if ends != 1 {
		t.Errorf("G with everything loaded asked for the end (%d)", ends)
	}
	mustFind(t, s, "prompt 99")
	if c.Marked() != 20 {
		t.Errorf("marked %d after the page, want 20", c.Marked())
	}
	c.SetItems(items)
	if c.Marked() != -1 {
		t.Errorf("marked %d after SetItems", c.Marked())
	}
}

// A banner's list items hang under their text when they wrap (the demo's
// welcome: "1. show me some code — a markdown answer…" wrapped to the
// marker's column).
func TestBannerListItemsHang(t *testing.T) {
	t.Parallel()
	c := NewConversation()
	c.SetTheme(dark)
	c.SetItems([]Item{{Kind: ItemBanner, Banner: BannerInfo, Text: "Try, in order:\n1. show me some code — a markdown answer with a highlighted code block\n2. write a file"}})
	s := draw(t, c, 40, 12)
	_, y := mustFind(t, s, "1. show me some code")
	x1, _ := mustFind(t, s, "show me")
	x2, y2 := mustFind(t, s, "answer with")
	if y2 != y+1 || x2 != x1 {
		t.Errorf("the item's second row starts at %d,%d, want %d,%d (under its text):\n%s", x2, y2, x1, y+1, screenText(s))
	}
}

package tui

import (
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/themes"
	"github.com/rewind-agent/rewind/views"
)

// layout is the workspace: the conversation (left, largest) above the
// input, a right column with tool output, timeline and session list, and
// the status bar along the bottom. It re-flows on resize: below 100 columns
// the right column gets a third of the width, above it 36 %, capped.
type layout struct {
	root  *tview.Flex // status bar below the body
	body  *tview.Flex // left column | right column
	left  *tview.Flex // conversation above input
	right *tview.Flex // tool output, timeline, sessions
	input *views.Input

	lastInputH, lastRightW int
}

func newLayout(conv *views.Conversation, toolOut *views.ToolOutput, tl *views.Timeline, sl *views.SessionList, in *views.Input, sb *views.StatusBar) *layout {
	l := &layout{input: in}
	l.left = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(conv, 0, 1, false).
		AddItem(in, 3, 0, true)
	l.right = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(toolOut, 0, 2, false).
		AddItem(tl, 0, 1, false).
		AddItem(sl, 0, 1, false)
	l.body = tview.NewFlex().SetDirection(tview.FlexColumn).
		AddItem(l.left, 0, 1, true).
		AddItem(l.right, 30, 0, false)
	l.root = tview.NewFlex().SetDirection(tview.FlexRow).
		AddItem(l.body, 0, 1, true).
		AddItem(sb, 1, 0, false)
	return l
}

// fit sizes the input to its text and the right column to the screen
// (UI goroutine, before each draw).
func (l *layout) fit() {
	_, _, w, h := l.root.GetRect()
	if w <= 0 {
		return
	}
	rw := w / 3
	if w >= 100 {
		rw = w * 36 / 100
	}
	rw = min(max(rw, 24), 72)
	if rw != l.lastRightW {
		l.body.ResizeItem(l.right, rw, 0)
		l.lastRightW = rw
	}
	ih := l.input.Height(max(1, w-rw))
	ih = min(ih, max(3, h/3))
	if ih != l.lastInputH {
		l.left.ResizeItem(l.input, ih, 0)
		l.lastInputH = ih
	}
}

func (l *layout) setTheme(t themes.Theme) {
	for _, f := range []*tview.Flex{l.root, l.body, l.left, l.right} {
		f.SetBackgroundColor(t.Background)
	}
}

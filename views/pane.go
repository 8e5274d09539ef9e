package views

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/themes"
)

// Themed is implemented by every view: a theme change is broadcast by
// calling SetTheme on each, no view reads a global.
type Themed interface {
	SetTheme(themes.Theme)
}

// Bound is implemented by views with a key registry.
type Bound interface {
	Bindings() []KeyBinding
}

// boundView is what every view but the status bar implements.
type boundView interface {
	tview.Primitive
	Themed
	Bound
}

var (
	_ boundView = (*Conversation)(nil)
	_ boundView = (*ToolOutput)(nil)
	_ boundView = (*Timeline)(nil)
	_ boundView = (*SessionList)(nil)
	_ boundView = (*Input)(nil)
	_ boundView = (*ApprovalModal)(nil)
	_ boundView = (*HelpOverlay)(nil)
	_ boundView = (*ConfirmDialog)(nil)
	_ boundView = (*PromptDialog)(nil)
	_ boundView = (*DiffView)(nil)
	_ boundView = (*Workspace)(nil)
	_ boundView = (*RunList)(nil)

	_ tview.Primitive = (*StatusBar)(nil)
	_ Themed          = (*StatusBar)(nil)
)

// pane is the shared frame of the bordered views: theme, title, focus mark.
type pane struct {
	*tview.Box
	theme  themes.Theme
	title  string
	border bool
	// tabbed: the workspace draws the side panes' tabs over the top
	// border (the lone side pane of a small terminal), so nothing else
	// shows there.
	tabbed bool
}

// setTabbed says whether the workspace draws tabs over the top border.
func (p *pane) setTabbed(on bool) { p.tabbed = on }

func newPane(title string) pane {
	p := pane{Box: tview.NewBox(), theme: themes.Default(), title: title, border: true}
	p.Box.SetBorder(true)
	return p
}

// SetTheme applies a theme to the frame.
func (p *pane) setTheme(t themes.Theme) { p.theme = t }

// SetPaneTitle changes the title shown in the border.
func (p *pane) SetPaneTitle(title string) { p.title = SanitizeLine(title) }

// ShowBorder turns the border (and title) on or off.
func (p *pane) ShowBorder(on bool) {
	p.border = on
	p.Box.SetBorder(on)
}

func (p *pane) base() tcell.Style {
	return tcell.StyleDefault.Background(p.theme.Background).Foreground(p.theme.Text)
}

// frame draws background, border and title (marked when focused) and
// returns the inner rectangle.
func (p *pane) frame(screen tcell.Screen, self tview.Primitive) (int, int, int, int) {
	focused := p.HasFocus()
	p.Box.SetBackgroundColor(p.theme.Background)
	titleColor := p.theme.Title
	// a title too long for the border loses whole " · " parts, never half a word
	_, _, bw, _ := p.GetRect()
	fitted := fitParts(p.title, max(1, bw-6))
	var shown string // the title as shown, "" when the pane has none
	if focused {
		p.Box.SetBorderColor(p.theme.FocusedBorder)
		titleColor = p.theme.FocusedBorder
		p.Box.SetTitleColor(titleColor)
		if p.title != "" {
			shown = " ▶ " + fitted + " "
		}
	} else {
		p.Box.SetBorderColor(p.theme.Border)
		p.Box.SetTitleColor(titleColor)
		if p.title != "" {
			shown = " " + fitted + " "
		}
	}
	if shown != "" {
		p.Box.SetTitle(tview.Escape(shown))
	}
	p.Box.SetBorderStyle(tcell.StyleDefault.Background(p.theme.Background).Foreground(p.Box.GetBorderColor()))
	p.draw(screen, self, shown, titleColor)
	return p.GetInnerRect()
}

// draw is tview's Box.DrawForSubclass for a pane: the box filled with the
// background, then its border and title, as tview draws them. tview sets
// the background cell by cell through SetContent; fill sets a
// FrameScreen's rows at once (the panes' backgrounds were a tenth of a
// frame's CPU).
func (p *pane) draw(screen tcell.Screen, self tview.Primitive, shown string, titleColor tcell.Color) {
	x, y, w, h := p.GetRect()
	if w <= 0 || h <= 0 {
		return
	}
	fillRect(screen, x, y, w, h, tcell.StyleDefault.Background(p.theme.Background))
	if !p.border || w < 2 || h < 2 {
		return
	}
	b := tview.Borders
	horizontal, vertical := b.Horizontal, b.Vertical
	topLeft, topRight, bottomLeft, bottomRight := b.TopLeft, b.TopRight, b.BottomLeft, b.BottomRight
	if self.HasFocus() {
		horizontal, vertical = b.HorizontalFocus, b.VerticalFocus
		topLeft, topRight, bottomLeft, bottomRight = b.TopLeftFocus, b.TopRightFocus, b.BottomLeftFocus, b.BottomRightFocus
	}
	style := tcell.StyleDefault.Background(p.theme.Background).Foreground(p.Box.GetBorderColor())
	for cx := x + 1; cx < x+w-1; cx++ {
		screen.SetContent(cx, y, horizontal, nil, style)
		screen.SetContent(cx, y+h-1, horizontal, nil, style)
	}
	for cy := y + 1; cy < y+h-1; cy++ {
		screen.SetContent(x, cy, vertical, nil, style)
		screen.SetContent(x+w-1, cy, vertical, nil, style)
	}
	screen.SetContent(x, y, topLeft, nil, style)
	screen.SetContent(x+w-1, y, topRight, nil, style)
	screen.SetContent(x, y+h-1, bottomLeft, nil, style)
	screen.SetContent(x+w-1, y+h-1, bottomRight, nil, style)
	title := p.Box.GetTitle()
	if title == "" || w < 4 {
		return
	}
	if n, ok := plainWidth(shown); ok && n <= w-2 {
		// a title of one-column runes that fits: centred as tview.Print
		// centres it (over the border's background), without its parse of
		// style tags and graphemes, a twentieth of a frame's CPU
		drawText(screen, x+1+(w-2)/2-n/2, y, n, shown, tcell.StyleDefault.Foreground(titleColor).Background(p.theme.Background))
		return
	}
	// centred, cut with an ellipsis in the border's colour, as tview does
	printed, _ := tview.Print(screen, title, x+1, y, w-2, tview.AlignCenter, titleColor)
	if len(title)-printed > 0 && printed > 0 {
		_, st, _ := screen.Get(x+w-2, y)
		fg, _, _ := st.Decompose()
		tview.Print(screen, string(tview.SemigraphicsHorizontalEllipsis), x+w-2, y, 1, tview.AlignLeft, fg)
	}
}

// Every view is a tview primitive with SetTheme; the panes also expose
// their key registries.
var (
	_ tview.Primitive = (*Conversation)(nil)
	_ tview.Primitive = (*ToolOutput)(nil)
	_ tview.Primitive = (*Timeline)(nil)
	_ tview.Primitive = (*SessionList)(nil)
	_ tview.Primitive = (*Input)(nil)
	_ tview.Primitive = (*StatusBar)(nil)
	_ tview.Primitive = (*ApprovalModal)(nil)
	_ tview.Primitive = (*HelpOverlay)(nil)
	_ tview.Primitive = (*ConfirmDialog)(nil)
	_ tview.Primitive = (*PromptDialog)(nil)
	_ tview.Primitive = (*DiffView)(nil)
	_ tview.Primitive = (*Workspace)(nil)

	_ Themed = (*Conversation)(nil)
	_ Themed = (*ToolOutput)(nil)
	_ Themed = (*Timeline)(nil)
	_ Themed = (*SessionList)(nil)
	_ Themed = (*Input)(nil)
	_ Themed = (*StatusBar)(nil)
	_ Themed = (*ApprovalModal)(nil)
	_ Themed = (*HelpOverlay)(nil)
	_ Themed = (*ConfirmDialog)(nil)
	_ Themed = (*PromptDialog)(nil)
	_ Themed = (*DiffView)(nil)
	_ Themed = (*Workspace)(nil)

	_ Bound = (*Conversation)(nil)
	_ Bound = (*ToolOutput)(nil)
	_ Bound = (*Timeline)(nil)
	_ Bound = (*SessionList)(nil)
	_ Bound = (*Input)(nil)
	_ Bound = (*ApprovalModal)(nil)
	_ Bound = (*HelpOverlay)(nil)
	_ Bound = (*ConfirmDialog)(nil)
	_ Bound = (*PromptDialog)(nil)
	_ Bound = (*DiffView)(nil)
	_ Bound = (*Workspace)(nil)
)

// plainWidth is the width of s when each of its runes takes one column
// alone, as tview and drawText both draw them: printable ASCII and the
// titles' marks (▶, ·, …); ok is false for any other rune.
func plainWidth(s string) (n int, ok bool) {
	for _, r := range s {
		switch {
		case r >= 0x20 && r < 0x7f, r == '▶', r == '·', r == '…':
			n++
		default:
			return 0, false
		}
	}
	return n, true
}

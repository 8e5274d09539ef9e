package views

import (
	"fmt"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/themes"
)

// PaneID names a focusable pane of the Workspace.
type PaneID int

const (
	PaneInput PaneID = iota
	PaneConversation
	PaneToolOutput
	PaneTimeline
	PaneSessions
	paneCount
)

// String names the pane.
func (p PaneID) String() string {
	names := [...]string{"input", "conversation", "tool output", "timeline", "sessions"}
	if p < 0 || int(p) >= len(names) {
		return fmt.Sprintf("pane(%d)", int(p))
	}
	return names[p]
}

// Workspace lays out the conversation (left, largest), a side column with
// tool output, timeline and sessions, the input and the status bar. It
// re-flows on resize: the side panes are stacked when there is room
// (≥ 24 rows for them), otherwise only the most recently focused side
// pane is shown; below 70 columns a focused side pane takes the whole
// width. Tab / Shift-Tab cycle the focus (Tab goes to the input instead
// while it completes a slash command).
type Workspace struct {
	*tview.Box
	Conversation *Conversation
	ToolOutput   *ToolOutput
	Timeline     *Timeline
	Sessions     *SessionList
	Input        *Input
	Status       *StatusBar

	focus    PaneID
	lastSide PaneID
	hidden   [paneCount]bool
	theme    themes.Theme
}

// NewWorkspace builds a workspace with fresh views.
func NewWorkspace() *Workspace {
	w := &Workspace{
		Box:          tview.NewBox(),
		Conversation: NewConversation(),
		ToolOutput:   NewToolOutput(),
		Timeline:     NewTimeline(),
		Sessions:     NewSessionList(),
		Input:        NewInput(),
		Status:       NewStatusBar(),
		lastSide:     PaneToolOutput,
		theme:        themes.Default(),
	}
	return w
}

// Pane returns the primitive of a pane (e.g. for Application.SetFocus).
func (w *Workspace) Pane(p PaneID) tview.Primitive {
	switch p {
	case PaneConversation:
		return w.Conversation
	case PaneToolOutput:
		return w.ToolOutput
	case PaneTimeline:
		return w.Timeline
	case PaneSessions:
		return w.Sessions
	}
	return w.Input
}

// SetTheme broadcasts a theme to every view.
func (w *Workspace) SetTheme(t themes.Theme) {
	w.theme = t
	for _, v := range []Themed{w.Conversation, w.ToolOutput, w.Timeline, w.Sessions, w.Input, w.Status} {
		v.SetTheme(t)
	}
}

// Bindings lists the workspace keys.
func (w *Workspace) Bindings() []KeyBinding {
	return []KeyBinding{
		bind("next pane", nil, K(tcell.KeyTab)),
		bind("previous pane", nil, K(tcell.KeyBacktab)),
	}
}

// Focused returns the focused pane.
func (w *Workspace) Focused() PaneID {
	for p := PaneID(0); p < paneCount; p++ {
		if w.Pane(p).HasFocus() {
			w.note(p)
			return p
		}
	}
	return w.focus
}

func (w *Workspace) note(p PaneID) {
	w.focus = p
	if p >= PaneToolOutput {
		w.lastSide = p
	}
}

// FocusPane moves the focus to p through setFocus (the Application's
// SetFocus, or the setFocus passed to a handler).
func (w *Workspace) FocusPane(p PaneID, setFocus func(tview.Primitive)) {
	w.note(p)
	setFocus(w.Pane(p))
}

// Focus delegates to the current pane.
func (w *Workspace) Focus(delegate func(tview.Primitive)) {
	delegate(w.Pane(w.focus))
}

// HasFocus reports whether any pane has focus.
func (w *Workspace) HasFocus() bool {
	for p := PaneID(0); p < paneCount; p++ {
		if w.Pane(p).HasFocus() {
			return true
		}
	}
	return w.Box.HasFocus()
}

// Cycle moves the focus by dir (+1 / -1) in the order input,
// conversation, tool output, timeline, sessions.
func (w *Workspace) Cycle(dir int, setFocus func(tview.Primitive)) {
	p := int(w.Focused())
	p = (p + dir + int(paneCount)) % int(paneCount)
	w.FocusPane(PaneID(p), setFocus)
}

type rect struct{ x, y, w, h int }

// layout computes the pane rectangles; a zero rect means hidden.
func (w *Workspace) layout() [paneCount + 1]rect {
	var r [paneCount + 1]rect // index paneCount = status bar
	x, y, W, H := w.GetRect()
	if W <= 0 || H <= 0 {
		return r
	}
	r[paneCount] = rect{x, y + H - 1, W, 1}
	inH := min(max(3, w.Input.Height(W)), max(3, H/3))
	r[PaneInput] = rect{x, y + H - 1 - inH, W, inH}
	mainH := H - 1 - inH
	if mainH <= 0 {
		return r
	}
	focus := w.Focused()
	side := w.lastSide
	if W < 70 {
		if focus >= PaneToolOutput {
			r[focus] = rect{x, y, W, mainH}
		} else {
			r[PaneConversation] = rect{x, y, W, mainH}
		}
		return r
	}
	sideW := max(30, W*2/5)
	convW := W - sideW
	r[PaneConversation] = rect{x, y, convW, mainH}
	sx := x + convW
	if mainH >= 24 {
		toolH := mainH * 2 / 5
		tlH := (mainH - toolH) / 2
		r[PaneToolOutput] = rect{sx, y, sideW, toolH}
		r[PaneTimeline] = rect{sx, y + toolH, sideW, tlH}
		r[PaneSessions] = rect{sx, y + toolH + tlH, sideW, mainH - toolH - tlH}
		return r
	}
	r[side] = rect{sx, y, sideW, mainH}
	return r
}

// Draw lays out and draws the panes.
func (w *Workspace) Draw(screen tcell.Screen) {
	x, y, W, H := w.GetRect()
	fillRect(screen, x, y, W, H, tcell.StyleDefault.Background(w.theme.Background))
	rs := w.layout()
	tabbed := w.sideTabbed(rs)
	for p := PaneID(0); p < paneCount; p++ {
		r := rs[p]
		prim := w.Pane(p)
		if tp, ok := prim.(interface{ setTabbed(bool) }); ok {
			tp.setTabbed(p == tabbed)
		}
		w.hidden[p] = r.w <= 0 || r.h <= 0
		if w.hidden[p] {
			prim.SetRect(0, 0, 0, 0)
			continue
		}
		prim.SetRect(r.x, r.y, r.w, r.h)
		prim.Draw(screen)
	}
	w.drawSideTabs(screen, rs)
	s := rs[paneCount]
	w.Status.SetRect(s.x, s.y, s.w, s.h)
	w.Status.Draw(screen)
}

// sideTabbed is the lone side pane whose title drawSideTabs replaces by
// tabs in layout rs, or paneCount when none is.
func (w *Workspace) sideTabbed(rs [paneCount + 1]rect) PaneID {
	shown := 0
	var r rect
	var active PaneID
	for p := PaneToolOutput; p < paneCount; p++ {
		if rs[p].w > 0 && rs[p].h > 0 {
			shown++
			r, active = rs[p], p
		}
	}
	if shown != 1 || r.w < 20 {
		return paneCount
	}
	return active
}

// drawSideTabs replaces the title of a lone side pane by tabs naming all
// three side panes, so the user sees what Tab leads to.
func (w *Workspace) drawSideTabs(screen tcell.Screen, rs [paneCount + 1]rect) {
	active := w.sideTabbed(rs)
	if active == paneCount {
		return
	}
	r := rs[active]
	th := w.theme
	focused := w.Pane(active).HasFocus()
	border := th.Border
	if focused {
		border = th.FocusedBorder
	}
	bs := tcell.StyleDefault.Background(th.Background).Foreground(border)
	line := '─'
	if focused {
		line = '═'
	}
	for i := r.x + 1; i < r.x+r.w-1; i++ {
		screen.SetContent(i, r.y, line, nil, bs)
	}
	cx := r.x + 2
	for p := PaneToolOutput; p < paneCount; p++ {
		name := map[PaneID]string{PaneToolOutput: "Tools", PaneTimeline: "Timeline", PaneSessions: "Sessions"}[p]
		st := tcell.StyleDefault.Background(th.Background).Foreground(th.Dim)
		label := " " + name + " "
		if p == active {
			st = st.Foreground(th.Title).Bold(true)
			if focused {
				st = st.Foreground(th.FocusedBorder)
				label = "▶" + name + " "
			}
		}
		cx += drawText(screen, cx, r.y, r.x+r.w-1-cx, label, st)
	}
}

// Visible reports whether pane p was drawn in the last layout.
func (w *Workspace) Visible(p PaneID) bool { return !w.hidden[p] }

// InputHandler cycles focus on Tab / Shift-Tab and passes other keys to
// the focused pane.
func (w *Workspace) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return w.WrapInputHandler(func(ev *tcell.EventKey, setFocus func(tview.Primitive)) {
		focus := w.Focused()
		switch ev.Key() {
		case tcell.KeyTab:
			if !(focus == PaneInput && w.Input.WantsTab()) {
				w.Cycle(1, setFocus)
				return
			}
		case tcell.KeyBacktab:
			w.Cycle(-1, setFocus)
			return
		}
		if h := w.Pane(focus).InputHandler(); h != nil {
			h(ev, setFocus)
		}
	})
}

// PasteHandler passes pastes to the focused pane.
func (w *Workspace) PasteHandler() func(string, func(tview.Primitive)) {
	return w.WrapPasteHandler(func(text string, setFocus func(tview.Primitive)) {
		if h := w.Pane(w.Focused()).PasteHandler(); h != nil {
			h(text, setFocus)
		}
	})
}

// MouseHandler passes mouse events to the pane under the pointer; a click
// focuses it.
func (w *Workspace) MouseHandler() func(tview.MouseAction, *tcell.EventMouse, func(tview.Primitive)) (bool, tview.Primitive) {
	return w.WrapMouseHandler(func(a tview.MouseAction, ev *tcell.EventMouse, setFocus func(tview.Primitive)) (bool, tview.Primitive) {
		if !w.InRect(ev.Position()) {
			return false, nil
		}
		for p := PaneID(0); p < paneCount; p++ {
			if w.hidden[p] {
				continue
			}
			prim := w.Pane(p)
			if h := prim.MouseHandler(); h != nil {
				if ok, capture := h(a, ev, func(target tview.Primitive) {
					w.note(p)
					setFocus(target)
				}); ok {
					return true, capture
				}
			}
		}
		return false, nil
	})
}

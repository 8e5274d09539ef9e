package views

import (
	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/themes"
)

// HelpSection is one group of bindings in the help overlay, usually one
// view's Bindings() or the app's global keys.
type HelpSection struct {
	Title    string
	Bindings []KeyBinding
}

// HelpOverlay lists key bindings and slash commands, generated from the
// views' registries so it never goes stale. Esc, q or ? closes it.
type HelpOverlay struct {
	*tview.Box
	theme    themes.Theme
	sections []HelpSection
	commands []SlashCommand
	top      int
	height   int
	onClose  func()
}

// NewHelpOverlay returns an empty overlay.
func NewHelpOverlay() *HelpOverlay {
	return &HelpOverlay{Box: tview.NewBox(), theme: themes.Default(), height: 10}
}

// SetTheme applies a theme.
func (o *HelpOverlay) SetTheme(t themes.Theme) { o.theme = t }

// SetContent sets the sections and slash commands shown.
func (o *HelpOverlay) SetContent(sections []HelpSection, commands []SlashCommand) {
	o.sections, o.commands, o.top = sections, commands, 0
}

// SetOnClose sets the callback for Esc/q/?.
func (o *HelpOverlay) SetOnClose(f func()) { o.onClose = f }

// Bindings lists the overlay's own keys.
func (o *HelpOverlay) Bindings() []KeyBinding {
	return []KeyBinding{bind("close help", nil, K(tcell.KeyEsc), R('q'), R('?')), bind("scroll", nil, R('j'), R('k'))}
}

// maxHelpKeyW is the widest key column of the help overlay.
const maxHelpKeyW = 16

type helpRow struct {
	key, desc string
	heading   bool
	danger    bool
	disabled  bool // drawn dimmed; desc ends with the reason
}

// withReason is a description with why it is disabled now, if it is.
func withReason(desc string, reason func() string) (string, bool) {
	if reason == nil {
		return desc, false
	}
	if r := reason(); r != "" {
		return desc + " (" + r + ")", true
	}
	return desc, false
}

func (o *HelpOverlay) rows() []helpRow {
	var rows []helpRow
	for _, s := range o.sections {
		vis := Keymap(s.Bindings).Visible()
		if len(vis) == 0 {
			continue
		}
		if len(rows) > 0 {
			rows = append(rows, helpRow{})
		}
		rows = append(rows, helpRow{desc: s.Title, heading: true})
		for _, b := range vis {
			desc, off := withReason(b.Description, b.DisabledReason)
			rows = append(rows, helpRow{key: b.Label(), desc: desc, danger: b.Dangerous, disabled: off})
		}
	}
	if len(o.commands) > 0 {
		if len(rows) > 0 {
			rows = append(rows, helpRow{})
		}
		rows = append(rows, helpRow{desc: "Slash commands", heading: true})
		for _, c := range o.commands {
			k := c.Name
			if c.Args != "" {
				k += " " + c.Args
			}
			desc, off := withReason(c.Description, c.DisabledReason)
			rows = append(rows, helpRow{key: k, desc: desc, disabled: off})
		}
	}
	return rows
}

// wrapHelpRows lays the rows out for columns colW wide: a description
// wraps onto rows of its own (never cut mid-word), and a key wider than
// keyW gets its own row with the description below it.
func wrapHelpRows(rows []helpRow, keyW, colW int) []helpRow {
	descW := max(8, colW-keyW-3)
	var out []helpRow
	for _, r := range rows {
		if r.heading || r.key == "" {
			out = append(out, r)
			continue
		}
		desc := wrapSpans([]Span{{Text: r.desc}}, descW, nil, nil)
		if strWidth(r.key) > keyW {
			out = append(out, helpRow{key: r.key, danger: r.danger, disabled: r.disabled})
		} else {
			out = append(out, helpRow{key: r.key, desc: desc[0].String(), danger: r.danger, disabled: r.disabled})
			desc = desc[1:]
		}
		for _, l := range desc {
			out = append(out, helpRow{desc: l.String(), danger: r.danger, disabled: r.disabled})
		}
	}
	return out
}

// keepTogether moves a binding whose wrapped rows would straddle the
// column break at row perCol to the top of the second column.
func keepTogether(rows []helpRow, perCol int) []helpRow {
	if perCol >= len(rows) {
		return rows
	}
	g := perCol
	for g > 0 && !rows[g].heading && rows[g].key == "" && rows[g].desc != "" {
		g--
	}
	if g == perCol || g == 0 {
		return rows
	}
	pad := make([]helpRow, perCol-g)
	return append(append(append([]helpRow(nil), rows[:g]...), pad...), rows[g:]...)
}

// Draw draws the centred overlay (two columns when wide enough).
func (o *HelpOverlay) Draw(screen tcell.Screen) {
	th := o.theme
	_, _, W, H := o.GetRect()
	rows := o.rows()
	bx, by, bw, bh := modalRect(o.Box, min(W-4, 120), H-2)
	x, y, w, h := drawModalFrame(screen, th, bx, by, bw, bh, "Help — Esc closes", th.FocusedBorder)
	if w <= 0 || h <= 0 {
		return
	}
	base := tcell.StyleDefault.Background(th.ModalBg).Foreground(th.Text)
	// the key column fits the usual keys; a rare longer one gets a row of
	// its own (wrapHelpRows), so the descriptions keep their room
	keyW := 0
	for _, r := range rows {
		if kw := strWidth(r.key); !r.heading && kw <= maxHelpKeyW {
			keyW = max(keyW, kw)
		}
	}
	cols := 1
	if w >= 2*(keyW+30) && len(wrapHelpRows(rows, keyW, w)) > h {
		cols = 2
	}
	colW := w / cols
	rows = wrapHelpRows(rows, keyW, colW)
	perCol := h
	if cols == 2 {
		rows = keepTogether(rows, perCol)
	}
	o.height = perCol * cols
	o.top = max(0, min(o.top, len(rows)-o.height))
	if o.top+o.height < len(rows) {
		more := " ↓ more: j/k, PgDn "
		drawText(screen, bx+bw-strWidth(more)-2, by+bh-1, strWidth(more), more, base.Foreground(th.Dim))
	}
	for i := 0; i < perCol*cols && o.top+i < len(rows); i++ {
		r := rows[o.top+i]
		cx := x + (i/perCol)*colW
		cy := y + i%perCol
		switch {
		case r.heading:
			drawText(screen, cx, cy, colW-1, r.desc, base.Foreground(th.Heading).Bold(true))
		case r.key != "":
			ks := base.Foreground(th.Accent).Bold(true)
			ds := base
			if r.danger {
				ks = base.Foreground(th.Error).Bold(true)
				ds = base.Foreground(th.Error)
			}
			if r.disabled {
				ks, ds = base.Foreground(th.Dim), base.Foreground(th.Dim)
			}
			drawText(screen, cx, cy, colW-1, r.key, ks)
			drawText(screen, cx+keyW+2, cy, colW-keyW-3, r.desc, ds)
		case r.desc != "":
			ds := base
			if r.danger {
				ds = base.Foreground(th.Error)
			}
			if r.disabled {
				ds = base.Foreground(th.Dim)
			}
			drawText(screen, cx+keyW+2, cy, colW-keyW-3, r.desc, ds)
		}
	}
}

// InputHandler scrolls and closes.
func (o *HelpOverlay) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return o.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) {
		switch {
		case ev.Key() == tcell.KeyEsc || ev.Key() == tcell.KeyRune && (ev.Rune() == 'q' || ev.Rune() == '?'):
			if o.onClose != nil {
				o.onClose()
			}
		case ev.Key() == tcell.KeyDown || ev.Key() == tcell.KeyRune && ev.Rune() == 'j':
			o.top++
		case ev.Key() == tcell.KeyUp || ev.Key() == tcell.KeyRune && ev.Rune() == 'k':
			o.top = max(0, o.top-1)
		case ev.Key() == tcell.KeyPgDn:
			o.top += o.height
		case ev.Key() == tcell.KeyPgUp:
			o.top = max(0, o.top-o.height)
		}
	})
}

// MouseHandler scrolls and swallows clicks.
func (o *HelpOverlay) MouseHandler() func(tview.MouseAction, *tcell.EventMouse, func(tview.Primitive)) (bool, tview.Primitive) {
	return o.WrapMouseHandler(func(a tview.MouseAction, _ *tcell.EventMouse, _ func(tview.Primitive)) (bool, tview.Primitive) {
		switch a {
		case tview.MouseScrollUp:
			o.top = max(0, o.top-3)
		case tview.MouseScrollDown:
			o.top += 3
		}
		return true, nil
	})
}

package views

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/themes"
)

// TrustServer is one server of a project's MCP file as the trust dialog
// shows it: what it runs, and the names (never the values) of what it sets.
type TrustServer struct {
	Name    string
	Command string // the command line, or the URL of an HTTP server
	URL     bool   // Command is a URL
	Env     []string
	Headers []string
}

// TrustRequest is the trust dialog's view model.
type TrustRequest struct {
	File    string
	Changed bool // another content of the file was trusted before
	Servers []TrustServer
}

// TrustDialog asks whether a project's MCP file may start its servers.
// Keys: t trusts, n/Esc declines, j/k/PgDn/PgUp/End scroll. Every command is
// shown whole, wrapped, with hidden characters named (as in the approval
// modal), and t does nothing until the end of the list has been on screen:
// what the user trusts is what they saw.
type TrustDialog struct {
	*tview.Box
	theme    themes.Theme
	req      TrustRequest
	rows     []Line
	rowsW    int
	top      int
	bodyH    int
	seenEnd  bool
	onChoose func(trust bool)
	keys     Keymap
}

// NewTrustDialog returns an empty dialog.
func NewTrustDialog() *TrustDialog {
	d := &TrustDialog{Box: tview.NewBox(), theme: themes.Default(), bodyH: 10}
	d.keys = Keymap{
		bind("trust the file and start its servers", func() { d.choose(true) }, R('t')),
		{Keys: []Key{R('n'), K(tcell.KeyEsc)}, Description: "not now: its servers stay stopped", Handler: func() { d.choose(false) }, Visible: true, Dangerous: true},
		bind("scroll", func() { d.scroll(1) }, R('j'), K(tcell.KeyDown)),
		{Keys: []Key{R('k'), K(tcell.KeyUp)}, Description: "scroll up", Handler: func() { d.scroll(-1) }},
		{Keys: []Key{K(tcell.KeyPgDn), R(' ')}, Description: "page down", Handler: func() { d.scroll(d.bodyH - 1) }},
		{Keys: []Key{K(tcell.KeyPgUp)}, Description: "page up", Handler: func() { d.scroll(-(d.bodyH - 1)) }},
		{Keys: []Key{K(tcell.KeyEnd), R('G')}, Description: "to the end", Handler: func() { d.scroll(len(d.rows)) }},
	}
	return d
}

// SetTheme applies a theme.
func (d *TrustDialog) SetTheme(t themes.Theme) { d.theme, d.rows = t, nil }

// Bindings lists the dialog's keys.
func (d *TrustDialog) Bindings() []KeyBinding { return d.keys }

// Show sets the file to ask about; onChoose gets the answer once.
func (d *TrustDialog) Show(r TrustRequest, onChoose func(trust bool)) {
	d.req, d.onChoose = r, onChoose
	d.rows, d.rowsW, d.top, d.seenEnd = nil, 0, 0, false
}

// Shown reports whether the end of the list has been on screen, which
// enables t.
func (d *TrustDialog) Shown() bool { return d.seenEnd }

// Decline answers "not now" (the typing guard's way to close the dialog).
func (d *TrustDialog) Decline() { d.choose(false) }

func (d *TrustDialog) choose(trust bool) {
	if trust && !d.seenEnd {
		return
	}
	if f := d.onChoose; f != nil {
		d.onChoose = nil
		f(trust)
	}
}

func (d *TrustDialog) scroll(n int) {
	d.top = max(0, min(d.top+n, len(d.rows)-d.bodyH))
}

// layout is the dialog's body for w columns.
func (d *TrustDialog) layout(w int, base tcell.Style) []Line {
	th := d.theme
	var rows []Line
	text := func(s string, st tcell.Style) {
		rows = append(rows, wrapSpans([]Span{{s, st}}, w, nil, nil)...)
	}
	token := base.Foreground(th.Warning).Bold(true)
	revealed := func(first Line, s string, st tcell.Style) {
		spans := revealSpans(s, st, token)
		rows = append(rows, hardWrap(spans, w, first, Line{{"    ", base}}, token)...)
	}
	text(SanitizeLine(d.req.File), base.Foreground(th.Accent).Bold(true))
	if d.req.Changed {
		text("changed since you trusted it: review it again.", base.Foreground(th.Warning).Bold(true))
	}
	n := len(d.req.Servers)
	text(fmt.Sprintf("This project's MCP file starts %d %s as you, with your files and network. Trust it only if you know what %s.",
		n, words.Plural(n, "program", "programs"), words.Plural(n, "it does", "they do")), base)
	for _, s := range d.req.Servers {
		rows = append(rows, Line{})
		revealed(Line{{"● ", base.Foreground(th.Accent)}}, s.Name, base.Bold(true))
		prompt := "  $ "
		if s.URL {
			prompt = "  url: "
		}
		revealed(Line{{prompt, base.Foreground(th.Accent).Bold(true)}}, s.Command, base.Foreground(th.Tool).Bold(true))
		if len(s.Env) > 0 {
			revealed(Line{{"    env: ", base.Foreground(th.Dim)}}, strings.Join(s.Env, ", "), base)
		}
		if len(s.Headers) > 0 {
			revealed(Line{{"    headers: ", base.Foreground(th.Dim)}}, strings.Join(s.Headers, ", "), base)
		}
	}
	rows = append(rows, Line{})
	text("Trust holds for this exact content: a change asks again. rewind mcp untrust takes it back.", base.Foreground(th.Dim))
	return rows
}

// Draw draws the centred dialog.
func (d *TrustDialog) Draw(screen tcell.Screen) {
	th := d.theme
	_, _, W, H := d.GetRect()
	bw := min(max(60, W-8), 110)
	base := tcell.StyleDefault.Background(th.ModalBg).Foreground(th.Text)
	if w := bw - 4; d.rows == nil || d.rowsW != w { // the frame's inner width
		d.rows, d.rowsW = d.layout(w, base), w
	}
	// As tall as the list (plus the frame, the more line and the keys),
	// within the screen.
	bx, by, bw, bh := modalRect(d.Box, bw, min(max(12, len(d.rows)+4), H-2))
	x, y, w, h := drawModalFrame(screen, th, bx, by, bw, bh, "Trust this project's MCP servers?", th.Warning)
	if w <= 0 || h < 3 {
		return
	}
	if d.rowsW != w {
		d.rows, d.rowsW = d.layout(w, base), w
	}
	d.bodyH = max(1, h-2)
	d.top = max(0, min(d.top, len(d.rows)-d.bodyH))
	for r := 0; r < d.bodyH && d.top+r < len(d.rows); r++ {
		drawLine(screen, x, y+r, w, d.rows[d.top+r])
	}
	left := len(d.rows) - (d.top + d.bodyH)
	if left <= 0 {
		d.seenEnd = true
	} else {
		more := fmt.Sprintf(" ↓ %d more %s below · j/PgDn/End · t needs the end ", left, words.Plural(left, "line", "lines"))
		drawText(screen, x, y+d.bodyH, w, more, base.Foreground(th.Warning).Bold(true))
	}
	cx, fy := x, y+h-1
	trust := base.Foreground(th.ToolOK).Bold(true)
	label := base
	if !d.seenEnd {
		trust, label = base.Foreground(th.Dim).Bold(true), base.Foreground(th.Dim)
	}
	cx += drawText(screen, cx, fy, x+w-cx, "[t] ", trust)
	cx += drawText(screen, cx, fy, x+w-cx, "trust and start", label) + buttonGap
	cx += drawText(screen, cx, fy, x+w-cx, "[n] ", base.Foreground(th.Error).Bold(true))
	drawText(screen, cx, fy, x+w-cx, "not now", base)
}

// InputHandler maps the keys.
func (d *TrustDialog) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return d.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) {
		d.keys.Handle(ev)
	})
}

// MouseHandler scrolls and swallows clicks (the dialog is modal).
func (d *TrustDialog) MouseHandler() func(tview.MouseAction, *tcell.EventMouse, func(tview.Primitive)) (bool, tview.Primitive) {
	return d.WrapMouseHandler(func(a tview.MouseAction, _ *tcell.EventMouse, _ func(tview.Primitive)) (bool, tview.Primitive) {
		switch a {
		case tview.MouseScrollUp:
			d.scroll(-3)
		case tview.MouseScrollDown:
			d.scroll(3)
		}
		return true, nil
	})
}

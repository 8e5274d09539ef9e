package views

import (
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/themes"
)

// Choice is one button of a ConfirmDialog.
type Choice struct {
	Label     string
	Key       rune // hotkey (0 = none)
	Dangerous bool // drawn in the error colour
}

// ConfirmDialog asks a question with several choices, e.g. "Revert to
// checkpoint 3? 12 messages will be archived (not deleted)" with
// "conversation only / conversation + files / files only / cancel".
// Keys: ←/→/Tab move, Enter chooses, a choice's hotkey chooses it, Esc
// cancels (index -1).
type ConfirmDialog struct {
	*tview.Box
	theme    themes.Theme
	title    string
	message  string
	choices  []Choice
	selected int
	onChoose func(index int)
	// armed: the dialog takes choices; until then (its first moments,
	// when a key was likely meant for the input) it says so.
	armed bool
}

// NewConfirmDialog returns an empty dialog.
func NewConfirmDialog() *ConfirmDialog {
	return &ConfirmDialog{Box: tview.NewBox(), theme: themes.Default(), armed: true}
}

// SetArmed says whether the dialog takes choices yet; an unarmed one shows
// "arming" under its choices.
func (d *ConfirmDialog) SetArmed(on bool) { d.armed = on }

// SetTheme applies a theme.
func (d *ConfirmDialog) SetTheme(t themes.Theme) { d.theme = t }

// Show sets the question; selected is the default choice.
func (d *ConfirmDialog) Show(title, message string, choices []Choice, selected int, onChoose func(index int)) {
	d.title = SanitizeLine(title)
	d.message = Sanitize(message)
	d.choices = make([]Choice, len(choices))
	for i, c := range choices {
		c.Label = SanitizeLine(c.Label)
		d.choices[i] = c
	}
	d.selected = max(0, min(selected, len(choices)-1))
	d.onChoose = onChoose
}

// Selected returns the highlighted choice.
func (d *ConfirmDialog) Selected() int { return d.selected }

// Bindings lists the dialog's keys.
func (d *ConfirmDialog) Bindings() []KeyBinding {
	bs := []KeyBinding{
		bind("next choice", nil, K(tcell.KeyRight), K(tcell.KeyTab)),
		bind("previous choice", nil, K(tcell.KeyLeft), K(tcell.KeyBacktab)),
		bind("choose", nil, K(tcell.KeyEnter)),
		bind("cancel", nil, K(tcell.KeyEsc)),
	}
	for _, c := range d.choices {
		if c.Key != 0 {
			bs = append(bs, KeyBinding{Keys: []Key{R(c.Key)}, Description: c.Label, Visible: true, Dangerous: c.Dangerous})
		}
	}
	return bs
}

func (d *ConfirmDialog) choose(i int) {
	if d.onChoose != nil {
		d.onChoose(i)
	}
}

// Draw draws the centred dialog.
func (d *ConfirmDialog) Draw(screen tcell.Screen) {
	th := d.theme
	_, _, W, _ := d.GetRect()
	w := min(max(50, W/2), 90)
	body := wrapSpans([]Span{{d.message, tcell.StyleDefault}}, w-4, nil, nil)
	bx, by, bw, bh := modalRect(d.Box, w, len(body)+2+len(d.choices)+1+1)
	x, y, iw, ih := drawModalFrame(screen, th, bx, by, bw, bh, d.title, th.FocusedBorder)
	base := tcell.StyleDefault.Background(th.ModalBg).Foreground(th.Text)
	for i, l := range body {
		if i >= ih {
			return
		}
		drawText(screen, x, y+i, iw, l.String(), base)
	}
	cy := y + len(body) + 1
	for i, c := range d.choices {
		if cy+i >= y+ih {
			break
		}
		st := base
		if c.Dangerous {
			st = st.Foreground(th.Error)
		}
		label := c.Label
		if c.Key != 0 {
			label = "[" + string(c.Key) + "] " + label
		}
		if i == d.selected {
			st = st.Background(th.SelectionBg).Bold(true)
			if !c.Dangerous {
				st = st.Foreground(th.SelectionFg)
			}
			fill(screen, x, cy+i, iw, st)
			label = "▶ " + label
		} else {
			label = "  " + label
		}
		drawText(screen, x, cy+i, iw, label, st)
	}
	if note := cy + len(d.choices); !d.armed && note < y+ih {
		drawText(screen, x, note, iw, "  arming: keys count in a moment", base.Foreground(th.Dim).Italic(true))
	}
}

// InputHandler moves, chooses and cancels.
func (d *ConfirmDialog) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return d.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) {
		switch ev.Key() {
		case tcell.KeyRight, tcell.KeyDown, tcell.KeyTab:
			d.selected = (d.selected + 1) % max(1, len(d.choices))
		case tcell.KeyLeft, tcell.KeyUp, tcell.KeyBacktab:
			d.selected = (d.selected - 1 + len(d.choices)) % max(1, len(d.choices))
		case tcell.KeyEnter:
			if len(d.choices) > 0 {
				d.choose(d.selected)
			}
		case tcell.KeyEsc:
			d.choose(-1)
		case tcell.KeyRune:
			for i, c := range d.choices {
				if c.Key != 0 && c.Key == ev.Rune() {
					d.selected = i
					d.choose(i)
					return
				}
			}
		}
	})
}

// MouseHandler chooses a clicked choice.
func (d *ConfirmDialog) MouseHandler() func(tview.MouseAction, *tcell.EventMouse, func(tview.Primitive)) (bool, tview.Primitive) {
	return d.WrapMouseHandler(func(a tview.MouseAction, ev *tcell.EventMouse, _ func(tview.Primitive)) (bool, tview.Primitive) {
		if a != tview.MouseLeftClick {
			return true, nil
		}
		_, my := ev.Position()
		_, _, W, _ := d.GetRect()
		w := min(max(50, W/2), 90)
		body := wrapSpans([]Span{{d.message, tcell.StyleDefault}}, w-4, nil, nil)
		_, by, _, _ := modalRect(d.Box, w, len(body)+2+len(d.choices)+2)
		if i := my - (by + 1 + len(body) + 1); i >= 0 && i < len(d.choices) {
			d.selected = i
			d.choose(i)
		}
		return true, nil
	})
}

// PromptDialog asks for one line of text (rename, export path, feedback).
// Enter confirms, Esc cancels.
type PromptDialog struct {
	*tview.Box
	theme  themes.Theme
	title  string
	label  string
	field  lineEditor
	onDone func(text string, ok bool)
}

// NewPromptDialog returns an empty prompt.
func NewPromptDialog() *PromptDialog {
	return &PromptDialog{Box: tview.NewBox(), theme: themes.Default()}
}

// SetTheme applies a theme.
func (p *PromptDialog) SetTheme(t themes.Theme) { p.theme = t }

// Show sets the question and the initial text.
func (p *PromptDialog) Show(title, label, initial string, onDone func(text string, ok bool)) {
	p.title, p.label = SanitizeLine(title), SanitizeLine(label)
	p.field.set(initial)
	p.onDone = onDone
}

// Text returns the current text.
func (p *PromptDialog) Text() string { return p.field.String() }

// Bindings lists the prompt's keys.
func (p *PromptDialog) Bindings() []KeyBinding {
	return []KeyBinding{bind("confirm", nil, K(tcell.KeyEnter)), bind("cancel", nil, K(tcell.KeyEsc))}
}

// Draw draws the centred prompt.
func (p *PromptDialog) Draw(screen tcell.Screen) {
	th := p.theme
	_, _, W, _ := p.GetRect()
	bx, by, bw, bh := modalRect(p.Box, min(max(50, W/2), 100), 6)
	x, y, w, h := drawModalFrame(screen, th, bx, by, bw, bh, p.title, th.FocusedBorder)
	if w <= 0 || h < 2 {
		return
	}
	base := tcell.StyleDefault.Background(th.ModalBg).Foreground(th.Text)
	drawText(screen, x, y, w, p.label, base)
	p.field.draw(screen, x, y+1, w, base.Background(th.SelectionBg).Foreground(th.SelectionFg), true)
	hint := "Enter confirm · Esc cancel"
	if h > 3 {
		drawText(screen, x+w-strWidth(hint), y+h-1, w, hint, base.Foreground(th.Dim))
	}
}

// InputHandler edits, confirms and cancels.
func (p *PromptDialog) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return p.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) {
		switch ev.Key() {
		case tcell.KeyEnter:
			if p.onDone != nil {
				p.onDone(strings.TrimSpace(p.field.String()), true)
			}
		case tcell.KeyEsc:
			if p.onDone != nil {
				p.onDone("", false)
			}
		default:
			p.field.handle(ev)
		}
	})
}

// PasteHandler pastes into the field.
func (p *PromptDialog) PasteHandler() func(string, func(tview.Primitive)) {
	return p.WrapPasteHandler(func(s string, _ func(tview.Primitive)) { p.field.paste(s) })
}

// MouseHandler swallows mouse events (the dialog is modal).
func (p *PromptDialog) MouseHandler() func(tview.MouseAction, *tcell.EventMouse, func(tview.Primitive)) (bool, tview.Primitive) {
	return p.WrapMouseHandler(func(tview.MouseAction, *tcell.EventMouse, func(tview.Primitive)) (bool, tview.Primitive) {
		return true, nil
	})
}

package views

import (
	"sort"
	"strings"

	"github.com/gdamore/tcell/v2"
	"github.com/mattn/go-runewidth"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/themes"
)

// maxInputRows bounds the text area's height; longer text scrolls.
const maxInputRows = 8

// maxHintRows bounds the completion hint rows.
const maxHintRows = 4

// Input is the multi-line prompt editor.
//
// Keys (tcell delivers Alt-Enter as KeyEnter+ModAlt, and under tmux, which
// sends Esc+CR, as the rune 'm' with Alt+Ctrl; Shift-Enter arrives as
// KeyEnter+ModShift only on terminals with the kitty/CSI-u or
// modifyOtherKeys protocol, which tcell enables; Ctrl-J as KeyCtrlJ works
// everywhere): Enter sends; Alt-Enter, Shift-Enter, Ctrl-J insert a
// newline; Up/Down walk the history from the first/last line; while a
// leading slash command is typed, Up/Down and Tab move through the slash
// menu instead. Esc, Ctrl-C and Tab-between-panes are left to the app's
// input capture.
type Input struct {
	pane
	lines     [][]rune
	row, col  int
	history   []string
	histPos   int // len(history) = editing a new entry
	draft     string
	commands  []SlashCommand
	matches   []SlashCommand
	disabled  string
	holder    string
	onSubmit  func(text string)
	scrollRow int
	keys      Keymap

	// Slash menu (slashmenu.go): selected match, first visible match, and
	// whether a history recall keeps it closed until the next edit.
	menuSel, menuTop int
	menuHidden       bool

	search *historySearch // non-nil during a Ctrl-R search (input_search.go)
	pastes []pastedBlock  // long pastes shown folded (input_paste.go)
	onSend func(text, shown string)
}

// altEnterTmux is Alt-Enter as tcell reads tmux's Esc+CR: Ctrl-M with Alt.
var altEnterTmux = Key{Key: tcell.KeyRune, Rune: 'm', Mod: tcell.ModAlt | tcell.ModCtrl}

// NewInput returns an empty input.
func NewInput() *Input {
	in := &Input{pane: newPane("Input"), lines: [][]rune{{}},
		holder: "Ask anything · / for commands · Alt-Enter for a newline"}
	in.keys = Keymap{
		bind("send", in.submit, K(tcell.KeyEnter)),
		bind("new line", in.newline, K(tcell.KeyEnter, tcell.ModAlt), K(tcell.KeyEnter, tcell.ModShift), K(tcell.KeyCtrlJ)),
		{Keys: []Key{altEnterTmux}, Description: "new line (Alt-Enter under tmux)", Handler: in.newline},
		bind("previous history entry / line up / slash menu up", in.up, K(tcell.KeyUp)),
		bind("next history entry / line down / slash menu down", in.down, K(tcell.KeyDown)),
		bind("complete slash command / next in the slash menu", in.complete, K(tcell.KeyTab)),
		{Keys: []Key{K(tcell.KeyLeft)}, Description: "cursor left", Handler: in.left},
		{Keys: []Key{K(tcell.KeyRight)}, Description: "cursor right", Handler: in.right},
		{Keys: []Key{K(tcell.KeyHome), K(tcell.KeyCtrlA)}, Description: "start of line", Handler: func() { in.col = 0 }},
		{Keys: []Key{K(tcell.KeyEnd), K(tcell.KeyCtrlE)}, Description: "end of line", Handler: func() { in.col = len(in.lines[in.row]) }},
		{Keys: []Key{K(tcell.KeyBackspace), K(tcell.KeyBackspace2)}, Description: "delete back", Handler: in.backspace},
		{Keys: []Key{K(tcell.KeyDelete)}, Description: "delete", Handler: in.delete},
		bind("delete to start of line", in.killLine, K(tcell.KeyCtrlU)),
		bind("delete word back", in.killWord, K(tcell.KeyCtrlW)),
		bind("search the input history (again: older match)", in.startSearch, K(tcell.KeyCtrlR)),
		{Keys: []Key{K(tcell.KeyEsc)}, Description: "close the slash menu", Handler: func() { in.menuHidden = true }},
	}
	return in
}

// SetTheme applies a theme.
func (in *Input) SetTheme(t themes.Theme) { in.setTheme(t) }

// Bindings lists the input's keys.
func (in *Input) Bindings() []KeyBinding { return in.keys }

// SetOnSubmit sets the callback for Enter (text is never empty).
func (in *Input) SetOnSubmit(f func(text string)) { in.onSubmit = f }

// SetCommands sets the slash commands offered by Tab completion.
func (in *Input) SetCommands(cmds []SlashCommand) {
	in.commands = append([]SlashCommand(nil), cmds...)
	sort.Slice(in.commands, func(i, j int) bool { return in.commands[i].Name < in.commands[j].Name })
	in.updateMatches()
}

// SetHistory replaces the history (oldest first).
func (in *Input) SetHistory(h []string) {
	in.history = append([]string(nil), h...)
	in.histPos = len(in.history)
}

// History returns the history (oldest first).
func (in *Input) History() []string { return in.history }

// SetPlaceholder sets the dim text shown when empty.
func (in *Input) SetPlaceholder(s string) { in.holder = SanitizeLine(s) }

// SetDisabled makes the input read-only with a reason ("" enables it).
func (in *Input) SetDisabled(reason string) { in.disabled = SanitizeLine(reason) }

// Text returns the current text.
func (in *Input) Text() string {
	parts := make([]string, len(in.lines))
	for i, l := range in.lines {
		parts[i] = string(l)
	}
	return strings.Join(parts, "\n")
}

// SetText replaces the text and puts the cursor at the end.
func (in *Input) SetText(s string) {
	s = Sanitize(s)
	if s == "" {
		in.pastes = nil
	}
	in.lines = nil
	for _, l := range strings.Split(s, "\n") {
		in.lines = append(in.lines, []rune(l))
	}
	in.row = len(in.lines) - 1
	in.col = len(in.lines[in.row])
	in.updateMatches()
}

// WantsTab reports whether Tab should go to the input (a slash command is
// being completed) rather than cycle panes.
func (in *Input) WantsTab() bool { return in.menuOpen() || in.search != nil }

// Matches returns the slash commands matching the current text.
func (in *Input) Matches() []SlashCommand { return in.matches }

func (in *Input) submit() {
	text := strings.TrimSpace(in.Text())
	if text == "" || in.disabled != "" {
		return
	}
	if !in.takeMenuSelection() {
		return
	}
	shown := in.Text()
	full := in.expandPastes(shown)
	if n := len(in.history); n == 0 || in.history[n-1] != full {
		in.history = append(in.history, full)
	}
	in.histPos = len(in.history)
	in.SetText("")
	in.draft = ""
	switch {
	case in.onSend != nil:
		in.onSend(full, shown)
	case in.onSubmit != nil:
		in.onSubmit(full)
	}
}

// Stash empties the input and keeps what it held as the newest history
// entry, so Up brings it back (Ctrl-C's clear, a draft a revert's prompt
// replaces). The entry lives in this input only: it was never sent.
func (in *Input) Stash() {
	text := in.expandPastes(in.Text())
	if strings.TrimSpace(text) == "" {
		return
	}
	if n := len(in.history); n == 0 || in.history[n-1] != text {
		in.history = append(in.history, text)
	}
	in.histPos = len(in.history)
	in.SetText("")
	in.draft = ""
}

// Insert types s at the cursor, as if typed (keys a pane took for its own
// before they turned out to be typing).
func (in *Input) Insert(s string) { in.insert([]rune(SanitizeLine(s))...) }

func (in *Input) insert(rs ...rune) {
	l := in.lines[in.row]
	nl := make([]rune, 0, len(l)+len(rs))
	nl = append(append(append(nl, l[:in.col]...), rs...), l[in.col:]...)
	in.lines[in.row] = nl
	in.col += len(rs)
	in.updateMatches()
}

func (in *Input) newline() {
	l := in.lines[in.row]
	head := append([]rune(nil), l[:in.col]...)
	tail := append([]rune(nil), l[in.col:]...)
	in.lines[in.row] = head
	in.lines = append(in.lines[:in.row+1], append([][]rune{tail}, in.lines[in.row+1:]...)...)
	in.row++
	in.col = 0
	in.updateMatches()
}

func (in *Input) up() {
	if in.menuOpen() {
		in.menuMove(-1)
		return
	}
	if in.row > 0 {
		in.row--
		in.col = min(in.col, len(in.lines[in.row]))
		return
	}
	if in.histPos == 0 {
		return
	}
	if in.histPos == len(in.history) {
		in.draft = in.Text()
	}
	in.histPos--
	in.recall(in.history[in.histPos])
}

// recall shows a history entry; a recalled slash command does not open the
// slash menu, so Up/Down keep walking the history.
func (in *Input) recall(s string) {
	in.SetText(s)
	in.menuHidden = true
}

func (in *Input) down() {
	if in.menuOpen() {
		in.menuMove(1)
		return
	}
	if in.row < len(in.lines)-1 {
		in.row++
		in.col = min(in.col, len(in.lines[in.row]))
		return
	}
	if in.histPos >= len(in.history) {
		return
	}
	in.histPos++
	if in.histPos == len(in.history) {
		in.SetText(in.draft)
	} else {
		in.recall(in.history[in.histPos])
	}
}

func (in *Input) left() {
	if in.col > 0 {
		in.col--
	} else if in.row > 0 {
		in.row--
		in.col = len(in.lines[in.row])
	}
}

func (in *Input) right() {
	if in.col < len(in.lines[in.row]) {
		in.col++
	} else if in.row < len(in.lines)-1 {
		in.row++
		in.col = 0
	}
}

func (in *Input) backspace() {
	if in.col > 0 {
		l := in.lines[in.row]
		in.lines[in.row] = append(l[:in.col-1:in.col-1], l[in.col:]...)
		in.col--
	} else if in.row > 0 {
		prev := in.lines[in.row-1]
		in.col = len(prev)
		in.lines[in.row-1] = append(prev, in.lines[in.row]...)
		in.lines = append(in.lines[:in.row], in.lines[in.row+1:]...)
		in.row--
	}
	in.updateMatches()
}

func (in *Input) delete() {
	l := in.lines[in.row]
	if in.col < len(l) {
		in.lines[in.row] = append(l[:in.col:in.col], l[in.col+1:]...)
	} else if in.row < len(in.lines)-1 {
		in.lines[in.row] = append(l, in.lines[in.row+1]...)
		in.lines = append(in.lines[:in.row+1], in.lines[in.row+2:]...)
	}
	in.updateMatches()
}

func (in *Input) killLine() {
	in.lines[in.row] = append([]rune(nil), in.lines[in.row][in.col:]...)
	in.col = 0
	in.updateMatches()
}

func (in *Input) killWord() {
	l := in.lines[in.row]
	i := wordStart(l, in.col)
	in.lines[in.row] = append(l[:i:i], l[in.col:]...)
	in.col = i
	in.updateMatches()
}

// wordStart is where the word before i starts in l (Ctrl-W deletes from
// there): spaces before i are skipped, then the word.
func wordStart(l []rune, i int) int {
	for i > 0 && l[i-1] == ' ' {
		i--
	}
	for i > 0 && l[i-1] != ' ' {
		i--
	}
	return i
}

// commandWord returns the leading "/word" being typed, if any.
func (in *Input) commandWord() (string, bool) {
	if len(in.lines) != 1 {
		return "", false
	}
	s := string(in.lines[0])
	if !strings.HasPrefix(s, "/") || strings.ContainsRune(s, ' ') {
		return "", false
	}
	return s, true
}

func (in *Input) updateMatches() {
	in.matches = in.matches[:0]
	in.menuSel, in.menuTop, in.menuHidden = 0, 0, false
	w, ok := in.commandWord()
	if !ok {
		return
	}
	for _, c := range in.commands {
		if strings.HasPrefix(c.Name, w) {
			in.matches = append(in.matches, c)
		}
	}
}

// complete extends a leading slash command: a single match is completed
// (with a trailing space when it takes arguments), several are completed
// to their common prefix, and once that is typed Tab moves down the menu.
func (in *Input) complete() {
	if !in.menuOpen() {
		return
	}
	if len(in.matches) == 1 {
		m := in.matches[0]
		text := m.Name
		if m.Args != "" {
			text += " "
		}
		in.SetText(text)
		return
	}
	prefix := in.matches[0].Name
	for _, m := range in.matches[1:] {
		for !strings.HasPrefix(m.Name, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	if len(prefix) > len(in.Text()) {
		in.SetText(prefix)
		return
	}
	in.menuMove(1)
}

// visual rows: each logical line split into chunks of width w.
type vrow struct{ line, start, end int }

func (in *Input) vrows(w int) []vrow {
	var out []vrow
	for i, l := range in.lines {
		start, cw := 0, 0
		for j, r := range l {
			rw := max(1, runewidth.RuneWidth(r))
			if cw+rw > w && j > start {
				out = append(out, vrow{i, start, j})
				start, cw = j, 0
			}
			cw += rw
		}
		out = append(out, vrow{i, start, len(l)})
	}
	return out
}

// Height is the rows the input wants: text rows (up to maxInputRows),
// completion hint rows, and the border. The Workspace asks for it on
// every draw.
func (in *Input) Height(width int) int {
	w := max(1, width-2)
	n := min(len(in.vrows(w)), maxInputRows)
	return n + in.menuRows() + 2
}

// Draw draws the text, the cursor when focused, and completion hints.
func (in *Input) Draw(screen tcell.Screen) {
	x, y, w, h := in.frame(screen, in)
	if w <= 0 || h <= 0 {
		return
	}
	th := in.theme
	base := in.base()
	hints := min(in.menuRows(), max(0, h-1))
	textH := h - hints
	if in.disabled != "" {
		drawText(screen, x, y, w, in.disabled, base.Foreground(th.Dim).Italic(true))
		return
	}
	if in.search != nil {
		in.drawSearch(screen, x, y, w, h)
		return
	}
	rows := in.vrows(w)
	cur := 0
	for i, r := range rows {
		if r.line == in.row && in.col >= r.start && (in.col < r.end || in.col == r.end && (i == len(rows)-1 || rows[i+1].line != r.line)) {
			cur = i
			break
		}
	}
	if cur < in.scrollRow {
		in.scrollRow = cur
	}
	if cur >= in.scrollRow+textH {
		in.scrollRow = cur - textH + 1
	}
	in.scrollRow = max(0, min(in.scrollRow, max(0, len(rows)-textH)))
	if len(in.lines) == 1 && len(in.lines[0]) == 0 {
		drawText(screen, x, y, w, fitParts(in.holder, w), base.Foreground(th.Dim)) // drops whole " · " hints
	} else {
		for i := 0; i < textH && in.scrollRow+i < len(rows); i++ {
			r := rows[in.scrollRow+i]
			st := base
			if r.line == 0 && len(in.lines[0]) > 0 && in.lines[0][0] == '/' {
				st = base.Foreground(th.Accent)
			}
			drawText(screen, x, y+i, w, string(in.lines[r.line][r.start:r.end]), st)
		}
	}
	if in.HasFocus() {
		r := rows[cur]
		cx := x + strWidth(string(in.lines[r.line][r.start:in.col]))
		screen.ShowCursor(min(cx, x+w-1), y+cur-in.scrollRow)
	}
	if hints > 0 {
		in.drawMenu(screen, x, y+textH, w, hints)
	}
}

// menuRows is how many rows the slash menu takes.
func (in *Input) menuRows() int {
	if in.search != nil {
		return in.searchRows()
	}
	if !in.menuOpen() {
		return 0
	}
	return min(len(in.matches), maxHintRows)
}

// InputHandler edits the text.
func (in *Input) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return in.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) {
		if in.search != nil {
			in.handleSearch(ev)
			return
		}
		if ev.Key() == tcell.KeyEsc && !in.menuOpen() {
			return
		}
		if in.keys.Handle(ev) {
			return
		}
		if ev.Key() == tcell.KeyRune && ev.Modifiers()&(tcell.ModAlt|tcell.ModCtrl) == 0 && in.disabled == "" {
			in.insert(ev.Rune())
		}
	})
}

// PasteHandler inserts pasted text (sanitised, newlines kept).
func (in *Input) PasteHandler() func(string, func(tview.Primitive)) {
	return in.WrapPasteHandler(func(text string, _ func(tview.Primitive)) {
		if in.disabled != "" {
			return
		}
		text = Sanitize(text)
		if n := strings.Count(strings.TrimRight(text, "\n"), "\n") + 1; n > pasteFoldLines {
			in.insert([]rune(in.foldPaste(text, n))...)
			return
		}
		for i, l := range strings.Split(text, "\n") {
			if i > 0 {
				in.newline()
			}
			in.insert([]rune(l)...)
		}
	})
}

// MouseHandler takes focus on click.
func (in *Input) MouseHandler() func(tview.MouseAction, *tcell.EventMouse, func(tview.Primitive)) (bool, tview.Primitive) {
	return in.WrapMouseHandler(func(a tview.MouseAction, ev *tcell.EventMouse, setFocus func(tview.Primitive)) (bool, tview.Primitive) {
		if a == tview.MouseLeftClick && in.InRect(ev.Position()) {
			setFocus(in)
			return true, nil
		}
		return false, nil
	})
}

package views

import (
	"fmt"
	"strings"

	"github.com/gdamore/tcell/v2"
)

// The slash menu is the list of matching commands under the input while a
// leading "/word" is typed. Up/Down and Tab move its selection and the
// list scrolls, so every command is reachable however few rows are shown;
// Enter takes the selected command.

// menuOpen reports whether the slash menu is showing.
func (in *Input) menuOpen() bool { return len(in.matches) > 0 && !in.menuHidden }

// menuMove moves the selection by d, wrapping around, and scrolls the
// visible window to it.
func (in *Input) menuMove(d int) {
	n := len(in.matches)
	if n == 0 {
		return
	}
	in.menuSel = ((in.menuSel+d)%n + n) % n
	if in.menuSel < in.menuTop {
		in.menuTop = in.menuSel
	}
	if in.menuSel >= in.menuTop+maxHintRows {
		in.menuTop = in.menuSel - maxHintRows + 1
	}
}

// MenuSelected returns the selected slash command while the menu shows.
func (in *Input) MenuSelected() (SlashCommand, bool) {
	if !in.menuOpen() {
		return SlashCommand{}, false
	}
	return in.matches[in.menuSel], true
}

// takeMenuSelection replaces a partly typed command by the selected one
// and reports whether the input should be sent now (the command takes no
// argument, or the user typed it in full).
func (in *Input) takeMenuSelection() bool {
	m, ok := in.MenuSelected()
	if !ok {
		return true
	}
	if strings.TrimSpace(in.Text()) == m.Name {
		return true
	}
	if m.Args != "" {
		in.SetText(m.Name + " ")
		return false
	}
	in.SetText(m.Name)
	return true
}

// drawMenu draws rows of the menu from (x, y): the visible window of
// matches with the selection highlighted, and on the last row where the
// selection stands in the whole list when some of it is scrolled away.
func (in *Input) drawMenu(screen tcell.Screen, x, y, w, rows int) {
	th := in.theme
	base := in.base()
	n := len(in.matches)
	in.menuTop = max(0, min(in.menuTop, n-rows))
	if in.menuSel >= in.menuTop+rows {
		in.menuTop = in.menuSel - rows + 1
	}
	pos := ""
	if n > rows {
		pos = fmt.Sprintf(" %d/%d ↑↓ ", in.menuSel+1, n)
	}
	for i := 0; i < rows && in.menuTop+i < n; i++ {
		idx := in.menuTop + i
		m := in.matches[idx]
		hy := y + i
		nameSt, descSt := base.Foreground(th.Accent).Bold(true), base.Foreground(th.Dim)
		reason, reasonSt := "", base.Foreground(th.Dim)
		if m.DisabledReason != nil {
			reason = m.DisabledReason() // refused now: the name dimmed, the reason before the description
		}
		if reason != "" {
			nameSt = base.Foreground(th.Dim)
		}
		if idx == in.menuSel {
			sel := base.Background(th.SelectionBg).Foreground(th.SelectionFg)
			fill(screen, x, hy, w, sel)
			nameSt, descSt, reasonSt = sel.Bold(true), sel, sel.Foreground(th.Dim)
		}
		name := m.Name
		if m.Args != "" {
			name += " " + m.Args
		}
		rowW := w
		if i == rows-1 && pos != "" {
			rowW -= strWidth(pos)
			drawText(screen, x+rowW, hy, strWidth(pos), pos, base.Foreground(th.Dim))
		}
		nw := drawText(screen, x, hy, rowW, padRight(name, 16), nameSt)
		if reason != "" {
			nw += drawText(screen, x+nw, hy, rowW-nw, " ("+reason+")", reasonSt)
		}
		drawText(screen, x+nw, hy, rowW-nw, " "+fitWords(m.Description, max(0, rowW-nw-1)), descSt)
	}
}

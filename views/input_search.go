package views

import (
	"strings"

	"github.com/gdamore/tcell/v2"
)

// Ctrl-R searches the input history, newest first, as shells do: typing
// narrows the matches, Ctrl-R/Up/Down move through them, Enter or Tab puts
// the selected one in the input, Esc gives the draft back.

// maxSearchMatches bounds the matches a history search lists.
const maxSearchMatches = 200

type historySearch struct {
	query   lineEditor
	matches []string
	sel     int
	top     int
	draft   string
}

// Searching reports whether a history search (Ctrl-R) is active.
func (in *Input) Searching() bool { return in.search != nil }

// SearchMatches returns the history entries matching the search, newest
// first, and the selected one's index.
func (in *Input) SearchMatches() ([]string, int) {
	if in.search == nil {
		return nil, 0
	}
	return in.search.matches, in.search.sel
}

func (in *Input) startSearch() {
	if in.search != nil {
		in.searchMove(1)
		return
	}
	in.search = &historySearch{draft: in.Text()}
	in.refreshSearch()
}

func (in *Input) refreshSearch() {
	s := in.search
	q := strings.ToLower(s.query.String())
	s.matches, s.sel, s.top = s.matches[:0], 0, 0
	seen := map[string]bool{}
	for i := len(in.history) - 1; i >= 0 && len(s.matches) < maxSearchMatches; i-- {
		h := in.history[i]
		if !seen[h] && strings.Contains(strings.ToLower(h), q) {
			seen[h] = true
			s.matches = append(s.matches, h)
		}
	}
}

func (in *Input) searchMove(d int) {
	s := in.search
	if len(s.matches) == 0 {
		return
	}
	s.sel = max(0, min(len(s.matches)-1, s.sel+d))
	if s.sel < s.top {
		s.top = s.sel
	}
	if s.sel >= s.top+maxHintRows {
		s.top = s.sel - maxHintRows + 1
	}
}

// endSearch leaves the search, taking the selected match or the draft.
func (in *Input) endSearch(take bool) {
	s := in.search
	in.search = nil
	if take && len(s.matches) > 0 {
		in.recall(s.matches[s.sel])
		in.histPos = len(in.history)
		return
	}
	in.SetText(s.draft)
}

// handleSearch edits the query or moves through the matches.
func (in *Input) handleSearch(ev *tcell.EventKey) {
	switch ev.Key() {
	case tcell.KeyCtrlR, tcell.KeyDown:
		in.searchMove(1)
	case tcell.KeyUp:
		in.searchMove(-1)
	case tcell.KeyEnter, tcell.KeyTab:
		in.endSearch(true)
	case tcell.KeyEsc, tcell.KeyCtrlG:
		in.endSearch(false)
	default:
		if in.search.query.handle(ev) {
			in.refreshSearch()
		}
	}
}

// searchRows is how many rows the search's match list takes.
func (in *Input) searchRows() int {
	return max(1, min(len(in.search.matches), maxHintRows))
}

// drawSearch draws the query on the first text row and the matches below.
func (in *Input) drawSearch(screen tcell.Screen, x, y, w, h int) {
	th := in.theme
	base := in.base()
	s := in.search
	n := drawText(screen, x, y, w, "history search: ", base.Foreground(th.Accent).Bold(true))
	s.query.draw(screen, x+n, y, w-n, base, in.HasFocus())
	rows := min(h-1, maxHintRows)
	if len(s.matches) == 0 {
		if rows > 0 {
			drawText(screen, x, y+1, w, "no match · Esc gives your text back", base.Foreground(th.Dim))
		}
		return
	}
	for i := 0; i < rows && s.top+i < len(s.matches); i++ {
		idx := s.top + i
		st := base.Foreground(th.Dim)
		if idx == s.sel {
			st = base.Background(th.SelectionBg).Foreground(th.SelectionFg)
			fill(screen, x, y+1+i, w, st)
		}
		first, rest, multi := strings.Cut(s.matches[idx], "\n")
		if multi {
			first += " ⏎ " + strings.Join(strings.Fields(rest), " ")
		}
		drawText(screen, x, y+1+i, w, truncate(first, w), st)
	}
}

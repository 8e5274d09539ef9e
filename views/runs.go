package views

import (
	"fmt"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/themes"
)

// RunActivity is what a live run needs from the user, for its colour.
type RunActivity int

const (
	RunIdle     RunActivity = iota // between runs
	RunBusy                        // streaming, running a tool, compacting
	RunWaiting                     // waiting for an approval
	RunRetrying                    // the model call failed and is retried
)

// RunRow is one live run of the RunList model.
type RunRow struct {
	SessionID string
	Title     string
	WorkDir   string
	State     string // in words: "streaming", "running tool Shell", "idle"…
	Activity  RunActivity
	Step      int
	Elapsed   time.Duration // 0 while idle
	Tokens    int
	Current   bool // the session open in this workspace
	// RemoteApproval: the writer takes approval answers from watchers
	// (--allow-remote-approval); drawn as remoteMark before the state.
	RemoteApproval bool
}

// remoteMark marks a run whose writer takes approval answers from
// watchers; the view's last line says so when one is listed.
const remoteMark = "⇄ "

// RunList is the runs view: every live run on the machine, one row each
// (title, work dir, state, step, elapsed time, tokens), under column
// headers. The app replaces the rows as they change (SetRuns); the
// selection stays on the same session. Enter watches the selected run.
type RunList struct {
	pane
	runs     []RunRow
	loaded   bool // SetRuns was called since Reset
	selected int
	top      int
	height   int // rows of runs shown
	onWatch  func(RunRow)
	onClose  func()
	keys     Keymap
}

// NewRunList returns an empty runs view.
func NewRunList() *RunList {
	l := &RunList{pane: newPane("Live runs · ↑/↓ select · Enter watch · Esc close"), height: 10}
	l.keys = Keymap{
		bind("next run", func() { l.Select(l.selected + 1) }, K(tcell.KeyDown), K(tcell.KeyCtrlN), R('j')),
		bind("previous run", func() { l.Select(l.selected - 1) }, K(tcell.KeyUp), K(tcell.KeyCtrlP), R('k')),
		{Keys: []Key{K(tcell.KeyPgDn)}, Description: "page down", Handler: func() { l.Select(l.selected + l.height - 1) }},
		{Keys: []Key{K(tcell.KeyPgUp)}, Description: "page up", Handler: func() { l.Select(l.selected - l.height + 1) }},
		{Keys: []Key{K(tcell.KeyHome)}, Description: "first run", Handler: func() { l.Select(0) }},
		{Keys: []Key{K(tcell.KeyEnd)}, Description: "last run", Handler: func() { l.Select(len(l.runs) - 1) }},
		bind("watch the selected run here (its own session: back to it)", l.watch, K(tcell.KeyEnter)),
		bind("close", l.close, K(tcell.KeyEsc), R('q')),
	}
	return l
}

// SetTheme applies a theme.
func (l *RunList) SetTheme(t themes.Theme) { l.setTheme(t) }

// Bindings lists the view's keys.
func (l *RunList) Bindings() []KeyBinding { return l.keys }

// SetOnWatch sets what Enter does with the selected run.
func (l *RunList) SetOnWatch(f func(RunRow)) { l.onWatch = f }

// SetOnClose sets what Esc does.
func (l *RunList) SetOnClose(f func()) { l.onClose = f }

// Reset empties the list until the next SetRuns ("looking for live
// runs…" rather than "no live runs").
func (l *RunList) Reset() {
	l.runs, l.loaded, l.selected, l.top = nil, false, 0, 0
}

// SetRuns replaces the rows. The selection stays on the session it was on
// when that session is still listed, else on the same position.
func (l *RunList) SetRuns(runs []RunRow) {
	sel, had := l.Selected()
	l.runs = make([]RunRow, len(runs))
	for i, r := range runs {
		r.Title, r.WorkDir, r.State = SanitizeLine(r.Title), SanitizeLine(r.WorkDir), SanitizeLine(r.State)
		l.runs[i] = r
	}
	l.loaded = true
	if had {
		for i, r := range l.runs {
			if r.SessionID == sel.SessionID {
				l.selected = i
				return
			}
		}
	}
	l.Select(l.selected)
}

// Runs is the rows shown.
func (l *RunList) Runs() []RunRow { return l.runs }

// Selected is the selected run, if any.
func (l *RunList) Selected() (RunRow, bool) {
	if l.selected < 0 || l.selected >= len(l.runs) {
		return RunRow{}, false
	}
	return l.runs[l.selected], true
}

// Select moves the selection to row i (clamped).
func (l *RunList) Select(i int) {
	l.selected = max(0, min(i, len(l.runs)-1))
}

func (l *RunList) watch() {
	if r, ok := l.Selected(); ok && l.onWatch != nil {
		l.onWatch(r)
	}
}

func (l *RunList) close() {
	if l.onClose != nil {
		l.onClose()
	}
}

// runColumns are the widths of the columns in a list w cells wide: the
// numbers first, then the state as wide as the widest one, 20 at least
// (leaving the title minRunTitle cells), and the title and the work dir share the rest
// (no work dir column when narrow).
type runColumns struct{ title, dir, state, stats int }

// minRunTitle is the least the title column keeps before the state column
// is cut.
const minRunTitle = 12

// runStatsHead heads the numbers column; runStats fills it.
const runStatsHead = "STEP   TIME TOKENS"

func runColumnsFor(w int, runs []RunRow) runColumns {
	c := runColumns{stats: len(runStatsHead)}
	c.state = 20 // steady while the states change
	for _, r := range runs {
		w := strWidth(r.State)
		if r.RemoteApproval {
			w += strWidth(remoteMark)
		}
		c.state = max(c.state, w)
	}
	c.state = max(1, min(c.state, w-2-c.stats-2-minRunTitle))
	rest := w - 2 - c.state - 1 - c.stats - 1
	if rest < 30 {
		c.title = max(0, rest)
		return c
	}
	c.title = rest / 2
	c.dir = rest - c.title - 1
	return c
}

// formatElapsed renders a run's elapsed time in at most 6 cells: 45s,
// 12m05s, 3h20m; "" for 0.
func formatElapsed(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d <= 0:
		return ""
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 100*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

func runStats(r RunRow) string {
	step := ""
	if r.Step > 0 {
		step = fmt.Sprint(r.Step)
	}
	return fmt.Sprintf("%4s %6s %6s", step, formatElapsed(r.Elapsed), FormatTokens(r.Tokens))
}

// Draw draws the headers and the rows, or says there are none.
func (l *RunList) Draw(screen tcell.Screen) {
	x, y, w, h := l.frame(screen, l)
	if w <= 0 || h <= 0 {
		return
	}
	th, base := l.theme, l.base()
	dim := base.Foreground(th.Dim)
	if len(l.runs) == 0 {
		msg := "Looking for live runs…"
		if l.loaded {
			msg = "No live runs."
		}
		drawText(screen, x+1, y, w-1, msg, base)
		if l.loaded && h > 2 {
			drawText(screen, x+1, y+2, w-1, fitWords("A session a rewind or rewind -p writes on this machine shows up here while that process runs.", w-1), dim)
		}
		return
	}
	cols := runColumnsFor(w, l.runs)
	head := dim.Bold(true)
	drawText(screen, x+2, y, cols.title, "TITLE", head)
	if cols.dir > 0 {
		drawText(screen, x+2+cols.title+1, y, cols.dir, "WORK DIR", head)
	}
	stateX := x + w - cols.stats - 1 - cols.state
	drawText(screen, stateX, y, cols.state, "STATE", head)
	drawText(screen, x+w-cols.stats, y, cols.stats, runStatsHead, head)
	y, h = y+1, h-1
	for _, r := range l.runs {
		if r.RemoteApproval && h > 2 {
			h--
			drawText(screen, x+1, y+h, w-1, fitWords(remoteMark+"takes approval answers from watchers (--allow-remote-approval)", w-1), dim)
			break
		}
	}
	l.height = max(1, h)
	if l.selected < l.top {
		l.top = l.selected
	}
	if l.selected >= l.top+l.height {
		l.top = l.selected - l.height + 1
	}
	l.top = max(0, min(l.top, len(l.runs)-l.height))
	for row := 0; row < h && l.top+row < len(l.runs); row++ {
		i := l.top + row
		r := l.runs[i]
		st, dimSt := base, dim
		if i == l.selected {
			st = st.Background(th.SelectionBg).Foreground(th.SelectionFg)
			dimSt = dimSt.Background(th.SelectionBg)
			fill(screen, x, y+row, w, st)
		}
		if r.Current {
			drawText(screen, x, y+row, 1, "▶", st.Foreground(th.Accent).Bold(true))
		}
		title := r.Title
		if title == "" {
			title = "(untitled)"
		}
		drawText(screen, x+2, y+row, cols.title, truncate(title, cols.title), st)
		if cols.dir > 0 {
			drawText(screen, x+2+cols.title+1, y+row, cols.dir, ElidePath(r.WorkDir, cols.dir), dimSt)
		}
		stateSt := st
		switch r.Activity {
		case RunIdle:
			stateSt = dimSt
		case RunBusy:
			stateSt = st.Foreground(th.ToolRunning)
		case RunWaiting:
			stateSt = st.Foreground(th.Warning).Bold(true)
		case RunRetrying:
			stateSt = st.Foreground(th.Error)
		}
		state := r.State
		if r.RemoteApproval {
			state = remoteMark + state
		}
		drawText(screen, stateX, y+row, cols.state, truncate(state, cols.state), stateSt)
		drawText(screen, x+w-cols.stats, y+row, cols.stats, runStats(r), dimSt)
	}
}

// InputHandler dispatches the view's keys.
func (l *RunList) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return l.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) { l.keys.Handle(ev) })
}

// MouseHandler selects on click, watches on double click, scrolls.
func (l *RunList) MouseHandler() func(tview.MouseAction, *tcell.EventMouse, func(tview.Primitive)) (bool, tview.Primitive) {
	return listMouse(l, l.Box, func() int { return l.selected }, l.Select, func(y int) int {
		_, iy, _, _ := l.GetInnerRect()
		r := y - iy - 1 // below the column headers
		if r < 0 || r >= l.height || l.top+r >= len(l.runs) {
			return -1
		}
		return l.top + r
	}, l.watch)
}

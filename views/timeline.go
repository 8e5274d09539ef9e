package views

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gdamore/tcell/v2"
	"github.com/rivo/tview"

	"github.com/rewind-agent/rewind/internal/words"
	"github.com/rewind-agent/rewind/themes"
)

// CheckpointRow is one checkpoint of the current view. A turn's row (the
// checkpoint before a user prompt) folds the rows of its steps (the
// checkpoints between its model calls); → unfolds them.
type CheckpointRow struct {
	ID     int       // checkpoint number (0, 1, 2… per view)
	Label  string    // a turn: its prompt; a step: "after step 2 · Shell go test"
	Time   time.Time // zero = unknown
	Tokens int       // context tokens at that point
	// Step is 0 for a turn's row; otherwise the row is folded under the
	// turn whose checkpoint is Turn.
	Step int
	Turn int
	// TurnNo is a turn row's number in the whole view (1, 2, … as a person
	// counts prompts); the row shows it as "#12", its detail line the
	// checkpoint that /revert and `rewind revert` take. 0: the row shows
	// its checkpoint (a step, or a turn whose number is not known).
	TurnNo int
}

// number is what a row shows in its number column: "#12" for a turn
// numbered by TurnNo, else the checkpoint.
func (c CheckpointRow) number() string {
	if c.Step == 0 && c.TurnNo > 0 {
		return fmt.Sprintf("#%d", c.TurnNo)
	}
	return fmt.Sprint(c.ID)
}

// GenerationRow is one generation of the session. Archived generations
// are drawn as branches off the live line at ForkCheckpoint: the live
// view shares everything before that checkpoint with them.
type GenerationRow struct {
	Gen            int
	ParentGen      int    // -1 when none (start, compact, clear, import roots)
	ForkCheckpoint int    // live checkpoint the branch leaves before; -1 = before the whole view (compact/clear)
	Cause          string // its own: start, revert, backtrack, compact, clear, restore, import, fork, interrupt
	Note           string
	ArchivedBy     string // the cause of the generation that replaced it ("" when current)
	ArchivedIn     int    // that generation
	ArchivedNote   string // its note (a D-Mail's message, a revert's reason)
	Messages       int
	Archived       bool
	SameView       bool // archived, but its view is the live one (restored): not drawn as a branch
	// SameAs are archived generations whose view is this one's, record for
	// record (an undo or a restore brought it back): one row says so.
	SameAs []GenerationAlias
	// Folded: not drawn, its view is another row's (that row's SameAs), or
	// it is empty while there are other branches to offer.
	Folded  bool
	Current bool
	Time    time.Time
}

// SameAsText names the generations folded into g's row: "same as gen 2
// (undo), gen 5 (restore)"; "" when none.
func (g GenerationRow) SameAsText() string {
	parts := make([]string, len(g.SameAs))
	for i, a := range g.SameAs {
		parts[i] = fmt.Sprintf("gen %d (%s)", a.Gen, a.Cause)
	}
	if len(parts) == 0 {
		return ""
	}
	return "same as " + strings.Join(parts, ", ")
}

// GenerationAlias names a generation folded into another row.
type GenerationAlias struct {
	Gen   int
	Cause string
}

// NoPosition is a TimelineModel Position that no row holds: the rows are a
// part of the conversation before its current position (a session opened
// at a search hit), so none is marked "here".
const NoPosition = -2

// TimelineModel is the Timeline's view model.
type TimelineModel struct {
	Checkpoints []CheckpointRow // in order
	Generations []GenerationRow
	Position    int // index in Checkpoints of the current position; -1 = the last, NoPosition: none of them
}

// TimelineKind says what a timeline row is.
type TimelineKind int

const (
	TimelineCheckpoint TimelineKind = iota
	TimelineGeneration
)

// TimelineItem is a selectable row: a checkpoint or a generation.
type TimelineItem struct {
	Kind       TimelineKind
	Checkpoint CheckpointRow
	Generation GenerationRow
}

type tlRow struct {
	item  TimelineItem
	depth int // branch depth for generations
	cur   bool
	steps int // a turn's row: how many step rows it folds
}

// Timeline shows the checkpoints of the current view on a live line and
// archived generations as dimmed branches, git-graph style.
type Timeline struct {
	pane
	model    TimelineModel
	rows     []tlRow
	selected int
	// top is the first line shown of the list: the earlier line (when
	// set) and then the rows.
	top    int
	height int
	keys   Keymap

	onSelect   func(TimelineItem)
	onActivate func(TimelineItem)
	onDiff     func(GenerationRow)
	onRestore  func(GenerationRow)
	onFork     func(GenerationRow)
	onForkAt   func(CheckpointRow)
	onUndo     func()

	// earlier, when set, is the line above the first row: the rows are the
	// newest part of the view only, and earlierN checkpoints come before
	// them. Moving the selection up past the first row then calls onTop
	// (the controller loads the page before).
	earlier  string
	earlierN int
	onTop    func()
	// later, when set, is the line below the last row: the rows end
	// before the view does (a session opened at a search hit), laterN
	// checkpoints before its end. Moving the selection down past the last
	// row then calls onBottom (the controller loads the page after).
	later    string
	laterN   int
	onBottom func()

	expanded map[int]bool // turns unfolded (by their checkpoint)

	onGoTo func() // g: the controller asks for a checkpoint
	onFind func() // /: the controller asks for words to find

	// sessionRef is the session's id (or a unique prefix) the detail
	// line's CLI hint names; "" names /revert instead.
	sessionRef string
}

// NewTimeline returns an empty timeline.
func NewTimeline() *Timeline {
	t := &Timeline{pane: newPane("Timeline"), height: 10, expanded: map[int]bool{}}
	t.keys = Keymap{
		bind("next", func() { t.Select(t.selected + 1) }, R('j'), K(tcell.KeyDown)),
		bind("previous", func() { t.Select(t.selected - 1) }, R('k'), K(tcell.KeyUp)),
		{Keys: []Key{K(tcell.KeyPgDn)}, Description: "page down", Handler: func() { t.Select(t.selected + t.height - 1) }, Visible: true},
		{Keys: []Key{K(tcell.KeyPgUp)}, Description: "page up", Handler: func() { t.Select(t.selected - t.height + 1) }, Visible: true},
		bind("first loaded row", func() { t.Select(0) }, K(tcell.KeyHome)),
		bind("go to a checkpoint (asks its number; a long session loads it)", func() {
			if t.onGoTo != nil {
				t.onGoTo()
			}
		}, R('g')),
		bind("find in this session's messages (asks the words; again: the next older)", func() {
			if t.onFind != nil {
				t.onFind()
			}
		}, R('/')),
		bind("last (current position)", func() { t.Select(len(t.rows) - 1) }, R('G'), K(tcell.KeyEnd)),
		bind("unfold a turn's steps (h/← folds)", func() { t.fold(true) }, R('l'), K(tcell.KeyRight)),
		{Keys: []Key{R('h'), K(tcell.KeyLeft)}, Description: "fold the turn", Handler: func() { t.fold(false) }},
		bind("revert here / read the generation", func() { t.fire(t.onActivate) }, K(tcell.KeyEnter)),
		bind("diff generation with current", func() { t.fireGen(t.onDiff) }, R('d')),
		{Keys: []Key{R('r')}, Description: "restore this generation", Handler: func() { t.fireGen(t.onRestore) }, Visible: true, Dangerous: true},
		bind("fork to a new session: the generation, or the conversation before the checkpoint", t.fork, R('f')),
		{Keys: []Key{R('u')}, Description: "undo the last rewind", Handler: func() {
			if t.onUndo != nil {
				t.onUndo()
			}
		}, Visible: true},
	}
	return t
}

// SetTheme applies a theme.
func (t *Timeline) SetTheme(th themes.Theme) { t.setTheme(th) }

// Bindings lists the timeline's keys.
func (t *Timeline) Bindings() []KeyBinding { return t.keys }

// SetOnSelect is called when the selection moves (preview it).
func (t *Timeline) SetOnSelect(f func(TimelineItem)) { t.onSelect = f }

// SetOnActivate is called on Enter.
func (t *Timeline) SetOnActivate(f func(TimelineItem)) { t.onActivate = f }

// SetOnDiff is called on d with the selected generation.
func (t *Timeline) SetOnDiff(f func(GenerationRow)) { t.onDiff = f }

// SetOnRestore is called on r with the selected generation.
func (t *Timeline) SetOnRestore(f func(GenerationRow)) { t.onRestore = f }

// SetOnFork is called on f with the selected generation.
func (t *Timeline) SetOnFork(f func(GenerationRow)) { t.onFork = f }

// SetOnForkAt is called on f with the selected checkpoint (a turn's or a
// step's).
func (t *Timeline) SetOnForkAt(f func(CheckpointRow)) { t.onForkAt = f }

// SetOnUndo is called on u.
func (t *Timeline) SetOnUndo(f func()) { t.onUndo = f }

// SetEarlier sets the line shown above the first row when the rows cover
// only the newest part of the view, n checkpoints after others; "" removes
// it. It is the list's first line: it scrolls away with the rows above
// the selection, and the border's "↑ N more" then counts the n too. A
// narrow pane drops its " · "-separated parts from the end, never
// cutting a word.
func (t *Timeline) SetEarlier(text string, n int) { t.earlier, t.earlierN = SanitizeLine(text), n }

// lead is the number of lines of the list above the rows: the earlier
// line, when set.
func (t *Timeline) lead() int {
	if t.earlier != "" {
		return 1
	}
	return 0
}

// trail is the number of lines of the list below the rows: the later
// line, when set.
func (t *Timeline) trail() int {
	if t.later != "" {
		return 1
	}
	return 0
}

// SetOnTop sets what runs when the selection moves up past the first row
// while the earlier line shows.
func (t *Timeline) SetOnTop(f func()) { t.onTop = f }

// SetOnGoTo is called on g (go to a checkpoint).
func (t *Timeline) SetOnGoTo(f func()) { t.onGoTo = f }

// SetOnFind is called on / (find in the session's messages).
func (t *Timeline) SetOnFind(f func()) { t.onFind = f }

// SetLater sets the line shown below the last row when the rows stop
// before the end of the view, n checkpoints before it; "" removes it. It
// is the list's last line, as SetEarlier's is its first. A narrow pane
// drops its " · "-separated parts from the end.
func (t *Timeline) SetLater(text string, n int) { t.later, t.laterN = SanitizeLine(text), n }

// SetSessionRef sets the session id (or a unique prefix of it) that the
// selected checkpoint's detail line names in its `rewind revert` hint.
func (t *Timeline) SetSessionRef(ref string) { t.sessionRef = SanitizeLine(ref) }

// detail is the selected checkpoint row's detail line: its turn, the
// checkpoint every command takes, and the CLI command that reverts there
// ("" when a generation or nothing is selected).
func (t *Timeline) detail() string {
	it, ok := t.SelectedItem()
	if !ok || it.Kind != TimelineCheckpoint {
		return ""
	}
	c := it.Checkpoint
	var what string
	switch {
	case c.Step > 0:
		what = fmt.Sprintf("step %d · checkpoint %d", c.Step, c.ID)
		for _, r := range t.model.Checkpoints {
			if r.Step == 0 && r.ID == c.Turn && r.TurnNo > 0 {
				what = fmt.Sprintf("turn %d step %d · checkpoint %d", r.TurnNo, c.Step, c.ID)
			}
		}
	case c.TurnNo > 0:
		what = fmt.Sprintf("turn %d · checkpoint %d", c.TurnNo, c.ID)
	default:
		what = fmt.Sprintf("checkpoint %d", c.ID)
	}
	if t.sessionRef == "" {
		return fmt.Sprintf("%s · /revert %d", what, c.ID)
	}
	return fmt.Sprintf("%s · rewind revert %s %d", what, t.sessionRef, c.ID)
}

// SetOnBottom sets what runs when the selection moves down past the last
// row while the later line shows.
func (t *Timeline) SetOnBottom(f func()) { t.onBottom = f }

func (t *Timeline) fire(f func(TimelineItem)) {
	if it, ok := t.SelectedItem(); ok && f != nil {
		f(it)
	}
}

func (t *Timeline) fireGen(f func(GenerationRow)) {
	if it, ok := t.SelectedItem(); ok && it.Kind == TimelineGeneration && f != nil {
		f(it.Generation)
	}
}

// fork is f: the selected generation, or the view at the selected
// checkpoint.
func (t *Timeline) fork() {
	it, ok := t.SelectedItem()
	switch {
	case !ok:
	case it.Kind == TimelineGeneration && t.onFork != nil:
		t.onFork(it.Generation)
	case it.Kind == TimelineCheckpoint && t.onForkAt != nil:
		t.onForkAt(it.Checkpoint)
	}
}

// fold unfolds (→) or folds (←) the selected turn; on a step, ← folds its
// turn and selects it.
func (t *Timeline) fold(open bool) {
	it, ok := t.SelectedItem()
	if !ok || it.Kind != TimelineCheckpoint {
		return
	}
	c := it.Checkpoint
	turn := c.ID
	if c.Step > 0 {
		if open {
			return
		}
		turn = c.Turn
	}
	if t.expanded[turn] == open {
		return
	}
	t.expanded[turn] = open
	t.rows = t.buildRows()
	for i, r := range t.rows {
		if r.item.Kind == TimelineCheckpoint && r.item.Checkpoint.ID == turn {
			t.selected = i
		}
	}
	t.fire(t.onSelect)
}

// curRow is the index of the current position's row, -1 if none.
func (t *Timeline) curRow() int {
	for i, r := range t.rows {
		if r.cur {
			return i
		}
	}
	return -1
}

// SetModel replaces the model; the selection stays on the same
// checkpoint/generation when it still exists, else goes to the current
// position; a selection on the current position follows it.
func (t *Timeline) SetModel(m TimelineModel) {
	prev, had := t.SelectedItem()
	follow := !had || t.selected == t.curRow()
	for i := range m.Checkpoints {
		m.Checkpoints[i].Label = SanitizeLine(m.Checkpoints[i].Label)
	}
	for i := range m.Generations {
		m.Generations[i].Cause = SanitizeLine(m.Generations[i].Cause)
		for j := range m.Generations[i].SameAs {
			m.Generations[i].SameAs[j].Cause = SanitizeLine(m.Generations[i].SameAs[j].Cause)
		}
		m.Generations[i].Note = SanitizeLine(m.Generations[i].Note)
		m.Generations[i].ArchivedBy = SanitizeLine(m.Generations[i].ArchivedBy)
		m.Generations[i].ArchivedNote = SanitizeLine(m.Generations[i].ArchivedNote)
	}
	t.model = m
	t.SetPaneTitle("Timeline")
	for _, g := range m.Generations {
		if g.Current {
			t.SetPaneTitle(fmt.Sprintf("Timeline · gen %d", g.Gen))
		}
	}
	t.rows = t.buildRows()
	t.selected = len(t.rows) - 1
	if c := t.curRow(); c >= 0 {
		t.selected = c
	}
	if had && !follow {
		for i, r := range t.rows {
			if r.item.Kind == prev.Kind && (r.item.Kind == TimelineCheckpoint && r.item.Checkpoint.ID == prev.Checkpoint.ID ||
				r.item.Kind == TimelineGeneration && r.item.Generation.Gen == prev.Generation.Gen) {
				t.selected = i
				break
			}
		}
	}
	t.selected = max(0, t.selected)
}

// Model returns the model shown.
func (t *Timeline) Model() TimelineModel { return t.model }

// buildRows flattens the model: branches are placed just before the
// checkpoint they forked at (roots before everything, forks after the
// last checkpoint at the end), nested by ParentGen chains.
func (t *Timeline) buildRows() []tlRow {
	m := t.model
	byGen := map[int]GenerationRow{}
	for _, g := range m.Generations {
		byGen[g.Gen] = g
	}
	// ancestors of the live generation are the live line itself, not branches
	live := map[int]bool{}
	for _, g := range m.Generations {
		if g.Current {
			for p, ok := g, true; ok && !live[p.Gen]; p, ok = byGen[p.ParentGen] {
				live[p.Gen] = true
			}
		}
	}
	depth := func(g GenerationRow) int {
		d := 0
		seen := map[int]bool{g.Gen: true}
		for p, ok := byGen[g.ParentGen]; ok && p.Archived && !live[p.Gen] && !seen[p.Gen] && d < 8; p, ok = byGen[p.ParentGen] {
			seen[p.Gen] = true
			d++
		}
		return d
	}
	ids := map[int]bool{}
	for _, c := range m.Checkpoints {
		ids[c.ID] = true
	}
	branches := map[int][]GenerationRow{} // fork checkpoint → archived gens
	var tail []GenerationRow
	for _, g := range m.Generations {
		if g.Current || !g.Archived || g.SameView || g.Folded {
			continue
		}
		switch {
		case g.ForkCheckpoint < 0:
			branches[-1] = append(branches[-1], g)
		case ids[g.ForkCheckpoint]:
			branches[g.ForkCheckpoint] = append(branches[g.ForkCheckpoint], g)
		default:
			tail = append(tail, g)
		}
	}
	emit := func(rows []tlRow, gs []GenerationRow) []tlRow {
		sort.Slice(gs, func(i, j int) bool { return gs[i].Gen < gs[j].Gen })
		for _, g := range gs {
			rows = append(rows, tlRow{item: TimelineItem{Kind: TimelineGeneration, Generation: g}, depth: depth(g)})
		}
		return rows
	}
	rows := make([]tlRow, 0, len(m.Checkpoints)+len(m.Generations))
	rows = emit(rows, branches[-1])
	pos := m.Position
	if pos == -1 || pos >= len(m.Checkpoints) {
		pos = len(m.Checkpoints) - 1
	}
	steps := map[int]int{}
	for _, c := range m.Checkpoints {
		if c.Step > 0 {
			steps[c.Turn]++
		}
	}
	turnRow := -1 // the row of the turn being emitted
	for i, c := range m.Checkpoints {
		rows = emit(rows, branches[c.ID])
		if c.Step > 0 && !t.expanded[c.Turn] && turnRow >= 0 && rows[turnRow].item.Checkpoint.ID == c.Turn {
			if i == pos {
				rows[turnRow].cur = true
			}
			continue
		}
		if c.Step == 0 {
			turnRow = len(rows)
		}
		rows = append(rows, tlRow{item: TimelineItem{Kind: TimelineCheckpoint, Checkpoint: c}, cur: i == pos, steps: steps[c.ID]})
	}
	return emit(rows, tail)
}

// SelectedItem returns the selected row's item.
func (t *Timeline) SelectedItem() (TimelineItem, bool) {
	if t.selected < 0 || t.selected >= len(t.rows) {
		return TimelineItem{}, false
	}
	return t.rows[t.selected].item, true
}

// Select selects row i (clamped), scrolls to it and calls OnSelect.
func (t *Timeline) Select(i int) {
	if len(t.rows) == 0 {
		return
	}
	if i < 0 && t.earlier != "" && t.onTop != nil {
		t.onTop()
	}
	if i >= len(t.rows) && t.later != "" && t.onBottom != nil {
		t.onBottom()
	}
	i = max(0, min(i, len(t.rows)-1))
	changed := i != t.selected
	t.selected = i
	if changed {
		t.fire(t.onSelect)
	}
}

// SelectCheckpoint selects the row of checkpoint id.
func (t *Timeline) SelectCheckpoint(id int) bool {
	for i, r := range t.rows {
		if r.item.Kind == TimelineCheckpoint && r.item.Checkpoint.ID == id {
			t.Select(i)
			return true
		}
	}
	return false
}

// SelectGeneration selects the row of generation gen.
func (t *Timeline) SelectGeneration(gen int) bool {
	for i, r := range t.rows {
		if r.item.Kind == TimelineGeneration && r.item.Generation.Gen == gen {
			t.Select(i)
			return true
		}
	}
	return false
}

// SelectedIndex is the selected row.
func (t *Timeline) SelectedIndex() int { return t.selected }

// Len is the number of rows.
func (t *Timeline) Len() int { return len(t.rows) }

func relTime(ts time.Time, now time.Time) string {
	if ts.IsZero() {
		return ""
	}
	if now.Sub(ts) < 24*time.Hour && ts.Day() == now.Day() {
		return ts.Format("15:04")
	}
	return ts.Format("Jan 2")
}

// The pane widths from which a checkpoint row shows its tokens and its
// time on the right.
const (
	timelineTokensWidth = 40
	timelineTimeWidth   = 48
)

// Draw draws the visible rows.
func (t *Timeline) Draw(screen tcell.Screen) {
	x, y, w, h := t.frame(screen, t)
	if w <= 0 || h <= 0 {
		return
	}
	th := t.theme
	base := t.base()
	border := y - 1 // the pane's top border: the "↑ N more" marker
	bottom := y + h // the bottom border: the "↓ N more" marker
	// The selected checkpoint's detail at the bottom: one line, or two
	// when narrow (the CLI hint on its own), while rows keep the room.
	if d := t.detail(); d != "" && h > 4 {
		lines := wrapParts(d, w)
		if len(lines) > 2 {
			lines = []string{fitParts(d, w)}
		}
		for i := len(lines) - 1; i >= 0; i-- {
			h--
			drawText(screen, x, y+h, w, lines[i], base.Foreground(th.Dim))
		}
	}
	t.height = h
	if len(t.rows) == 0 {
		drawText(screen, x, y, w, "No checkpoints yet.", base.Foreground(th.Dim))
		return
	}
	// The list is the earlier line (lead), the rows and the later line
	// (trail), scrolled as one: the first or last row selected shows the
	// line beyond it, and the borders count what the lines would say.
	lead, trail := t.lead(), t.trail()
	lines := lead + len(t.rows) + trail
	sel := lead + t.selected
	from, to := sel, sel // the lines that must show
	if t.selected == 0 {
		from = 0
	}
	if t.selected == len(t.rows)-1 {
		to = lines - 1
	}
	if to >= t.top+h {
		t.top = to - h + 1
	}
	if from < t.top {
		t.top = from
	}
	t.top = max(0, min(t.top, sel, lines-h))
	first := t.top - lead // the first row shown
	italic := base.Foreground(th.Dim).Italic(true)
	if first < 0 {
		drawText(screen, x, y, w, fitParts(t.earlier, w), italic)
		y, h, first = y+1, h-1, 0
	}
	shown := min(h, len(t.rows)-first) // rows
	laterShown := trail == 1 && shown < h
	if laterShown {
		drawText(screen, x, y+shown, w, fitParts(t.later, w), italic)
	}
	now := time.Now()
	// The number column is as wide as the largest number shown, so the
	// labels line up and a narrow pane gives them what is left.
	numW := 3
	for r := 0; r < shown; r++ {
		if it := t.rows[first+r].item; it.Kind == TimelineCheckpoint {
			n := it.Checkpoint.number()
			if strings.HasPrefix(n, "#") {
				n += " " // "#12" keeps a space before its fold mark
			}
			numW = max(numW, len(n))
		}
	}
	live := base.Foreground(th.Accent)
	dim := base.Foreground(th.Dim)
	for r := 0; r < shown; r++ {
		i := first + r
		row := t.rows[i]
		ry := y + r
		sel := i == t.selected
		if sel {
			st := base.Background(th.SelectionBg)
			fill(screen, x, ry, w, st)
			live = live.Background(th.SelectionBg)
			dim = dim.Background(th.SelectionBg)
			base = base.Background(th.SelectionBg)
		}
		cx := x
		switch row.item.Kind {
		case TimelineCheckpoint:
			c := row.item.Checkpoint
			node := "●"
			switch {
			case row.cur:
				node = "◉"
			case c.Step > 0:
				node = "│"
			}
			cx += drawText(screen, cx, ry, w, node+" ", live.Bold(row.cur))
			if c.Step > 0 {
				cx += drawText(screen, cx, ry, x+w-cx, "  ", base)
			}
			cx += drawText(screen, cx, ry, x+w-cx, fmt.Sprintf("%-*s", numW, c.number()), base.Foreground(th.Accent))
			switch {
			case row.steps > 0 && t.expanded[c.ID]:
				cx += drawText(screen, cx, ry, x+w-cx, "▾ ", base.Foreground(th.Accent))
			case row.steps > 0:
				cx += drawText(screen, cx, ry, x+w-cx, "▸ ", base.Foreground(th.Accent))
			case c.Step == 0:
				cx += drawText(screen, cx, ry, x+w-cx, "  ", base)
			}
			// The time and the token count only where the label keeps
			// room for a prompt's first words (at 80 columns the pane is
			// about 30 cells: they left 13 for the label).
			right := ""
			if ts := relTime(c.Time, now); ts != "" && w >= timelineTimeWidth {
				right = ts
			}
			switch {
			case c.Tokens > 0 && w >= timelineTokensWidth:
				right += " " + padLeft(FormatTokens(c.Tokens), 6)
			case right != "" && w >= timelineTokensWidth:
				right += strings.Repeat(" ", 7) // none counted yet: the time stays in its column
			}
			rw := strWidth(right)
			label := c.Label
			if row.cur {
				label += " ← here"
			}
			lst := base.Foreground(th.Text)
			if c.Step > 0 {
				lst = base.Foreground(th.Dim)
			}
			if row.cur {
				lst = lst.Bold(true)
			}
			room := x + w - cx
			if rw > 0 {
				room -= rw + 1
			}
			room = max(0, room)
			drawText(screen, cx, ry, room, truncate(label, room), lst)
			if rw > 0 && rw < w-6 {
				drawText(screen, x+w-rw, ry, rw, right, dim)
			}
		case TimelineGeneration:
			g := row.item.Generation
			cx += drawText(screen, cx, ry, w, "├─"+strings.Repeat("──", row.depth), live)
			gs := dim
			if sel {
				gs = gs.Foreground(th.Text)
			}
			cx += drawText(screen, cx, ry, x+w-cx, "○ ", gs)
			desc := fmt.Sprintf("gen %d · %s · %d msgs", g.Gen, g.Cause, g.Messages)
			if same := g.SameAsText(); same != "" {
				desc += " · " + same
			}
			if g.ArchivedBy != "" {
				desc += fmt.Sprintf(" · archived by %s in gen %d", g.ArchivedBy, g.ArchivedIn)
				if g.ArchivedNote != "" {
					desc += ": " + g.ArchivedNote
				}
			}
			if g.Note != "" {
				desc += " · " + g.Note
			}
			drawText(screen, cx, ry, x+w-cx, truncate(desc, x+w-cx), gs.Italic(true))
		}
		if sel {
			base = t.base()
			live = base.Foreground(th.Accent)
			dim = base.Foreground(th.Dim)
		}
	}
	above := 0
	if t.top > 0 {
		above = first + max(lead, t.earlierN) // a line of messages only counts as one
	}
	below := len(t.rows) - first - shown
	if trail == 1 && !laterShown {
		below += max(1, t.laterN)
	}
	t.drawScrollMarkers(screen, x, border, bottom, w, above, below)
}

// drawScrollMarkers says on the pane's borders how much is above and
// below the lines shown ("↑ 3 more", "↓ 5 more"): the rows, and the
// checkpoints not loaded once the earlier or later line that says them
// scrolled away. The borders are lines border and bottom.
func (t *Timeline) drawScrollMarkers(screen tcell.Screen, x, border, bottom, w, above, below int) {
	if !t.border {
		return
	}
	st := t.base().Foreground(t.theme.Accent)
	if above > 0 {
		up := " ↑ " + words.Thousands(above) + " more "
		if t.tabbed { // the tabs hide the top border: left on the bottom one
			border = bottom
			up = " ↑ " + words.Thousands(above) + " "
		}
		drawText(screen, x+1, border, w-2, up, st)
	}
	if below > 0 {
		m := " ↓ " + words.Thousands(below) + " more "
		drawText(screen, x+w-strWidth(m)-1, bottom, strWidth(m), m, st)
	}
}

func padLeft(s string, w int) string {
	if n := w - strWidth(s); n > 0 {
		return strings.Repeat(" ", n) + s
	}
	return s
}

// InputHandler dispatches the timeline keys.
func (t *Timeline) InputHandler() func(*tcell.EventKey, func(tview.Primitive)) {
	return t.WrapInputHandler(func(ev *tcell.EventKey, _ func(tview.Primitive)) { t.keys.Handle(ev) })
}

// MouseHandler selects on click, activates on double click, scrolls on
// the wheel.
func (t *Timeline) MouseHandler() func(tview.MouseAction, *tcell.EventMouse, func(tview.Primitive)) (bool, tview.Primitive) {
	return t.WrapMouseHandler(func(a tview.MouseAction, ev *tcell.EventMouse, setFocus func(tview.Primitive)) (bool, tview.Primitive) {
		mx, my := ev.Position()
		if !t.InRect(mx, my) {
			return false, nil
		}
		switch a {
		case tview.MouseScrollUp:
			t.Select(t.selected - 3)
		case tview.MouseScrollDown:
			t.Select(t.selected + 3)
		case tview.MouseLeftClick, tview.MouseLeftDoubleClick:
			setFocus(t)
			_, iy, _, _ := t.GetInnerRect()
			if i := t.top - t.lead() + my - iy; my >= iy && i >= 0 && i < len(t.rows) {
				t.Select(i)
				if a == tview.MouseLeftDoubleClick {
					t.fire(t.onActivate)
				}
			}
		default:
			return false, nil
		}
		return true, nil
	})
}

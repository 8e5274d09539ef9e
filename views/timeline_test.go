package views

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"
)

func sampleTimeline() TimelineModel {
	now := time.Now()
	return TimelineModel{
		Checkpoints: []CheckpointRow{
			{ID: 0, Label: "fix the parser", Time: now, Tokens: 1200},
			{ID: 1, Label: "add tests\x1b[2J", Time: now, Tokens: 3400},
			{ID: 2, Label: "try another approach", Time: now, Tokens: 5100},
		},
		Generations: []GenerationRow{
			{Gen: 0, ParentGen: -1, ForkCheckpoint: -1, Cause: "start", Archived: true, Messages: 40},
			{Gen: 1, ParentGen: -1, ForkCheckpoint: -1, Cause: "compact", Archived: true, Messages: 30},
			{Gen: 2, ParentGen: 1, ForkCheckpoint: 2, Cause: "revert", Note: "wrong approach", Archived: true, Messages: 12},
			{Gen: 3, ParentGen: 2, ForkCheckpoint: 2, Cause: "backtrack", Note: "from the future", Archived: true, Messages: 5},
			{Gen: 4, ParentGen: 1, ForkCheckpoint: 2, Cause: "restore", Current: true, Messages: 20},
		},
		Position: -1,
	}
}

func TestTimelineGraph(t *testing.T) {
	t.Parallel()
	for _, sz := range sizes {
		t.Run(fmt.Sprint(sz.w), func(t *testing.T) {
			tl := NewTimeline()
			tl.SetTheme(dark)
			tl.SetModel(sampleTimeline())
			s := draw(t, tl, sz.w, sz.h)
			_, y0 := mustFind(t, s, "● 0")
			_, y1 := mustFind(t, s, "● 1")
			xb, yb := mustFind(t, s, "├─○ gen 2 · revert · 12 msgs · wrong approach")
			_, yb2 := mustFind(t, s, "├───○ gen 3 · backtrack")
			_, y2 := mustFind(t, s, "◉ 2")
			if !(y0 < y1 && y1 < yb && yb < yb2 && yb2 < y2) {
				t.Fatalf("rows out of order: %d %d %d %d %d\n%s", y0, y1, yb, yb2, y2, screenText(s))
			}
			// archived branch dimmed, live line in the accent colour
			wantFg(t, s, "gen 2 ·", dark.Dim)
			if fg(s, xb, yb) != dark.Accent {
				t.Errorf("branch connector colour %v", fg(s, xb, yb))
			}
			mustFind(t, s, "○ gen 1 · compact")
			mustFind(t, s, "add tests")
			if _, _, ok := find(s, "○ gen 4"); ok {
				t.Error("the current generation is drawn as a branch")
			}
			if sz.w >= 40 {
				mustFind(t, s, "5.1k")
			}
			mustFind(t, s, "← here")
			mustFind(t, s, "Timeline · gen 4")
			assertNoControls(t, s)
		})
	}
}

func TestTimelineKeys(t *testing.T) {
	t.Parallel()
	tl := NewTimeline()
	tl.SetTheme(dark)
	tl.SetModel(sampleTimeline())
	var sel, act []TimelineItem
	var diffs, restores, forks []int
	tl.SetOnSelect(func(it TimelineItem) { sel = append(sel, it) })
	tl.SetOnActivate(func(it TimelineItem) { act = append(act, it) })
	tl.SetOnDiff(func(g GenerationRow) { diffs = append(diffs, g.Gen) })
	tl.SetOnRestore(func(g GenerationRow) { restores = append(restores, g.Gen) })
	tl.SetOnFork(func(g GenerationRow) { forks = append(forks, g.Gen) })
	draw(t, tl, 80, 24)
	it, _ := tl.SelectedItem()
	if it.Kind != TimelineCheckpoint || it.Checkpoint.ID != 2 {
		t.Fatalf("initial selection %+v", it)
	}
	send(tl, key(tcell.KeyEnter, 0, 0))
	if len(act) != 1 || act[0].Checkpoint.ID != 2 {
		t.Fatalf("activate %+v", act)
	}
	send(tl, key(tcell.KeyRune, 'd', 0)) // on a checkpoint: nothing
	if len(diffs) != 0 {
		t.Fatal("d on a checkpoint")
	}
	send(tl, key(tcell.KeyRune, 'k', 0))
	if it, _ := tl.SelectedItem(); it.Kind != TimelineGeneration || it.Generation.Gen != 3 {
		t.Fatalf("k selected %+v", it)
	}
	send(tl, key(tcell.KeyRune, 'd', 0), key(tcell.KeyRune, 'r', 0), key(tcell.KeyRune, 'f', 0))
	if fmt.Sprint(diffs, restores, forks) != "[3] [3] [3]" {
		t.Fatalf("callbacks %v %v %v", diffs, restores, forks)
	}
	if len(sel) != 1 || sel[0].Generation.Gen != 3 {
		t.Fatalf("OnSelect %+v", sel)
	}
	goTo, find := 0, 0
	tl.SetOnGoTo(func() { goTo++ })
	tl.SetOnFind(func() { find++ })
	send(tl, key(tcell.KeyRune, 'g', 0), key(tcell.KeyRune, '/', 0))
	if goTo != 1 || find != 1 {
		t.Fatalf("g asked %d times to go to a checkpoint, / %d times to find", goTo, find)
	}
	send(tl, key(tcell.KeyHome, 0, 0))
	if it, _ := tl.SelectedItem(); it.Generation.Gen != 0 {
		t.Fatalf("Home selected %+v", it)
	}
	// model refresh keeps the selection
	m := sampleTimeline()
	m.Checkpoints = append(m.Checkpoints, CheckpointRow{ID: 3, Label: "new"})
	tl.SetModel(m)
	if it, _ := tl.SelectedItem(); it.Generation.Gen != 0 {
		t.Fatalf("selection lost on refresh: %+v", it)
	}
	if !tl.SelectCheckpoint(1) {
		t.Fatal("SelectCheckpoint")
	}
	s := draw(t, tl, 80, 24)
	wantBg(t, s, "● 1", dark.SelectionBg)
}

func TestTimelineManyCheckpoints(t *testing.T) {
	t.Parallel()
	tl := NewTimeline()
	tl.SetModel(bigTimeline(1000))
	s := draw(t, tl, 80, 24)
	mustFind(t, s, "◉ 999")
	send(tl, key(tcell.KeyHome, 0, 0))
	redraw(s, tl)
	mustFind(t, s, "● 0")
}

func bigTimeline(n int) TimelineModel {
	m := TimelineModel{Position: -1}
	for i := 0; i < n; i++ {
		m.Checkpoints = append(m.Checkpoints, CheckpointRow{ID: i, Label: fmt.Sprintf("step %d of the long run", i), Tokens: i * 100})
		if i%10 == 5 {
			m.Generations = append(m.Generations, GenerationRow{Gen: i, ParentGen: i - 1, ForkCheckpoint: i, Cause: "revert", Archived: true, Messages: i})
		}
	}
	return m
}

// turnsTimeline is three turns of two steps each: checkpoints 0, 3, 6 start
// the turns, the others are their steps.
func turnsTimeline() TimelineModel {
	m := TimelineModel{Position: -1}
	for turn := 0; turn < 3; turn++ {
		id := turn * 3
		m.Checkpoints = append(m.Checkpoints,
			CheckpointRow{ID: id, Label: fmt.Sprintf("prompt %d", turn)},
			CheckpointRow{ID: id + 1, Label: "after the prompt, before any step", Step: 1, Turn: id},
			CheckpointRow{ID: id + 2, Label: "after step 1 · Shell go test", Step: 2, Turn: id})
	}
	return m
}

func TestTimelineFoldsStepsUnderTurns(t *testing.T) {
	t.Parallel()
	tl := NewTimeline()
	tl.SetTheme(dark)
	tl.SetModel(turnsTimeline())
	s := draw(t, tl, 80, 24)
	if tl.Len() != 3 {
		t.Fatalf("%d rows, want one per turn:\n%s", tl.Len(), screenText(s))
	}
	mustFind(t, s, "◉ 6  ▸ prompt 2 ← here") // the current checkpoint is folded into its turn
	send(tl, key(tcell.KeyRune, 'k', 0), key(tcell.KeyRight, 0, 0))
	redraw(s, tl)
	mustFind(t, s, "● 3  ▾ prompt 1")
	mustFind(t, s, "│   5  after step 1 · Shell go test")
	send(tl, key(tcell.KeyDown, 0, 0), key(tcell.KeyDown, 0, 0))
	if it, _ := tl.SelectedItem(); it.Checkpoint.ID != 5 {
		t.Fatalf("selected %+v, want the step row of checkpoint 5", it)
	}
	send(tl, key(tcell.KeyLeft, 0, 0)) // on a step: fold its turn, select the turn
	if it, _ := tl.SelectedItem(); it.Checkpoint.ID != 3 || tl.Len() != 3 {
		t.Fatalf("after ←: selected %+v, %d rows", it, tl.Len())
	}
}

func TestTimelineScrollMarkersAndFollow(t *testing.T) {
	t.Parallel()
	tl := NewTimeline()
	tl.SetTheme(dark)
	tl.SetModel(bigTimeline(50))
	s := draw(t, tl, 80, 12) // 10 lines inside the border: 9 rows and the selected checkpoint's detail
	mustFind(t, s, "↑ 46 more")
	send(tl, key(tcell.KeyHome, 0, 0))
	redraw(s, tl)
	mustFind(t, s, "↓ 46 more")
	if _, _, ok := find(s, "↑"); ok {
		t.Errorf("an up marker at the top:\n%s", screenText(s))
	}
	// The selection on the current position follows it when the model grows.
	send(tl, key(tcell.KeyEnd, 0, 0))
	m := bigTimeline(51)
	tl.SetModel(m)
	if it, _ := tl.SelectedItem(); it.Checkpoint.ID != 50 {
		t.Errorf("selection %+v did not follow the current checkpoint 50", it)
	}
}

// The earlier line (the checkpoints before the loaded rows) is the list's
// first line, just above the first row loaded: scrolled down, it scrolls
// away with the rows, and the border's "↑ N more" counts all that is
// above, the rows and the checkpoints not loaded. QA saw "↑ 97 more" in
// the border and "↑ 94 earlier checkpoints" pinned above the 98th row at
// once: two numbers for what is above.
func TestTimelineEarlierLineScrollsWithTheRows(t *testing.T) {
	t.Parallel()
	tl := NewTimeline()
	tl.SetTheme(dark)
	tl.SetModel(bigTimeline(50)) // 55 rows: 50 checkpoints, 5 generations
	tl.SetEarlier("↑ 1,600 earlier checkpoints · scroll up to load, or /revert N", 1600)
	s := draw(t, tl, 80, 12) // 10 lines inside the border: 9 rows and the selected checkpoint's detail
	mustFind(t, s, "↑ 1,646 more")
	if _, _, ok := find(s, "earlier checkpoints"); ok {
		t.Errorf("the earlier line shows beside the border's count:\n%s", screenText(s))
	}
	send(tl, key(tcell.KeyHome, 0, 0))
	redraw(s, tl)
	_, y := mustFind(t, s, "↑ 1,600 earlier checkpoints")
	if r := row(s, y+1); !strings.Contains(r, "● 0") {
		t.Errorf("the row under the earlier line is %q, want the first row loaded:\n%s", r, screenText(s))
	}
	if strings.Contains(row(s, 0), "↑") {
		t.Errorf("the border counts what is above beside the earlier line:\n%s", screenText(s))
	}
	// One row down the line still shows: the first row is on screen.
	send(tl, key(tcell.KeyDown, 0, 0))
	redraw(s, tl)
	mustFind(t, s, "↑ 1,600 earlier checkpoints")

	// The later line (a session opened at a search hit) likewise.
	tl.SetEarlier("", 0)
	tl.SetLater("↓ 1,900 later checkpoints · down to load them", 1900)
	redraw(s, tl)
	mustFind(t, s, "↓ 1,946 more")
	if _, _, ok := find(s, "later checkpoints"); ok {
		t.Errorf("the later line shows beside the border's count:\n%s", screenText(s))
	}
	send(tl, key(tcell.KeyEnd, 0, 0))
	redraw(s, tl)
	_, y = mustFind(t, s, "↓ 1,900 later checkpoints")
	if r := row(s, y-1); !strings.Contains(r, "49") {
		t.Errorf("the row above the later line is %q, want the last row loaded:\n%s", r, screenText(s))
	}
	if strings.Contains(row(s, 11), "↓") {
		t.Errorf("the border counts what is below beside the later line:\n%s", screenText(s))
	}
}

// f forks what is selected: an archived generation (SetOnFork), or the
// conversation at a checkpoint (SetOnForkAt), a turn's or a step's.
func TestTimelineForkKey(t *testing.T) {
	t.Parallel()
	tl := NewTimeline()
	tl.SetTheme(dark)
	tl.SetModel(sampleTimeline())
	var gens, at []int
	tl.SetOnFork(func(g GenerationRow) { gens = append(gens, g.Gen) })
	tl.SetOnForkAt(func(c CheckpointRow) { at = append(at, c.ID) })
	draw(t, tl, 80, 24)
	send(tl, key(tcell.KeyRune, 'f', 0))                             // checkpoint 2
	send(tl, key(tcell.KeyRune, 'k', 0), key(tcell.KeyRune, 'f', 0)) // generation 3
	if fmt.Sprint(gens, at) != "[3] [2]" {
		t.Fatalf("forks of generations %v, at checkpoints %v; want [3] [2]", gens, at)
	}
	var help []string
	for _, b := range tl.Bindings() {
		for _, k := range b.Keys {
			if k == R('f') {
				help = append(help, b.Description)
			}
		}
	}
	if len(help) != 1 || !strings.Contains(help[0], "checkpoint") || !strings.Contains(help[0], "generation") {
		t.Errorf("f's help %q: one entry naming both", help)
	}
}

// TestTimelineEarlierLineFitsAtWords: a narrow timeline keeps the earlier
// line's count and drops the parts after it whole ("↑ 101 earlier
// checkpoints: sc…" at 80 columns).
func TestTimelineEarlierLineFitsAtWords(t *testing.T) {
	t.Parallel()
	tl := NewTimeline()
	tl.SetTheme(dark)
	tl.SetModel(sampleTimeline())
	tl.SetEarlier("↑ 101 earlier checkpoints · scroll up to load, or /revert N", 101)
	s := draw(t, tl, 30, 20)
	_, y := mustFind(t, s, "↑ 101 earlier checkpoints …")
	if r := row(s, y); strings.Contains(r, "sc") {
		t.Errorf("row %q cuts a word", r)
	}
	mustFind(t, draw(t, tl, 80, 20), "↑ 101 earlier checkpoints · scroll up to load, or /revert N")
}

// At 80 columns the timeline pane is about 30 cells wide: the label gets
// the room (the token count and time go, the number column is as wide as
// the largest number shown); imported turns cut to 13 letters all looked
// alike.
func TestTimelineLabelHasTheRoomWhenNarrow(t *testing.T) {
	t.Parallel()
	now := time.Now()
	m := TimelineModel{Position: -1}
	for i := 0; i < 3; i++ {
		m.Checkpoints = append(m.Checkpoints, CheckpointRow{ID: 20147 + i, Label: fmt.Sprintf("refactor the session browser, take %d", i), Time: now, Tokens: 12_100_000})
	}
	tl := NewTimeline()
	tl.SetTheme(dark)
	tl.SetModel(m)
	s := draw(t, tl, 32, 10)
	mustFind(t, s, "● 20147  refactor the session…")
	mustFind(t, s, "◉ 20149  refactor the session…")
	wide := draw(t, tl, 60, 10)
	_, y := mustFind(t, wide, "● 20147  refactor the session browser, take 0")
	if r := row(wide, y); !strings.Contains(r, "12.1M") || !strings.Contains(r, now.Format("15:04")) {
		t.Errorf("a wide pane lost the time or the tokens: %q", r)
	}
}

// A turn row is numbered by its turn ("#12"), a person's count of prompts;
// the selected row's detail names the checkpoint /revert and `rewind
// revert` take, with the CLI command. Step rows keep their checkpoint.
func TestTimelineNumbersTurnsAndDetailsTheCheckpoint(t *testing.T) {
	t.Parallel()
	m := TimelineModel{Position: -1, Checkpoints: []CheckpointRow{
		{ID: 40, Label: "fix the parser", TurnNo: 11},
		{ID: 41, Label: "after the prompt, before any step", Step: 1, Turn: 40},
		{ID: 42, Label: "after step 1 · Shell go test", Step: 2, Turn: 40},
		{ID: 47, Label: "add the tests", TurnNo: 12},
	}}
	for _, sz := range []struct{ w, h int }{{32, 14}, {80, 14}} {
		tl := NewTimeline()
		tl.SetTheme(dark)
		tl.SetSessionRef("0123abcd45")
		tl.SetModel(m)
		s := draw(t, tl, sz.w, sz.h)
		mustFind(t, s, "● #11 ▸ fix the parser")
		mustFind(t, s, "◉ #12   add the tests")
		if _, _, ok := find(s, "● 40"); ok {
			t.Errorf("%d columns: the turn row shows its checkpoint:\n%s", sz.w, screenText(s))
		}
		mustFind(t, s, "turn 12 · checkpoint 47")
		mustFind(t, s, "rewind revert 0123abcd45 47")
		send(tl, key(tcell.KeyHome, 0, 0))
		send(tl, key(tcell.KeyRight, 0, 0))
		send(tl, key(tcell.KeyDown, 0, 0))
		send(tl, key(tcell.KeyDown, 0, 0))
		redraw(s, tl)
		mustFind(t, s, "│   42  after step 1")
		mustFind(t, s, "turn 11 step 2 · checkpoint 42")
		mustFind(t, s, "rewind revert 0123abcd45 42")
	}
}

// At 80x24 the timeline is the lone side pane, its top border the tabs
// that name the side panes: what is above is counted on the bottom
// border, left, beside what is below (it was drawn under the tabs).
func TestTimelineCountsAboveUnderTheTabs(t *testing.T) {
	t.Parallel()
	ws := newTestWorkspace()
	setFocus := focuser(ws)
	ws.Timeline.SetModel(bigTimeline(50))
	ws.FocusPane(PaneTimeline, setFocus)
	draw(t, ws, 80, 24)
	ws.Timeline.Select(30)
	s := draw(t, ws, 80, 24)
	mustFind(t, s, "▶Timeline")
	x, y := mustFind(t, s, "↑ ")
	if _, yd := mustFind(t, s, "↓ "); yd != y {
		t.Errorf("the counts above (row %d) and below (row %d) are on different borders", y, yd)
	}
	if x < 40 || !strings.Contains(row(s, y), "╚") {
		t.Errorf("the count above is at %d,%d, want on the timeline's bottom border:\n%s", x, y, screenText(s))
	}
}

package tui

import (
	"context"
	"slices"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/app/timetravel"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/views"
)

// longBranchHarness resumes a 400-turn session (20 pages) after a revert
// to checkpoint cp and its undo (generation 0 restored as generation 2).
func longBranchHarness(t *testing.T, cp int) *harness {
	h, _ := fixtureHarness(t, long400, hopts{w: 180, h: 44, before: func(h *harness) {
		id := long400.id()
		if _, err := h.db.RevertTo(h.ctx, id, cp, store.CauseRevert, ""); err != nil {
			t.Fatal(err)
		}
		if _, err := h.db.Restore(h.ctx, id, 0); err != nil {
			t.Fatal(err)
		}
	}}, true)
	return h
}

// genRow is the timeline's row of generation gen (ok false: none).
func genRow(h *harness, gen int) (g views.GenerationRow, ok bool) {
	h.c.onUIThread(func() { g, ok = genRowIn(h.c.timeline.Model(), gen) })
	return g, ok
}

func genRowIn(m views.TimelineModel, gen int) (views.GenerationRow, bool) {
	for _, r := range m.Generations {
		if r.Gen == gen {
			return r, true
		}
	}
	return views.GenerationRow{}, false
}

// TestLongSessionBranchInTheLoadedPart: in a long session opened at its
// tail, a branch that leaves inside the loaded part is drawn at its
// checkpoint, and the generation identical to the current view (the one
// the undo restored) is not offered.
func TestLongSessionBranchInTheLoadedPart(t *testing.T) {
	t.Parallel()
	h := longBranchHarness(t, 395)
	h.waitFor("prompt 399", "gen 1 · revert")
	if g, _ := genRow(h, 1); g.ForkCheckpoint != 395 {
		t.Errorf("generation 1 branches off at %d, want 395", g.ForkCheckpoint)
	}
	if g, _ := genRow(h, 0); !g.SameView {
		t.Errorf("generation 0 (the current view's) is offered as a branch at %d:\n%s", g.ForkCheckpoint, h.text())
	}
}

// TestLongSessionBranchBeforeTheLoadedPart: a branch that leaves before
// the loaded part is drawn at the top, and moves to its checkpoint once
// the pages holding it are loaded.
func TestLongSessionBranchBeforeTheLoadedPart(t *testing.T) {
	t.Parallel()
	h := longBranchHarness(t, 300)
	h.waitFor("prompt 399")
	h.waitUntil("the timeline's generation 1", func() bool {
		_, ok := genRowIn(h.c.timeline.Model(), 1)
		return ok
	})
	if g, _ := genRow(h, 1); g.ForkCheckpoint != -1 {
		t.Errorf("generation 1 branches off at %d before its checkpoint is loaded, want -1 (the top)", g.ForkCheckpoint)
	}
	h.focus(h.c.conv)
	for range 10 {
		var start int64
		h.c.onUIThread(func() { start = h.c.pg.win.start.Seq })
		if start <= 5*300 {
			break
		}
		h.typeText("g", false)
		h.waitUntil("a page to load", func() bool { return h.c.pg.win.start.Seq < start && !h.c.pg.win.loading })
	}
	if g, _ := genRow(h, 1); g.ForkCheckpoint != 300 {
		t.Errorf("generation 1 branches off at %d once checkpoint 300 is loaded, want 300", g.ForkCheckpoint)
	}
}

// TestLongSessionKeepsEarlierTurnsWhileWriting: the turns an earlier page
// brought into the timeline stay there when the session gains a turn
// (the poll used to rebuild the timeline from the tail it first read).
// 100 turns, not 400: five pages are enough, and the new prompt's request
// carries the whole session (12,000 messages starved the run under the
// race detector on a loaded machine).
func TestLongSessionKeepsEarlierTurnsWhileWriting(t *testing.T) {
	t.Parallel()
	h, _ := fixtureHarness(t, quiet100, hopts{w: 180, h: 44}, true)
	h.srv.Enqueue(llmtest.Text("the new answer"))
	h.waitFor("prompt 99")
	h.focus(h.c.conv)
	h.typeText("g", false)
	h.waitUntil("the earlier page to load", func() bool { return h.c.conv.Len() == 120 && !h.c.pg.win.loading })
	h.focus(h.c.input)
	h.submit("a new prompt")
	h.waitUntil("the new turn in the timeline", func() bool {
		cps := h.c.timeline.Model().Checkpoints
		return h.idle() && slices.ContainsFunc(cps, func(r views.CheckpointRow) bool { return r.Label == "a new prompt" })
	})
	h.c.onUIThread(func() {
		if cps := h.c.timeline.Model().Checkpoints; cps[0].ID != 60 || len(cps) < 41 {
			t.Errorf("after the new turn the timeline has %d checkpoints from %d, want 41+ from 60 (the page loaded)", len(cps), cps[0].ID)
		}
	})
}

// TestLongSessionShowsAnInterruptedStepsPartial: the dimmed partial answer
// of an interrupted step sits after the records it was cut off at in a
// long session opened at its tail.
func TestLongSessionShowsAnInterruptedStepsPartial(t *testing.T) {
	t.Parallel()
	h, _ := fixtureHarness(t, long400, hopts{w: 180, h: 44, before: func(h *harness) {
		ctx, id := h.ctx, long400.id()
		if _, err := h.db.Checkpoint(ctx, id, false); err != nil {
			t.Fatal(err)
		}
		if _, err := h.db.AppendMessage(ctx, id, message.NewText("user", "second task")); err != nil {
			t.Fatal(err)
		}
		if _, _, err := h.db.KeepInterrupted(ctx, id, message.NewText("assistant", "half an answ")); err != nil {
			t.Fatal(err)
		}
		seedTurns(t, h.db, id, "third task")
	}}, true)
	h.waitFor("second task", "answer to third task")
	h.waitFor("half an answ", "⏸ interrupted")
	_, yHalf, _ := h.findText("half an answ")
	_, ySecond, _ := h.findText("▌ second task") // the conversation's, not the timeline's row
	_, yThird, _ := h.findText("▌ third task")
	if !(ySecond < yHalf && yHalf < yThird) {
		t.Errorf("the partial answer is at row %d, want between the second (%d) and third (%d) prompts:\n%s", yHalf, ySecond, yThird, h.text())
	}
}

// TestLongSessionTimelineLoadsEarlierTurns: the timeline of a long
// session says which checkpoints are not loaded and how to reach them,
// and moving its selection up past its first row loads the page before,
// as the conversation's scrolling up does.
func TestLongSessionTimelineLoadsEarlierTurns(t *testing.T) {
	t.Parallel()
	h := longSessionHarness(t)
	h.waitFor("prompt 399")
	h.focus(h.c.timeline)
	h.key(tcell.KeyHome) // the first row: nothing loads yet (g asks for a checkpoint)
	// numbered by turn in the whole session, under the line that says
	// what is not loaded (it scrolls with the rows)
	h.waitFor("● #381", "turn 381 · checkpoint 380", "↑ 380 earlier checkpoints · scroll up to load, or /revert N")
	h.c.onUIThread(func() {
		if h.c.pg.win.loading || len(h.c.timeline.Model().Checkpoints) != 20 {
			t.Errorf("selecting the first row loaded a page")
		}
	})
	h.typeText("k", false)
	h.waitFor("● #380")
	h.key(tcell.KeyHome)
	h.waitFor("↑ 360 earlier checkpoints · scroll up to load, or /revert N")
	h.c.onUIThread(func() {
		if n := len(h.c.timeline.Model().Checkpoints); n != 40 {
			t.Errorf("after moving past the top: %d timeline checkpoints, want 40", n)
		}
	})
	// The selection previews checkpoints; the page went in front of the
	// conversation the preview hides.
	h.key(tcell.KeyEsc)
	h.waitGone("PREVIEW")
	h.c.onUIThread(func() {
		if n := h.c.conv.Len(); n != 120 {
			t.Errorf("after the preview: %d items, want 120", n)
		}
	})
}

// TestTimelineFoldsIdenticalGenerations (issue 20, item 22): after a
// revert, its undo, a restore, a clear and a restore, the undo's
// generation is labelled "undo", the two generations of the start's view
// are one row that says so, and the empty clear is not offered.
func TestTimelineFoldsIdenticalGenerations(t *testing.T) {
	t.Parallel()
	h := resumeHarness(t, func(h *harness) string {
		ctx := context.Background()
		s, err := h.db.ImportSession(ctx, store.NewSession{Title: "folds", WorkDir: h.work},
			[]store.ImportedGeneration{{Records: longRecords(12)}})
		if err != nil {
			t.Fatal(err)
		}
		env := timetravel.Env{DB: h.db, Session: s}
		conv := timetravel.StoreConversation{DB: h.db, SessionID: s.ID}
		p, err := timetravel.PlanRevert(ctx, env, 8, timetravel.Check{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := timetravel.Apply(ctx, env, conv, p, timetravel.ConversationOnly); err != nil { // gen 1
			t.Fatal(err)
		}
		if p, err = timetravel.PlanUndo(ctx, env, timetravel.Check{}); err != nil {
			t.Fatal(err)
		}
		if _, err := timetravel.Apply(ctx, env, conv, p, timetravel.ConversationOnly); err != nil { // gen 2: gen 0's view
			t.Fatal(err)
		}
		for _, step := range []func() (store.Generation, error){
			func() (store.Generation, error) { return h.db.Restore(ctx, s.ID, 1) }, // gen 3
			func() (store.Generation, error) { return h.db.Clear(ctx, s.ID) },      // gen 4: empty
			func() (store.Generation, error) { return h.db.Restore(ctx, s.ID, 3) }, // gen 5: gen 1's view
		} {
			if _, err := step(); err != nil {
				t.Fatal(err)
			}
		}
		return s.ID
	})
	h.waitFor("prompt 7", "gen 0 · import · 36 msgs · same as gen 2 (undo)")
	var m views.TimelineModel
	h.c.onUIThread(func() { m = h.c.timeline.Model() })
	var shown []int
	for _, g := range m.Generations {
		if g.Archived && !g.SameView && !g.Folded {
			shown = append(shown, g.Gen)
		}
	}
	if !slices.Equal(shown, []int{0}) {
		t.Errorf("the timeline offers generations %v, want only 0 (1 and 3 are the live view, 2 is 0's, 4 is empty):\n%s", shown, h.text())
	}
	if g, _ := genRowIn(m, 2); g.Cause != "undo" {
		t.Errorf("generation 2, made by the undo, is labelled %q", g.Cause)
	}
	if g, _ := genRowIn(m, 0); !slices.Equal(g.SameAs, []views.GenerationAlias{{Gen: 2, Cause: "undo"}}) {
		t.Errorf("generation 0's row folds %+v, want generation 2 (undo)", g.SameAs)
	}
}

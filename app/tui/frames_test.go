package tui

import (
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gdamore/tcell/v2"
)

// cellCounter counts the cells each frame sends the terminal: tcell writes
// the dirty cells of its buffer at Show.
type cellCounter struct {
	tcell.SimulationScreen
	last atomic.Int64
}

func (d *cellCounter) Show() {
	cb := d.SimulationScreen.(interface{ GetCells() *tcell.CellBuffer }).GetCells()
	w, h := d.Size()
	n := 0
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			if cb.Dirty(x, y) {
				n++
			}
		}
	}
	d.last.Store(int64(n))
	d.SimulationScreen.Show()
}

// TestStreamedWordSendsOnlyItsCells: in the running workspace (160x48), a
// frame that adds a streamed word to a long answer sends the terminal the
// word's cells, not the screen (every non-blank cell was sent again each
// frame: ~13 KB per frame in tmux).
func TestStreamedWordSendsOnlyItsCells(t *testing.T) {
	t.Parallel()
	var cc *cellCounter
	h := newHarness(t, hopts{w: 160, h: 48, mutate: func(o *Options) {
		// Under the harness's lazyScreen: the counter shows each frame.
		cc = &cellCounter{SimulationScreen: o.Screen.(*lazyScreen).SimulationScreen}
		o.Screen = cc
	}})
	h.waitFor("Input")
	h.c.onUIThread(func() {
		h.c.conv.AppendDelta(strings.Repeat("A long answer streams in, word after word. ", 200))
	})
	h.c.onUIThread(func() {}) // settle
	// another pane may change in the same frame (the session list's first
	// read, the clock): the fewest cells of three words' frames
	least := int64(-1)
	for _, w := range []string{"one ", "two ", "three "} {
		h.c.onUIThread(func() { h.c.conv.AppendDelta(w) })
		if n := cc.last.Load(); least < 0 || n < least {
			least = n
		}
	}
	if least > 20 {
		t.Fatalf("the frames adding a word sent at least %d cells to the terminal", least)
	}
	h.waitFor("one two", "three")
}

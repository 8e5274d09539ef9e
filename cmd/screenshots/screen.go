package main

import (
	"strings"
	"sync"

	"github.com/gdamore/tcell/v2"
)

// screen is the simulated terminal the workspace draws on. It starts at
// w×h cells and keeps a copy of every frame it shows, so the scenes read
// frames without racing the UI goroutine that draws them, and wait for the
// next frame instead of polling on a timer.
type screen struct {
	tcell.SimulationScreen
	w, h int

	mu    sync.Mutex
	last  frame
	shown chan struct{} // closed when a frame newer than last is shown
}

// frame is one drawn screen: w×h cells, row by row.
type frame struct {
	cells []tcell.SimCell
	w, h  int
}

func newScreen(w, h int) *screen {
	return &screen{SimulationScreen: tcell.NewSimulationScreen("UTF-8"), w: w, h: h, shown: make(chan struct{})}
}

// Init starts the simulation at the scenes' size (its own default is 80×25).
func (s *screen) Init() error {
	if err := s.SimulationScreen.Init(); err != nil {
		return err
	}
	s.SimulationScreen.SetSize(s.w, s.h)
	return nil
}

// Show draws the frame and keeps a copy (UI goroutine).
func (s *screen) Show() {
	s.SimulationScreen.Show()
	s.keep()
}

// Sync redraws the whole frame and keeps a copy (UI goroutine).
func (s *screen) Sync() {
	s.SimulationScreen.Sync()
	s.keep()
}

// keep copies the cells just shown. Drawing replaces a cell's rune slice
// rather than writing into it, so copying the cells is enough.
func (s *screen) keep() {
	cells, w, h := s.SimulationScreen.GetContents()
	f := frame{cells: append([]tcell.SimCell(nil), cells...), w: w, h: h}
	s.mu.Lock()
	s.last = f
	close(s.shown)
	s.shown = make(chan struct{})
	s.mu.Unlock()
}

// frame returns the last frame shown (empty before the first) and a
// channel closed when the next one is.
func (s *screen) frame() (frame, <-chan struct{}) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last, s.shown
}

// text is the frame as lines of text.
func (f frame) text() string {
	var b strings.Builder
	for y := 0; y < f.h; y++ {
		if y > 0 {
			b.WriteByte('\n')
		}
		for x := 0; x < f.w; x++ {
			c := f.cells[y*f.w+x]
			if len(c.Runes) == 0 {
				b.WriteByte(' ')
				continue
			}
			b.WriteString(string(c.Runes))
		}
	}
	return b.String()
}

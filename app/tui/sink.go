package tui

import (
	"sync"
	"time"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/views"
)

// FlushInterval is the longest the UI lags behind the soul: events are
// collected and applied in one QueueUpdateDraw at most every FlushInterval
// (≈ 30 redraws a second however fast the model streams).
const FlushInterval = 33 * time.Millisecond

// batcher collects events from any goroutine and hands them, in order and in
// batches, to deliver (which runs on the coalescer's timer goroutine and
// normally calls onUIThread once). Consecutive text deltas are merged so a
// 2,000 tok/s stream costs one string append per batch, not per token.
type batcher struct {
	flushMu sync.Mutex // one flush at a time, so batches reach the UI in order
	mu      sync.Mutex
	pending []soul.Event
	stopped bool
	deliver func([]soul.Event)
	co      *views.Coalescer
}

func newBatcher(interval time.Duration, deliver func([]soul.Event)) *batcher {
	b := &batcher{deliver: deliver}
	b.co = views.NewCoalescer(interval, b.flush)
	return b
}

// push queues e; safe from any goroutine, never blocks on the UI.
func (b *batcher) push(e soul.Event) {
	b.mu.Lock()
	if b.stopped {
		b.mu.Unlock()
		return
	}
	if n := len(b.pending); n > 0 {
		switch cur := e.(type) {
		case soul.ContentPart:
			if prev, ok := b.pending[n-1].(soul.ContentPart); ok {
				b.pending[n-1] = soul.ContentPart{Text: prev.Text + cur.Text}
				b.mu.Unlock()
				b.co.Trigger()
				return
			}
		case soul.ReasoningPart:
			if prev, ok := b.pending[n-1].(soul.ReasoningPart); ok {
				b.pending[n-1] = soul.ReasoningPart{Text: prev.Text + cur.Text}
				b.mu.Unlock()
				b.co.Trigger()
				return
			}
		case soul.ToolOutput:
			if prev, ok := b.pending[n-1].(soul.ToolOutput); ok && prev.ID == cur.ID {
				b.pending[n-1] = soul.ToolOutput{ID: cur.ID, Text: prev.Text + cur.Text}
				b.mu.Unlock()
				b.co.Trigger()
				return
			}
		case soul.StatusUpdate:
			if _, ok := b.pending[n-1].(soul.StatusUpdate); ok {
				b.pending[n-1] = cur
				b.mu.Unlock()
				b.co.Trigger()
				return
			}
		}
	}
	b.pending = append(b.pending, e)
	b.mu.Unlock()
	b.co.Trigger()
}

// flush runs on the coalescer's goroutine.
func (b *batcher) flush() {
	b.flushMu.Lock()
	defer b.flushMu.Unlock()
	b.mu.Lock()
	batch := b.pending
	b.pending = nil
	b.mu.Unlock()
	if len(batch) > 0 {
		b.deliver(batch)
	}
}

// stop drops pending events and waits for a running flush to return.
func (b *batcher) stop() {
	b.mu.Lock()
	b.stopped = true
	b.pending = nil
	b.mu.Unlock()
	b.co.Stop()
}

// Synthetic events: results of worker-side work that travel the same ordered
// path as the soul's events, so the UI applies everything in one place.

// evReload replaces the conversation and/or timeline with fresh store data.
type evReload struct {
	items    []views.Item // nil with keepConv
	keepConv bool
	timeline views.TimelineModel
	banner   *views.Item // appended after the items
	title    string
	gen      int
}

// evSessions is a fresh session list.
type evSessions struct{ rows []views.SessionRow }

// evOpDone says a run or an operation (compact, clear, …) returned.
type evOpDone struct {
	op  string
	err error
}

// evNote is a status-bar message from a worker.
type evNote struct {
	text  string
	isErr bool
}

// evTick drives the elapsed clock and message timeouts.
type evTick struct{}

func (evReload) EventType() string   { return "tui.reload" }
func (evSessions) EventType() string { return "tui.sessions" }
func (evOpDone) EventType() string   { return "tui.opdone" }
func (evNote) EventType() string     { return "tui.note" }
func (evTick) EventType() string     { return "tui.tick" }

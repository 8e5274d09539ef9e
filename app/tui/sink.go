package tui

import (
	"sync"
	"time"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/views"
)

// FlushInterval is the longest a streamed delta waits for the UI: deltas
// are collected and applied in one QueueUpdateDraw at most every
// FlushInterval (20 redraws a second however fast the model streams; a
// frame costs the same whatever it adds). Any other event flushes at once
// (paced).
const FlushInterval = 50 * time.Millisecond

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
		if m, ok := merge(b.pending[n-1], e); ok {
			b.pending[n-1] = m
		} else {
			b.pending = append(b.pending, e)
		}
	} else {
		b.pending = append(b.pending, e)
	}
	b.mu.Unlock()
	if paced(e) {
		b.co.Trigger()
	} else {
		b.co.TriggerNow()
	}
}

// paced reports whether e only grows what is streaming (a delta, the
// numbers, the clock) and can wait for the next frame; anything else (the
// stream's end, a tool call, the answer to a user's action) is shown at
// once, with the deltas before it.
func paced(e soul.Event) bool {
	switch ev := e.(type) {
	case soul.ContentPart, soul.ReasoningPart, soul.ToolOutput, soul.ToolCallPart, soul.StatusUpdate, evTick:
		return true
	case soul.SubagentEvent:
		return paced(ev.Event)
	}
	return false
}

// merge folds next into prev when both are text deltas of the same kind
// (tool output of the same call), or both status updates (the newest wins).
func merge(prev, next soul.Event) (soul.Event, bool) {
	switch cur := next.(type) {
	case soul.ContentPart:
		if p, ok := prev.(soul.ContentPart); ok {
			return soul.ContentPart{Text: p.Text + cur.Text}, true
		}
	case soul.ReasoningPart:
		if p, ok := prev.(soul.ReasoningPart); ok {
			return soul.ReasoningPart{Text: p.Text + cur.Text}, true
		}
	case soul.ToolOutput:
		if p, ok := prev.(soul.ToolOutput); ok && p.ID == cur.ID {
			return soul.ToolOutput{ID: cur.ID, Text: p.Text + cur.Text}, true
		}
	case soul.StatusUpdate:
		if _, ok := prev.(soul.StatusUpdate); ok {
			return cur, true
		}
	}
	return nil, false
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
	session  string  // the session the view belongs to
	cursor   int64   // the view's store.View.Cursor (follow.go continues from it)
	win      *window // the part of the view items holds (nil with keepConv)
	mark     *int    // the item of a search hit: shown and marked (nil: none)
	hitCP    *int    // the checkpoint a search hit comes after: its timeline row is selected
	// follow: a catch-up's whole read (followview.go), which leaves the
	// conversation alone while it shows a search hit's window.
	follow bool
}

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

func (evReload) EventType() string { return "tui.reload" }
func (evOpDone) EventType() string { return "tui.opdone" }
func (evNote) EventType() string   { return "tui.note" }
func (evTick) EventType() string   { return "tui.tick" }

package tui

import (
	"strings"
	"sync"
	"time"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/views"
)

// FlushInterval is the longest a streamed delta waits for the UI: deltas
// are collected and applied in one QueueUpdateDraw at most every
// FlushInterval (20 redraws a second however fast the model streams; a
// frame costs the same whatever it adds).
const FlushInterval = 50 * time.Millisecond

// PromptInterval is the longest any other event waits (the stream's end,
// a tool call, the answer to a user's action): it is applied at once, or
// PromptInterval after the last update when that is sooner (a burst of
// them is drawn at most 30 times a second, as before the pacing).
const PromptInterval = 33 * time.Millisecond

// batcher collects events from any goroutine and hands them, in order and in
// batches, to deliver (which runs on the coalescer's timer goroutine and
// normally calls onUIThread once). Consecutive text deltas are merged so a
// 2,000 tok/s stream costs the UI one string append per batch, not per
// token.
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
	b.pending = append(b.pending, e)
	b.mu.Unlock()
	if paced(e) {
		b.co.Trigger()
	} else {
		b.co.TriggerWithin(PromptInterval)
	}
}

// paced reports whether e only grows what is streaming (a delta, the
// numbers, the clock) and can wait for the next frame; anything else (the
// stream's end, a tool call, the answer to a user's action) is shown
// within PromptInterval, with the deltas before it.
func paced(e soul.Event) bool {
	switch ev := e.(type) {
	case soul.ContentPart, soul.ReasoningPart, soul.ToolOutput, soul.ToolCallPart, soul.StatusUpdate, evTick:
		return true
	case soul.SubagentEvent:
		return paced(ev.Event)
	}
	return false
}

// mergeDeltas folds each run of text deltas of the same kind (tool
// output of the same call) into one, and each run of status updates into
// its newest. A run's text is joined once: appending each delta to the
// merged string as it came copied the batch's text so far per token.
func mergeDeltas(batch []soul.Event) []soul.Event {
	out := batch[:0]
	var text strings.Builder
	for i := 0; i < len(batch); {
		e := batch[i]
		j := i + 1
		for j < len(batch) && sameRun(e, batch[j]) {
			j++
		}
		if j-i > 1 {
			switch cur := e.(type) {
			case soul.ContentPart:
				e = soul.ContentPart{Text: joinRun(&text, batch[i:j])}
			case soul.ReasoningPart:
				e = soul.ReasoningPart{Text: joinRun(&text, batch[i:j])}
			case soul.ToolOutput:
				e = soul.ToolOutput{ID: cur.ID, Text: joinRun(&text, batch[i:j])}
			case soul.StatusUpdate:
				e = batch[j-1]
			}
		}
		out = append(out, e)
		i = j
	}
	clear(batch[len(out):])
	return out
}

// sameRun reports whether next merges into a run that starts with first.
func sameRun(first, next soul.Event) bool {
	switch cur := next.(type) {
	case soul.ContentPart:
		_, ok := first.(soul.ContentPart)
		return ok
	case soul.ReasoningPart:
		_, ok := first.(soul.ReasoningPart)
		return ok
	case soul.ToolOutput:
		p, ok := first.(soul.ToolOutput)
		return ok && p.ID == cur.ID
	case soul.StatusUpdate:
		_, ok := first.(soul.StatusUpdate)
		return ok
	}
	return false
}

// joinRun is the text of a run of deltas of one kind.
func joinRun(b *strings.Builder, run []soul.Event) string {
	b.Reset()
	for _, e := range run {
		switch d := e.(type) {
		case soul.ContentPart:
			b.WriteString(d.Text)
		case soul.ReasoningPart:
			b.WriteString(d.Text)
		case soul.ToolOutput:
			b.WriteString(d.Text)
		}
	}
	return b.String()
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
		b.deliver(mergeDeltas(batch))
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
	// tokens is the session's saved token count, read after the view
	// (reloadOf): never older than what the view shows. nil: not read.
	tokens *int
	// shown runs once the view is applied, in the same update (the switch
	// that read it ends there: onUISwitchTo).
	shown func()
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
	news  bool // outlives the end of the operation that posted it (setNews)
}

// evTick drives the elapsed clock and message timeouts.
type evTick struct{}

func (evReload) EventType() string { return "tui.reload" }
func (evOpDone) EventType() string { return "tui.opdone" }
func (evNote) EventType() string   { return "tui.note" }
func (evTick) EventType() string   { return "tui.tick" }

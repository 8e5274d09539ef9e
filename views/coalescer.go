package views

import (
	"sync"
	"time"
)

// DefaultRedrawInterval is the coalescer period the app should use: at
// most ~40 redraws a second, so a 2,000 tokens/s stream does not redraw per
// token.
const DefaultRedrawInterval = 25 * time.Millisecond

// Coalescer batches update notifications from any goroutine and calls
// flush at most once per interval, always after the last Trigger (no
// update is lost). The app's flush applies the pending changes and calls
// Application.QueueUpdateDraw once — never from inside a tview handler.
type Coalescer struct {
	interval time.Duration
	flush    func()

	mu        sync.Mutex
	scheduled bool
	due       time.Time // when the scheduled flush runs
	stopped   bool
	last      time.Time
	timer     *time.Timer
	running   sync.WaitGroup
}

// NewCoalescer returns a coalescer calling flush at most every interval.
func NewCoalescer(interval time.Duration, flush func()) *Coalescer {
	if interval <= 0 {
		interval = DefaultRedrawInterval
	}
	return &Coalescer{interval: interval, flush: flush}
}

// Trigger notes that something changed. It never blocks on flush.
func (c *Coalescer) Trigger() { c.TriggerWithin(c.interval) }

// TriggerWithin notes a change that must not wait the whole interval (a
// stream's end, the answer to a user's action): the flush runs at most d
// after the last one (at once if that is past), taking what Trigger had
// left waiting with it. It never blocks on flush.
func (c *Coalescer) TriggerWithin(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stopped {
		return
	}
	due := c.last.Add(min(d, c.interval))
	if now := time.Now(); due.Before(now) {
		due = now
	}
	if c.scheduled {
		// A waiting flush is brought forward; one whose timer fired
		// already is about to run and takes this change.
		if !due.Before(c.due) || !c.timer.Stop() {
			return
		}
		c.running.Done()
	}
	c.scheduled, c.due = true, due
	c.running.Add(1)
	c.timer = time.AfterFunc(time.Until(due), c.fire)
}

func (c *Coalescer) fire() {
	defer c.running.Done()
	c.mu.Lock()
	if c.stopped {
		c.scheduled = false
		c.mu.Unlock()
		return
	}
	// Clear before flushing so a Trigger during flush schedules another.
	c.scheduled = false
	c.last = time.Now()
	c.mu.Unlock()
	c.flush()
}

// Stop cancels a pending flush and waits for a running one to return.
// Triggers after Stop are ignored.
func (c *Coalescer) Stop() {
	c.mu.Lock()
	c.stopped = true
	if c.timer != nil && c.timer.Stop() {
		c.scheduled = false
		c.running.Done()
	}
	c.mu.Unlock()
	c.running.Wait()
}

package tui

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestOnUIThreadReturnsWhileTheAppQuits posts updates from many goroutines
// while the app quits: every onUIThread call must return (none stranded
// behind a stopped loop), each true call must have run its update, and Run
// must return. goleak (TestMain) fails the run if the poster is left behind.
func TestOnUIThreadReturnsWhileTheAppQuits(t *testing.T) {
	t.Parallel()
	h := newHarness(t, hopts{})
	const posters, each = 16, 50
	var wg sync.WaitGroup
	var ran, accepted atomic.Int64
	start := make(chan struct{})
	for range posters {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for range each {
				if h.c.onUIThread(func() { ran.Add(1) }) {
					accepted.Add(1)
				}
			}
		}()
	}
	close(start)
	quit := make(chan struct{})
	go func() {
		defer close(quit)
		h.c.onUIThread(h.c.onUIQuit)
	}()

	returned := make(chan struct{})
	go func() { wg.Wait(); close(returned) }()
	select {
	case <-returned:
	case <-time.After(waitLimit):
		t.Fatal("an onUIThread call hung while the app quit")
	}
	select {
	case <-quit:
	case <-time.After(waitLimit):
		t.Fatal("the quit update hung")
	}
	select {
	case err := <-h.done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
		h.done <- nil // for the harness's own stop
	case <-time.After(waitLimit):
		t.Fatal("Run did not return after quit")
	}
	if ran.Load() != accepted.Load() {
		t.Fatalf("%d updates reported run, %d ran", accepted.Load(), ran.Load())
	}
	if h.c.onUIThread(func() { t.Error("an update ran after the app stopped") }) {
		t.Fatal("onUIThread returned true after the app stopped")
	}
}

// TestEventsPostedBeforeTheLoopStartsAreApplied: an event the batcher
// flushes before Run's loop is up (an MCP server failing at once, under
// load) waits for the loop instead of being dropped.
func TestEventsPostedBeforeTheLoopStartsAreApplied(t *testing.T) {
	t.Parallel()
	var ran atomic.Bool
	h := newHarness(t, hopts{beforeRun: func(h *harness) {
		h.c.onUIThreadAsync(func() { ran.Store(true) })
		deadline := time.Now().Add(waitLimit)
		// Until the batcher has taken the event to deliver it, or a flush
		// (of New's own events) is under way: that one holds flushMu, and
		// the event then follows it.
		for {
			h.c.ui.events.mu.Lock()
			n := len(h.c.ui.events.pending)
			h.c.ui.events.mu.Unlock()
			if n == 0 {
				break
			}
			if !h.c.ui.events.flushMu.TryLock() {
				break
			}
			h.c.ui.events.flushMu.Unlock()
			if time.Now().After(deadline) {
				t.Fatal("the batcher never flushed")
			}
			time.Sleep(time.Millisecond) // poll: the batcher's state is what the test checks, and it signals nothing
		}
	}})
	h.waitUntil("the early event applied", ran.Load)
}

package tui

import (
	"sync"
	"sync/atomic"
)

// uiState tells workers whether the UI loop can still take updates.
type uiState struct {
	running atomic.Bool
	stopped chan struct{} // closed when the application has stopped

	workMu  sync.Mutex
	closing bool // shutdown began: no new workers (WaitGroup.Add must not race Wait)
}

// onUIThread runs f on the UI goroutine and redraws: the one wrapper around
// Application.QueueUpdateDraw. It returns false without running f when the
// application is not running (QueueUpdateDraw would block forever once Run
// has returned). It must not be called from the UI goroutine (handlers,
// onUI… functions): that deadlocks.
func (c *Controller) onUIThread(f func()) bool {
	if !c.ui.running.Load() {
		return false
	}
	done := make(chan struct{})
	go func() {
		c.app.QueueUpdateDraw(func() {
			if c.ui.running.Load() {
				f()
			}
		})
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-c.ui.stopped:
		return false
	}
}

// onWorker runs f on a new goroutine owned by the controller: shutdown waits
// for it. f must not touch widgets; it reports back through c.post.
func (c *Controller) onWorker(f func()) {
	c.ui.workMu.Lock()
	if c.ui.closing {
		c.ui.workMu.Unlock()
		return
	}
	c.workers.Add(1)
	c.ui.workMu.Unlock()
	go func() {
		defer c.workers.Done()
		f()
	}()
}

package tui

import (
	"slices"
	"sync"
	"sync/atomic"
)

// uiState is the goroutines' machinery: whether the UI loop can still
// take updates, the one goroutine that queues them (posts), the ordered
// event pipeline (events, sink.go) and the workers shutdown waits for.
type uiState struct {
	running atomic.Bool
	started chan struct{} // closed when the loop ran its first update (running is set)
	stopped chan struct{} // closed when the application has stopped

	posts   *poster  // the one goroutine that queues UI updates and stops the app
	events  *batcher // the event pipeline: soul events and posted functions, in order
	workers sync.WaitGroup

	workMu  sync.Mutex
	closing bool // shutdown began: no new workers (WaitGroup.Add must not race Wait)
}

// uiUpdate is one onUIThread call waiting for the poster.
type uiUpdate struct {
	f    func()
	done chan struct{} // closed once f ran (or was skipped because the UI stopped)
	read bool          // f only reads: it needs no draw
}

// poster is the one goroutine that calls Application.QueueUpdateDraw.
// tview's QueueUpdate blocks until the loop ran the update, and forever once
// Run has returned; so only the poster queues updates, and only the poster
// stops the application, after its last QueueUpdateDraw returned.
type poster struct {
	mu      sync.Mutex
	queue   []uiUpdate
	closing bool          // no new updates; stop the application after the last batch
	wake    chan struct{} // buffered(1): the queue or closing changed
	exited  chan struct{} // closed when the poster goroutine returns
}

func newPoster() *poster {
	return &poster{wake: make(chan struct{}, 1), exited: make(chan struct{})}
}

func (p *poster) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// enqueue adds f unless shutdown began.
func (p *poster) enqueue(f func(), read bool) (chan struct{}, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closing {
		return nil, false
	}
	u := uiUpdate{f: f, done: make(chan struct{}), read: read}
	p.queue = append(p.queue, u)
	p.signal()
	return u.done, true
}

// close asks the poster to run what is queued, stop the application and exit.
func (p *poster) close() {
	p.mu.Lock()
	p.closing = true
	p.mu.Unlock()
	p.signal()
}

// runPoster is the poster goroutine. started runs inside the loop's first
// update (it marks the UI running). Each wake drains the queue into one
// QueueUpdateDraw, or one QueueUpdate when every update in it only reads.
func (c *Controller) runPoster(started func()) {
	defer close(c.ui.posts.exited)
	c.app.QueueUpdateDraw(started)
	for range c.ui.posts.wake {
		c.ui.posts.mu.Lock()
		batch, closing := c.ui.posts.queue, c.ui.posts.closing
		c.ui.posts.queue = nil
		c.ui.posts.mu.Unlock()
		if len(batch) > 0 {
			run := func() {
				for _, u := range batch {
					if c.ui.running.Load() {
						u.f()
					}
					close(u.done)
				}
			}
			if slices.ContainsFunc(batch, func(u uiUpdate) bool { return !u.read }) {
				c.app.QueueUpdateDraw(run)
			} else {
				c.app.QueueUpdate(run)
			}
		}
		if closing {
			c.ui.running.Store(false)
			c.app.Stop()
			return
		}
	}
}

// onUIThread runs f on the UI goroutine and redraws: the one way to reach
// Application.QueueUpdateDraw, through the poster. It returns false without
// running f when the application is not running or is shutting down. It must
// not be called from the UI goroutine (handlers, onUI… functions): that
// deadlocks.
func (c *Controller) onUIThread(f func()) bool { return c.ui.posts.run(&c.ui, f, false) }

// run queues f and waits until it ran on the UI goroutine. read says f
// changes nothing shown, so it needs no draw of its own (a test's check of
// the UI state would otherwise draw a frame each time it looks).
func (p *poster) run(ui *uiState, f func(), read bool) bool {
	if !ui.running.Load() {
		return false
	}
	done, ok := p.enqueue(f, read)
	if !ok {
		return false
	}
	select {
	case <-done:
		return true
	case <-ui.stopped:
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
	c.ui.workers.Add(1)
	c.ui.workMu.Unlock()
	go func() {
		defer c.ui.workers.Done()
		f()
	}()
}

package views

import (
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"
)

// The coalescer tests run in a synctest bubble: time is fake and only
// advances when every goroutine in the bubble is blocked, so the counts
// below are exact instead of depending on the machine's load.

func TestCoalescerBatches(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var version, seen, flushes atomic.Int64
		const interval = 20 * time.Millisecond
		c := NewCoalescer(interval, func() {
			flushes.Add(1)
			seen.Store(version.Load())
		})
		start := time.Now()
		var wg sync.WaitGroup
		for g := 0; g < 4; g++ {
			wg.Go(func() {
				for i := 0; i < 250; i++ { // 1,000 updates over 100 ms: a 10k tokens/s stream
					version.Add(1)
					c.Trigger()
					time.Sleep(400 * time.Microsecond) // fake clock (synctest): moves time, waits on nothing
				}
			})
		}
		wg.Wait()
		elapsed := time.Since(start)
		time.Sleep(interval) // fake clock (synctest): moves time, waits on nothing
		synctest.Wait()
		if seen.Load() != version.Load() {
			t.Fatalf("last update never flushed: saw %d of %d", seen.Load(), version.Load())
		}
		n := flushes.Load()
		if max := int64(elapsed/interval) + 2; n < 1 || n > max {
			t.Fatalf("%d flushes for 1000 triggers in %v (max %d)", n, elapsed, max)
		}
		c.Stop()
		before := flushes.Load()
		c.Trigger()
		time.Sleep(5 * interval) // fake clock (synctest): moves time, waits on nothing
		synctest.Wait()
		if flushes.Load() != before {
			t.Fatal("flush after Stop")
		}
	})
}

func TestCoalescerSpacing(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var times []time.Time
		c := NewCoalescer(30*time.Millisecond, func() {
			mu.Lock()
			times = append(times, time.Now())
			mu.Unlock()
		})
		defer c.Stop()
		end := time.Now().Add(200 * time.Millisecond)
		for time.Now().Before(end) {
			c.Trigger()
			time.Sleep(time.Millisecond) // fake clock (synctest): moves time, waits on nothing
		}
		time.Sleep(60 * time.Millisecond) // fake clock (synctest): moves time, waits on nothing
		synctest.Wait()
		mu.Lock()
		defer mu.Unlock()
		if len(times) < 6 {
			t.Fatalf("only %d flushes in 200 ms of updates at a 30 ms interval", len(times))
		}
		for i := 1; i < len(times); i++ {
			if d := times[i].Sub(times[i-1]); d < 30*time.Millisecond {
				t.Fatalf("flushes %v apart (interval 30 ms)", d)
			}
		}
	})
}

// TestCoalescerStopWaitsForRunningFlush: Stop returns only after a flush
// that already started has returned, so the app can tear down what flush
// touches right after Stop.
func TestCoalescerStopWaitsForRunningFlush(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		var finished atomic.Bool
		c := NewCoalescer(time.Millisecond, func() {
			<-release
			finished.Store(true)
		})
		c.Trigger()
		time.Sleep(2 * time.Millisecond) // fake clock (synctest): moves time, waits on nothing
		synctest.Wait()                  // flush is now blocked on release
		stopped := make(chan struct{})
		go func() { c.Stop(); close(stopped) }()
		synctest.Wait()
		select {
		case <-stopped:
			t.Fatal("Stop returned while a flush was running")
		default:
		}
		close(release)
		<-stopped
		if !finished.Load() {
			t.Fatal("flush did not finish before Stop returned")
		}
	})
}

// TestCoalescerTriggerWithinBringsTheFlushForward: a change that must not
// wait the whole interval (a stream's end) flushes at most d after the
// last flush (at once when that is past), with the changes Trigger had
// left waiting; a later Trigger does not push it back.
func TestCoalescerTriggerWithinBringsTheFlushForward(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		var mu sync.Mutex
		var times []time.Duration
		start := time.Now()
		const interval = 50 * time.Millisecond
		c := NewCoalescer(interval, func() {
			mu.Lock()
			times = append(times, time.Since(start))
			mu.Unlock()
		})
		defer c.Stop()
		flushes := func() []time.Duration {
			synctest.Wait()
			mu.Lock()
			defer mu.Unlock()
			return append([]time.Duration(nil), times...)
		}
		c.Trigger() // the first flushes at once
		if got := flushes(); len(got) != 1 || got[0] != 0 {
			t.Fatalf("flushes %v; want one at 0", got)
		}
		time.Sleep(10 * time.Millisecond) // fake clock (synctest): moves time, waits on nothing
		c.Trigger()                       // waits for 50 ms
		if got := flushes(); len(got) != 1 {
			t.Fatalf("a Trigger 10 ms after a flush flushed at once: %v", got)
		}
		time.Sleep(10 * time.Millisecond) // fake clock (synctest): moves time, waits on nothing
		c.TriggerWithin(0)                // at 20 ms: at once
		c.TriggerWithin(0)
		if got := flushes(); len(got) != 2 || got[1] != 20*time.Millisecond {
			t.Fatalf("flushes %v; want the second at 20ms (TriggerWithin(0))", got)
		}
		c.Trigger()                            // due at 70 ms
		time.Sleep(5 * time.Millisecond)       // fake clock (synctest): moves time, waits on nothing
		c.TriggerWithin(30 * time.Millisecond) // brought forward to 50 ms
		c.Trigger()                            // not pushed back
		time.Sleep(30 * time.Millisecond)      // fake clock (synctest): moves time, waits on nothing
		if got := flushes(); len(got) != 3 || got[2] != 50*time.Millisecond {
			t.Fatalf("flushes %v; want the third at 50ms (30 ms after the last)", got)
		}
		c.Trigger()
		time.Sleep(interval) // fake clock (synctest): moves time, waits on nothing
		if got := flushes(); len(got) != 4 || got[3] != 100*time.Millisecond {
			t.Fatalf("flushes %v; want the fourth at 100ms", got)
		}
	})
}

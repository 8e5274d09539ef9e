package views

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestCoalescerBatches(t *testing.T) {
	t.Parallel()
	var version, seen, flushes atomic.Int64
	c := NewCoalescer(20*time.Millisecond, func() {
		flushes.Add(1)
		seen.Store(version.Load())
	})
	start := time.Now()
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 250; i++ { // 1,000 updates over ~100 ms: a 10k tokens/s stream
				version.Add(1)
				c.Trigger()
				time.Sleep(400 * time.Microsecond)
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(start)
	deadline := time.Now().Add(2 * time.Second)
	for seen.Load() != version.Load() && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if seen.Load() != version.Load() {
		t.Fatalf("last update never flushed: saw %d of %d", seen.Load(), version.Load())
	}
	n := flushes.Load()
	max := int64(elapsed/(20*time.Millisecond)) + 3
	if n < 1 || n > max {
		t.Fatalf("%d flushes for 1000 triggers in %v (max %d)", n, elapsed, max)
	}
	c.Stop()
	before := flushes.Load()
	c.Trigger()
	time.Sleep(50 * time.Millisecond)
	if flushes.Load() != before {
		t.Fatal("flush after Stop")
	}
}

func TestCoalescerSpacing(t *testing.T) {
	t.Parallel()
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
		time.Sleep(time.Millisecond)
	}
	time.Sleep(60 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if len(times) < 3 {
		t.Fatalf("only %d flushes in 200 ms of updates", len(times))
	}
	for i := 1; i < len(times); i++ {
		if d := times[i].Sub(times[i-1]); d < 25*time.Millisecond {
			t.Fatalf("flushes %v apart (interval 30 ms)", d)
		}
	}
}

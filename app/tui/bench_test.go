package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

// BenchmarkStream2000 streams 2,000 tokens per second for two seconds into
// a running workspace (200×60 simulation screen) and reports redraws per
// second, the process CPU share and the mean draw time. "batched" goes
// through the controller's batching sink (what the soul uses); "per-event"
// queues one update per token, the way the sink must not work, for
// comparison. Run: go test -run '^$' -bench Stream2000 -benchtime 1x ./app/tui/
func BenchmarkStream2000(b *testing.B) {
	for _, mode := range []string{"batched", "per-event"} {
		b.Run(mode, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				d := 2 * time.Second
				if mode == "per-event" {
					d = time.Second / 4 // it cannot keep up; keep the run short
				}
				benchStream(b, mode == "batched", 2000, d)
			}
		})
	}
}

func benchStream(b *testing.B, batched bool, tokPerSec int, d time.Duration) {
	srv := llmtest.NewServer(b)
	c, screen, done := benchWorkspace(b, srv.URL(), true)
	for !c.ui.running.Load() {
		time.Sleep(time.Millisecond) // poll before timing: the benchmark reads counters, not frames
	}
	var draws atomic.Int64
	var drawNS atomic.Int64
	var drawStart time.Time // UI goroutine only
	c.onUIThread(func() {
		c.app.SetBeforeDrawFunc(func(tcell.Screen) bool { drawStart = time.Now(); return false })
		c.app.SetAfterDrawFunc(func(tcell.Screen) { draws.Add(1); drawNS.Add(int64(time.Since(drawStart))) })
	})
	c.app.QueueUpdateDraw(func() { screen.SetSize(200, 60) })
	c.onUIThread(c.step.markStepStart)

	words := []string{"The ", "quick ", "brown ", "fox ", "`jumps` ", "over ", "the ", "**lazy** ", "dog", ".\n\n"}
	total := int(float64(tokPerSec) * d.Seconds())
	interval := time.Second / time.Duration(tokPerSec)
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	draws0, ns0 := draws.Load(), drawNS.Load()
	start := time.Now()
	b.ResetTimer()
	for i := 0; i < total; i++ {
		if wait := time.Until(start.Add(time.Duration(i) * interval)); wait > 0 {
			time.Sleep(wait) // pacing: the stream's rate is the load measured, not a wait
		}
		ev := soul.ContentPart{Text: words[i%len(words)]}
		if batched {
			c.onWorkerSink(ev)
		} else {
			c.onUIThread(func() { c.onUIApply(ev) })
		}
	}
	// Wait until the last token is on screen.
	for {
		var n int
		c.onUIThread(func() {
			if it, ok := c.conv.Item(c.conv.Len() - 1); ok {
				n = len(it.Text)
			}
		})
		if n > 0 && time.Since(start) >= d {
			break
		}
		time.Sleep(time.Millisecond) // poll: the streamed text reaches the conversation without a signal
	}
	time.Sleep(2 * FlushInterval) // the flush interval passes: what the batcher holds goes out
	wall := time.Since(start)
	b.StopTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(ru1.Utime.Nano()-ru0.Utime.Nano()) + time.Duration(ru1.Stime.Nano()-ru0.Stime.Nano())
	nd := draws.Load() - draws0
	b.ReportMetric(float64(nd)/wall.Seconds(), "redraws/s")
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "cpu%")
	if nd > 0 {
		b.ReportMetric(float64(drawNS.Load()-ns0)/float64(nd)/1e6, "ms/draw")
	}
	b.ReportMetric(float64(total)/wall.Seconds(), "tok/s")

	c.onUIThread(c.onUIQuit)
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

// benchWorkspace runs a new session's workspace on a simulation screen,
// its model at url; done reports Run's end.
func benchWorkspace(b *testing.B, url string, stream bool) (*Controller, tcell.SimulationScreen, chan error) {
	ctx := context.Background()
	dir := b.TempDir()
	db := storetest.OpenAt(b, filepath.Join(dir, "rewind.db"), store.Options{})
	client, err := llm.New(llm.Config{BaseURL: url, APIKey: "k", Model: "bench", Stream: stream})
	if err != nil {
		b.Fatal(err)
	}
	screen := tcell.NewSimulationScreen("UTF-8")
	c, err := New(ctx, Options{DB: db, Mode: ModeNew, WorkDir: dir, Client: client, Screen: screen, Home: dir})
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	return c, screen, done
}

// TestBatchingBoundsRedraws checks the property the benchmark measures, as a
// test: 1,000 deltas pushed as fast as possible are applied in a handful of
// UI updates, in order, and none is lost.
func TestBatchingBoundsRedraws(t *testing.T) {
	t.Parallel()
	var updates atomic.Int64
	var got []byte
	applied := make(chan struct{}, 1)
	b := newBatcher(FlushInterval, func(batch []soul.Event) {
		updates.Add(1)
		for _, e := range batch {
			got = append(got, e.(soul.ContentPart).Text...)
		}
		select {
		case applied <- struct{}{}:
		default:
		}
	})
	want := make([]byte, 0, 1000)
	start := time.Now()
	for i := 0; i < 1000; i++ {
		s := fmt.Sprintf("%d,", i%10)
		want = append(want, s...)
		b.push(soul.ContentPart{Text: s})
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		b.mu.Lock()
		empty := len(b.pending) == 0
		b.mu.Unlock()
		if empty && updates.Load() > 0 {
			time.Sleep(2 * FlushInterval) // the flush interval passes: what the batcher holds goes out
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("batches never delivered")
		}
		time.Sleep(time.Millisecond) // poll: the batcher signals nothing when it is empty
	}
	b.stop()
	elapsed := time.Since(start)
	if string(got) != string(want) {
		t.Fatalf("deltas lost or reordered: got %d bytes, want %d", len(got), len(want))
	}
	if max := int64(elapsed/FlushInterval) + 2; updates.Load() > max {
		t.Fatalf("%d UI updates in %v (at most %d allowed)", updates.Load(), elapsed, max)
	}
}

package tui

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/app/live"
	"github.com/rewind-agent/rewind/soul"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/store/storetest"
)

// BenchmarkWatchLive2000 is a watcher workspace (200×60 simulation screen,
// watch mode) following a writer that streams 2,000 tokens per second for
// two seconds over the live channel: the process CPU share (writer's
// publishing included, so an upper bound of the watcher's), redraws per
// second, and how long after the last delta was published it was on the
// watcher's screen.
// Run: go test -run '^$' -bench WatchLive2000 -benchtime 1x ./app/tui/
func BenchmarkWatchLive2000(b *testing.B) {
	for i := 0; i < b.N; i++ {
		benchWatchLive(b, 2000, 2*time.Second)
	}
}

func benchWatchLive(b *testing.B, tokPerSec int, d time.Duration) {
	ctx := context.Background()
	home, err := os.MkdirTemp("", "rwb")
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(home)
	db := storetest.OpenAt(b, filepath.Join(home, "rewind.db"), store.Options{})
	sess, err := db.CreateSession(ctx, store.NewSession{Title: "streamed", WorkDir: home})
	if err != nil {
		b.Fatal(err)
	}
	db.AppendMessage(ctx, sess.ID, message.NewText("user", "stream please"))
	cp, err := db.Checkpoint(ctx, sess.ID, false)
	if err != nil {
		b.Fatal(err)
	}
	pub, err := live.Listen(live.Options{Home: home, Hello: live.Hello{SessionID: sess.ID}})
	if err != nil {
		b.Fatal(err)
	}
	defer pub.Close()
	screen := tcell.NewSimulationScreen("UTF-8")
	c, err := New(ctx, Options{DB: db, Mode: ModeWatch, SessionID: sess.ID, WorkDir: home, Screen: screen, Home: home})
	if err != nil {
		b.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- c.Run(ctx) }()
	for c.watch.live.Load() == nil {
		time.Sleep(time.Millisecond) // poll before timing: the benchmark reads counters, not frames
	}
	var draws atomic.Int64
	c.onUIThread(func() { c.app.SetAfterDrawFunc(func(tcell.Screen) { draws.Add(1) }) })
	c.app.QueueUpdateDraw(func() { screen.SetSize(200, 60) })

	pub.Publish(soul.StepBegin{N: 1, Checkpoint: cp})
	words := []string{"The ", "quick ", "brown ", "fox ", "`jumps` ", "over ", "the ", "**lazy** ", "dog", ".\n\n"}
	total := int(float64(tokPerSec) * d.Seconds())
	interval := time.Second / time.Duration(tokPerSec)
	var ru0, ru1 syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
	draws0 := draws.Load()
	start := time.Now()
	b.ResetTimer()
	for i := range total - 1 {
		if wait := time.Until(start.Add(time.Duration(i) * interval)); wait > 0 {
			time.Sleep(wait) // pacing: the stream's rate is the load measured, not a wait
		}
		pub.Publish(soul.ContentPart{Text: words[i%len(words)]})
	}
	pub.Publish(soul.ContentPart{Text: "END-OF-STREAM"})
	last := time.Now()
	for {
		var shown bool
		c.onUIThread(func() {
			if it, ok := c.conv.Item(c.conv.Len() - 1); ok {
				shown = strings.HasSuffix(it.Text, "END-OF-STREAM")
			}
		})
		if shown {
			break
		}
		if time.Since(last) > 10*time.Second {
			b.Fatal("the last delta never reached the watcher's conversation")
		}
		time.Sleep(time.Millisecond) // poll before timing: the benchmark reads counters, not frames
	}
	lag := time.Since(last)
	wall := time.Since(start)
	b.StopTimer()
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
	cpu := time.Duration(ru1.Utime.Nano()-ru0.Utime.Nano()) + time.Duration(ru1.Stime.Nano()-ru0.Stime.Nano())
	b.ReportMetric(100*cpu.Seconds()/wall.Seconds(), "cpu%")
	b.ReportMetric(float64(draws.Load()-draws0)/wall.Seconds(), "redraws/s")
	b.ReportMetric(float64(lag)/1e6, "last-delta-ms")
	c.onUIThread(c.onUIQuit)
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

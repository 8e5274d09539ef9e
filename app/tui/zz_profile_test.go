package tui

import (
	"context"
	"os"
	"runtime"
	"runtime/pprof"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store"
)

func TestZZProfileOpenBig(t *testing.T) {
	path := os.Getenv("BIGDB")
	if path == "" {
		t.Skip()
	}
	var big *store.DB
	h := newHarness(t, hopts{w: 160, h: 48, mutate: func(o *Options) {
		db, err := store.Open(context.Background(), path)
		if err != nil {
			t.Fatal(err)
		}
		big = db
		o.DB = db
	}})
	_ = big
	list, _ := big.ListSessions(h.ctx, store.ListOptions{Limit: 1})
	id := list[0].ID
	f, _ := os.Create("/tmp/bigsession/cpu.prof")
	pprof.StartCPUProfile(f)
	start := time.Now()
	stop := make(chan bool)
	go func() {
		var worst time.Duration
		for {
			select {
			case <-stop:
				t.Logf("worst UI ping %v", worst)
				stop <- true
				return
			default:
			}
			s := time.Now()
			h.c.onUIThread(func() {})
			if d := time.Since(s); d > worst {
				worst = d
			}
			time.Sleep(20 * time.Millisecond)
		}
	}()
	h.c.onUIThread(func() { h.c.onUIOpenSession(id) })
	for {
		var ok bool
		h.c.onUIThread(func() { ok = h.c.conv.Len() > 100 && h.c.busy == "" })
		if ok {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	h.c.onUIThread(func() {})
	t.Logf("open took %v", time.Since(start))
	pprof.StopCPUProfile()
	stop <- true
	<-stop
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("heap in use %d MB, sys %d MB", ms.HeapInuse>>20, ms.Sys>>20)
	hf, _ := os.Create("/tmp/bigsession/heap.prof")
	pprof.WriteHeapProfile(hf)
	hf.Close()
}

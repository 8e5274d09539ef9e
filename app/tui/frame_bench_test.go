package tui

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/gdamore/tcell/v2"

	"github.com/rewind-agent/rewind/soul/llm"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

// BenchmarkWorkspaceFrame is one frame of the workspace as the application
// draws it (tview's clear, the page stack's root, the FrameScreen's flush)
// at 160x48: what each key, batch of streamed text or poll update costs
// the UI goroutine. cpu-ns/op is the process's CPU per frame, which a
// loaded machine leaves comparable. Run:
// go test -run '^$' -bench WorkspaceFrame -benchtime 2000x ./app/tui/
func BenchmarkWorkspaceFrame(b *testing.B) {
	ctx := context.Background()
	dir := b.TempDir()
	db := storetest.OpenAt(b, filepath.Join(dir, "rewind.db"), store.Options{})
	client, err := llm.New(llm.Config{BaseURL: "http://127.0.0.1:1/v1", APIKey: "k", Model: "bench"}) // never called
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
	<-c.ui.started
	c.onUIThread(func() { screen.SetSize(160, 48) })
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	c.onUIThread(func() {
		for range b.N {
			c.app.ForceDraw()
		}
	})
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
	b.StopTimer()
	c.onUIThread(c.onUIQuit)
	if err := <-done; err != nil {
		b.Fatal(err)
	}
}

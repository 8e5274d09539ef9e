package tui

import "testing"

// BenchmarkWorkspaceFrame is one frame of the workspace as the application
// draws it (tview's clear, the page stack's root, the FrameScreen's flush)
// at 160x48: what each key, batch of streamed text or poll update costs
// the UI goroutine. cpu-ns/op is the process's CPU per frame, which a
// loaded machine leaves comparable. Run:
// go test -run '^$' -bench WorkspaceFrame -benchtime 2000x ./app/tui/
func BenchmarkWorkspaceFrame(b *testing.B) {
	c, screen, done := benchWorkspace(b, "http://127.0.0.1:1/v1", false) // the model is never called
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

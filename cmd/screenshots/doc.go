// Command screenshots renders rewind's real workspace (app/tui's controller
// and the views) on a simulated terminal from a scripted session and writes
// one PNG per scene, drawing each cell with the Go Mono font:
//
//	go run ./cmd/screenshots [-o screenshots/] [-w 150] [-h 44]
//
// Scenes: workspace (mid-run), approval, timeline, diff, browser.
package main

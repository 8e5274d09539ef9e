// Command screenshots renders rewind's real workspace (app/tui's controller
// and the views) on a simulated terminal and writes one PNG per scene,
// drawing each cell with the Go Mono font:
//
//	go run ./cmd/screenshots [-o screenshots/] [-w 150] [-h 44]
//
// It seeds a database through the store's API (a session with a revert and
// a D-Mail backtrack, other sessions for the browser), opens it with
// tui.New as `rewind --session` does, against a scripted model served
// in-process on the real HTTP path (soul/llm/llmtest), and plays the scenes
// as a user would, by keystrokes, waiting for the frames the screen shows:
// timeline (a checkpoint previewed), diff (an archived generation), browser
// (a full-text search), approval (the model's edit) and workspace (the
// model's Shell call running, its live output; Esc interrupts it).
package main

package tui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestWatchFollowInTmux: `rewind watch --follow` of a copy of a codex
// rollout at 80x24 and 160x48, the test appending to it as codex does (and
// holding it open, as codex does): each append shows up in the workspace
// (the tool call running, then its output; the token count of the
// token_count event in the status bar); once the file stops growing and
// no process holds it, following stops and the workspace says so.
func TestWatchFollowInTmux(t *testing.T) {
	t.Parallel()
	whole, err := os.ReadFile("../../store/peers/testdata/codex-home/sessions/2026/11/27/rollout-2026-11-27T00-19-25-01a21a5f-0700-7353-89ca-3d07664189fe.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(whole, []byte("\n"))
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			home := filepath.Join(t.TempDir(), "home")
			path := filepath.Join(t.TempDir(), "rollout-2026-11-27T00-19-25-01a21a5f-0700-7353-89ca-3d07664189fe.jsonl")
			// The first turn's prompt and its first two calls, no result yet.
			if err := os.WriteFile(path, bytes.Join(lines[:14], nil), 0o644); err != nil {
				t.Fatal(err)
			}
			f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tt := startTmux(t, nil, "")
			tt.startSized(size[0], size[1], "watch --follow "+path+" --home "+home)
			// Calls saved before their output are running, not cut off.
			start := time.Now()
			tt.waitFor("Write a file and list", "… Shell cat missing.txt", "WATCH · live", "rewind imports this ⇣ codex run")
			t.Logf("on screen after %v", time.Since(start))
			// The results of both calls, the second round's call (running: its
			// result is not written yet) and the token count.
			at := time.Now()
			if _, err := f.Write(bytes.Join(lines[14:22], nil)); err != nil {
				t.Fatal(err)
			}
			tt.waitFor("✓ Shell printf hello", "… Shell ls", "1.7k tok")
			// store/peers' TestFollowImportsEachAppend holds the import to
			// 200 ms; the screen gets a loaded machine's and tmux's slack.
			if d := time.Since(at); d > 2*time.Second {
				t.Errorf("the append was on screen after %v", d)
			} else {
				t.Logf("%dx%d: the append was on screen after %v", size[0], size[1], d)
			}
			if _, err := f.Write(bytes.Join(lines[22:30], nil)); err != nil {
				t.Fatal(err)
			}
			tt.waitFor("✓ Shell ls")
			// codex is gone: the file stops growing and nobody holds it.
			f.Close()
			closed := time.Now()
			tt.waitFor("stopped following", "writer gone")
			t.Logf("following stopped %v after the file was closed", time.Since(closed))
			tt.send("C-c")
			tt.send("C-c")
			tt.waitUntilExited()
		})
	}
}

package tui

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// TestWatchLiveInTmux: while `rewind -p` streams a long answer (the fake
// model holds it mid-stream), `rewind watch` in a real terminal shows the
// text before the step is committed (the database holds no answer yet),
// found through `rewind runs --json`.
func TestWatchLiveInTmux(t *testing.T) {
	t.Parallel()
	tt := startTmux(t, nil, "")
	home, err := os.MkdirTemp("", "rwe") // short: socket paths must fit in 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	srv := llmtest.NewServer(t)
	// The answer streams its first 60 chunks (to w047), then waits until
	// the watcher has shown them.
	release := make(chan struct{})
	var once sync.Once
	releaseAnswer := func() { once.Do(func() { close(release) }) }
	t.Cleanup(releaseAnswer)
	srv.Enqueue(llmtest.Text(numberedWords(800)).WithHold(60, release))
	writer := exec.Command(tt.bin, "-p", "write a long answer", "--home", home, "--work-dir", home,
		"--base-url", srv.URL(), "--model", "slow-model")
	writer.Env = append(os.Environ(), "OPENAI_API_KEY=k")
	var writerErr strings.Builder
	writer.Stderr = &writerErr
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	exited := make(chan struct{})
	var werr error
	if err := writer.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { werr = writer.Wait(); close(exited) }()
	t.Cleanup(func() {
		writer.Process.Kill()
		<-exited
	})

	// The run shows up in `rewind runs --json` once it streams.
	var id string
	var out []byte
	for deadline := time.Now().Add(20 * time.Second); id == ""; time.Sleep(50 * time.Millisecond) { // poll: another process (its pid file, its exit) signals nothing here
		select {
		case <-exited:
			t.Fatalf("rewind -p ended before rewind runs listed it streaming (%v); last runs: %s\nstderr: %s", werr, out, writerErr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("rewind runs never listed the -p run streaming; last runs: %s", out)
		}
		var err error
		if out, err = exec.CommandContext(ctx, tt.bin, "runs", "--json", "--home", home).Output(); err != nil {
			continue
		}
		var runs []struct {
			ID    string `json:"id"`
			State string `json:"state"`
		}
		if json.Unmarshal(out, &runs) == nil && len(runs) == 1 && runs[0].State == "streaming" {
			id = runs[0].ID
		}
	}
	tt.start("watch " + id + " --home " + home)
	tt.waitFor("WATCH · live", "w020")
	select {
	case <-exited:
		t.Fatalf("the writer finished before the watcher showed its text (%v): the test proves nothing", werr)
	default:
	}
	shown, err := exec.Command(tt.bin, "show", id, "--json", "--home", home).Output()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(shown), `"role":"assistant"`) || strings.Contains(string(shown), `"role": "assistant"`) {
		t.Fatalf("the answer was committed before the watcher showed it:\n%s", shown)
	}
	releaseAnswer()
	<-exited
	if werr != nil {
		t.Fatalf("rewind -p: %v", werr)
	}
	tt.waitFor("w799")
	if _, err := os.Stat(filepath.Join(home, "run", id+".sock")); !os.IsNotExist(err) {
		t.Fatalf("the writer left its socket behind: %v", err)
	}
}

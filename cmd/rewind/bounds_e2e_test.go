package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// TestPrintEmptyAnswerSaysSo: a server that answers with nothing was
// reached: the line says the model returned an empty answer and what to
// check, not "cannot reach the model server" (what it said before).
func TestPrintEmptyAnswerSaysSo(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	for range 4 {
		srv.Enqueue(llmtest.Empty())
	}
	e := newEnv(t).withServer(srv)
	r := e.run("-p", "hello")
	expectError(t, r, 75, "empty answer", "model name", "gave up after 3 retries")
	if strings.Contains(r.stderr, "cannot reach") {
		t.Errorf("an empty answer reported as an unreachable server: %s", r)
	}
}

// TestPrintAnswerOverTheCapFailsInOneLine: answer_size_cap in the config
// reaches the model client; an answer past it stops the step with one
// line naming the key, is not retried, and nothing of it is stored.
func TestPrintAnswerOverTheCapFailsInOneLine(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text(strings.Repeat("endless ", 4096)))
	e := newEnv(t).withServer(srv)
	writeFile(t, filepath.Join(e.home, "config.toml"), "answer_size_cap = 4096\n")
	r := e.run("-p", "hello")
	expectError(t, r, 1, "answer_size_cap", "4 KiB")
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d requests: an answer over the cap is not retried", n)
	}
	for _, rec := range e.view(e.onlySession()).Records {
		if rec.Role != nil && *rec.Role == "assistant" {
			t.Errorf("a stopped answer was stored")
		}
	}
}

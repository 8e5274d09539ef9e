package tui

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// TestThinkingToggleInTmux: in a real terminal, /thinking and Alt-T switch
// the effort in the status bar, and the model's requests carry it.
func TestThinkingToggleInTmux(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Text("first answer"), llmtest.Text("second answer"))
	home := filepath.Join(t.TempDir(), "home")
	tt := startTmux(t, []string{"OPENAI_API_KEY=sk-tmux-test", "OPENAI_BASE_URL=" + srv.URL(), "REWIND_MODEL=test-model"},
		"--home "+home+" --work-dir "+t.TempDir())
	tt.waitFor("Ask anything")
	if out, err := tt.tmux("resize-window", "-t", "demo", "-x", "80", "-y", "24"); err != nil {
		t.Fatalf("resize: %v %s", err, out)
	}
	tt.send("-l", "/thinking medium")
	tt.send("Enter")
	tt.waitFor("think medium")
	tt.send("-l", "one")
	tt.send("Enter")
	tt.waitFor("first answer")
	tt.send("M-t")
	tt.waitFor("thinking off")
	tt.send("-l", "two")
	tt.send("Enter")
	tt.waitFor("second answer")

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests, want 2", len(reqs))
	}
	var efforts []string
	for _, r := range reqs {
		var b struct {
			ReasoningEffort string `json:"reasoning_effort"`
		}
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatal(err)
		}
		efforts = append(efforts, b.ReasoningEffort)
	}
	if efforts[0] != "medium" || efforts[1] != "" {
		t.Fatalf("reasoning_effort per request = %q, want [medium \"\"]", efforts)
	}
}

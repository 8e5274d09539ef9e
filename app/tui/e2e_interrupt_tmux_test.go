package tui

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// TestInterruptInTmuxKeepsPartial: in the real binary, Esc while the model
// streams keeps the partial answer: the screen shows it marked interrupted,
// and `rewind show --generation` of the generation the banner names prints
// it. And /thinking and Alt-T (the terminal's ESC t) switch the effort in
// the status bar, and the model's requests carry it (it was
// TestThinkingToggleInTmux, a tmux session of its own).
func TestInterruptInTmuxKeepsPartial(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(llmtest.Hang(3).WithRate(100), llmtest.Text("second answer"))
	home := filepath.Join(t.TempDir(), "home")
	tt := startTmux(t, []string{"OPENAI_API_KEY=test-key", "OPENAI_BASE_URL=" + srv.URL(), "REWIND_MODEL=test-model"},
		"--home "+home+" --work-dir "+t.TempDir())
	tt.waitFor("Ask anything")
	// /thinking's message covers the status bar's effort for its 6 s;
	// the run's end clears it (below), so the effort is checked there.
	tt.send("-l", "/thinking medium")
	tt.send("Enter")
	tt.waitFor("thinking medium: the next answer")
	tt.send("-l", "start something long")
	tt.send("Enter")
	tt.waitFor("an answe")
	tt.send("Escape")
	tt.waitFor("⏸ interrupted", "kept in archived generation 1")
	// The banner comes before the run's end, which clears the status
	// bar's message: Alt-T's note must come after it (under -race it came
	// before and was wiped). The status bar drops the step when it ends,
	// and shows the effort once the end cleared /thinking's message.
	if _, ok := tt.waitScreen(20*time.Second, func(screen string) bool {
		status := lastLine(screen)
		return !strings.Contains(status, "step ") && strings.Contains(status, "think medium")
	}); !ok {
		t.Fatalf("the interrupted run never ended, or its status bar does not show the effort:\n%s", tt.capture())
	}
	tt.send("M-t")
	tt.waitFor("thinking off")
	tt.send("-l", "two")
	tt.send("Enter")
	tt.waitFor("second answer")
	// The second run's end clears Alt-T's message: no effort shows.
	if _, ok := tt.waitScreen(20*time.Second, func(screen string) bool {
		status := lastLine(screen)
		return !strings.Contains(status, "step ") && !strings.Contains(status, "think")
	}); !ok {
		t.Fatalf("after Alt-T the status bar still shows an effort:\n%s", tt.capture())
	}
	tt.send("C-c")
	tt.send("C-c")

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

	out, err := exec.Command(tt.bin, "sessions", "--json", "--home", home).Output()
	if err != nil {
		t.Fatalf("rewind sessions: %v", err)
	}
	var sessions []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(out, &sessions); err != nil || len(sessions) != 1 {
		t.Fatalf("sessions --json: %v\n%s", err, out)
	}
	show, err := exec.Command(tt.bin, "show", sessions[0].ID, "--generation", "1", "--home", home).CombinedOutput()
	if err != nil || !strings.Contains(string(show), "an answe") {
		t.Fatalf("rewind show --generation 1: %v\n%s", err, show)
	}
	cur, err := exec.Command(tt.bin, "show", sessions[0].ID, "--home", home).CombinedOutput()
	if err != nil || strings.Contains(string(cur), "an answe") {
		t.Fatalf("the current view holds the partial answer: %v\n%s", err, cur)
	}
}

// lastLine is the terminal's last line: the status bar.
func lastLine(screen string) string {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	return lines[len(lines)-1]
}

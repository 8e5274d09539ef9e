package tui

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSubagentsInTmux: `rewind demo` at 80x24 and 160x48 in a real
// terminal: two sub-agents start at once; the coder's Shell call asks in
// the parent's dialog ("Approve coder · Shell"), and meanwhile `rewind
// runs` lists it under its parent and the tool output pane streams it;
// after the run the session browser folds both children under the parent
// and → unfolds them.
func TestSubagentsInTmux(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			home := filepath.Join(t.TempDir(), "home")
			tt := startTmux(t, nil, "")
			tt.startSized(size[0], size[1], "demo --home "+home)
			tt.waitFor("Welcome to the rewind demo", "DEMO")
			tt.send("-l", "run the sub-agents")
			tt.send("Enter")
			tt.waitFor("Approve coder · Shell", "wc -l README.txt")

			// While the coder waits, it runs: listed under its parent.
			out, err := exec.Command(tt.bin, "runs", "--json", "--home", home).Output()
			if err != nil {
				t.Fatalf("rewind runs: %v", err)
			}
			var runs []struct {
				ID           string `json:"id"`
				SubagentOf   string `json:"subagent_of"`
				SubagentType string `json:"subagent_type"`
			}
			if err := json.Unmarshal(out, &runs); err != nil {
				t.Fatalf("runs --json: %v\n%s", err, out)
			}
			at := map[string]int{}
			for i, r := range runs {
				at[r.ID] = i
			}
			var coder bool
			for i, r := range runs {
				if r.SubagentType == "coder" {
					coder = true
					if p, ok := at[r.SubagentOf]; !ok || p >= i {
						t.Errorf("the coder is not listed after its parent: %s", out)
					}
				}
			}
			if !coder {
				t.Fatalf("rewind runs lacks the running coder: %s", out)
			}
			text, err := exec.Command(tt.bin, "runs", "--home", home).Output()
			if err != nil || !strings.Contains(string(text), "↳ coder · count README lines") {
				t.Errorf("rewind runs: %v\n%s", err, text)
			}

			for i := 0; i < 5 && strings.Contains(tt.capture(), "[y] approve"); i++ {
				time.Sleep(400 * time.Millisecond) // tmux says nothing of when rewind read a key: answer again while the dialog stays
				tt.send("y")
				time.Sleep(300 * time.Millisecond) // tmux says nothing of when rewind read a key: answer again while the dialog stays
			}
			// The tool output pane shows the coder's conversation.
			tt.waitFor("▸ Shell wc -l README.txt", "Both sub-agents are done")
			// The answer shows before its step commits: switching sessions
			// waits for the run's end (the children gone, the demo idle).
			for deadline := time.Now().Add(20 * time.Second); ; {
				n := tt.written() // the run's end is drawn: ask again after rewind wrote
				out, err := exec.Command(tt.bin, "runs", "--json", "--home", home).Output()
				var runs []struct {
					State string `json:"state"`
				}
				if err == nil && json.Unmarshal(out, &runs) == nil && len(runs) == 1 && runs[0].State == "idle" {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("the demo's run never ended: %s", out)
				}
				tt.waitWritten(n)
			}
			tt.send("C-o")
			tt.waitFor("▸ 2 ↳")
			// → until the browser has the keys (the first may come before).
			tt.pressUntil("Right", "↳ coder · count", "↳ explore · list")
			// A child opened from the browser runs as its type.
			childShown := func(key string) {
				t.Helper()
				for deadline := time.Now().Add(20 * time.Second); ; {
					tt.send(key)
					if _, ok := tt.waitScreen(time.Second, previewsAChild); ok {
						return
					}
					if time.Now().After(deadline) {
						t.Fatalf("no child after %s:\n%s", key, tt.capture())
					}
				}
			}
			childShown("Down") // a child row selected: the preview is titled by it
			tt.send("Enter")
			// The workspace shows its input as the browser closes, before the
			// child is open: its title in the status bar says it is (a
			// /status typed in between described the parent under -race).
			if _, ok := tt.waitScreen(20*time.Second, childOpen); !ok {
				t.Fatalf("the child never opened:\n%s", tt.capture())
			}
			if size[1] >= 48 { // at 24 rows /status scrolls its agent row off
				tt.send("-l", "/status")
				tt.send("Enter")
				screen := tt.waitFor("(built-in)")
				if !strings.Contains(screen, "coder (built-in)") && !strings.Contains(screen, "explore (built-in)") {
					t.Errorf("/status of a child session does not name its type:\n%s", screen)
				}
			}
			// Quit and wait for the exit, so nothing writes into home while
			// the test removes it (kill-server did not wait).
			tt.send("C-c")
			tt.send("C-c")
			tt.waitUntilExited()
		})
	}
}

// pressUntil sends key until the screen shows every sub: a key the
// program reads before it is ready for it is lost.
func (tt *tmuxTerm) pressUntil(key string, subs ...string) {
	tt.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		tt.send(key)
		if _, ok := tt.waitScreen(time.Second, func(screen string) bool {
			for _, s := range subs {
				if !strings.Contains(screen, s) {
					return false
				}
			}
			return true
		}); ok {
			return
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("the terminal never showed %q after %s; screen:\n%s", subs, key, tt.capture())
		}
	}
}

// TestPlanModeInTmux: `rewind demo` at 80x24 and 160x48: Shift-Tab in the
// input shows PLAN in the status bar and takes it away again, /plan
// turns it on; asked to plan, the model's write is refused with a tool
// error saying why, and its ExitPlanMode shows the plan in the approval
// dialog; approving leaves plan mode.
func TestPlanModeInTmux(t *testing.T) {
	t.Parallel()
	for _, size := range [][2]int{{80, 24}, {160, 48}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			t.Parallel()
			home := filepath.Join(t.TempDir(), "home")
			tt := startTmux(t, nil, "")
			tt.startSized(size[0], size[1], "demo --home "+home)
			tt.waitFor("Welcome to the rewind demo", "DEMO")
			// planOff: the status bar (the last line) shows no PLAN.
			planOff := func(screen string) bool {
				lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
				return !strings.Contains(lines[len(lines)-1], " PLAN ")
			}
			tt.pressUntil("BTab", " PLAN ")
			tt.send("BTab")
			if screen, ok := tt.waitScreen(10*time.Second, planOff); !ok {
				t.Fatalf("Shift-Tab did not leave plan mode:\n%s", screen)
			}
			tt.send("-l", "/plan")
			tt.send("Enter")
			tt.waitFor(" PLAN ")
			tt.send("-l", "plan a change")
			tt.send("Enter")
			tt.waitFor("Approve the plan", "Greet by name")
			// y, once the dialog takes answers (its grace period).
			tt.pressUntil("y", "Plan approved")
			if screen, ok := tt.waitScreen(10*time.Second, planOff); !ok {
				t.Fatalf("approving the plan did not leave plan mode:\n%s", screen)
			}
			tt.send("C-c")
			tt.send("C-c")
			tt.waitUntilExited()

			// The refused write is in the session: a tool error saying why.
			list, err := exec.Command(tt.bin, "sessions", "--json", "--home", home).Output()
			if err != nil {
				t.Fatalf("rewind sessions: %v", err)
			}
			var sessions []struct {
				ID string `json:"id"`
			}
			if err := json.Unmarshal(list, &sessions); err != nil || len(sessions) != 1 {
				t.Fatalf("sessions --json: %v\n%s", err, list)
			}
			shown, err := exec.Command(tt.bin, "show", sessions[0].ID, "--home", home).Output()
			if err != nil || !strings.Contains(string(shown), "Plan mode is on: WriteFile was not run") {
				t.Errorf("the refused write in rewind show: %v\n%s", err, shown)
			}
		})
	}
}

// childOpen reports whether the status bar (the screen's last line) names
// one of the demo's sub-agents' sessions.
func childOpen(screen string) bool {
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	last := lines[len(lines)-1]
	return strings.Contains(last, "list the demo files") || strings.Contains(last, "count README lines")
}

// previewsAChild reports whether the browser's preview (its title line,
// under the list or beside it) shows one of the demo's sub-agents.
func previewsAChild(screen string) bool {
	for _, edge := range []string{"║", "│"} {
		if strings.Contains(screen, edge+"list the demo files") || strings.Contains(screen, edge+"count README lines") {
			return true
		}
	}
	return false
}

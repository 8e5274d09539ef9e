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
			if out, err := tt.tmux("new-session", "-d", "-s", "demo", "-x", fmt.Sprint(size[0]), "-y", fmt.Sprint(size[1]),
				tt.bin+" demo --home "+home+" 2>"+filepath.Join(tt.dir, "stderr.txt")); err != nil {
				t.Fatalf("tmux new-session: %v\n%s", err, out)
			}
			t.Cleanup(func() { tt.tmux("kill-server") })
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
			tt.send("C-o")
			tt.waitFor("▸ 2 ↳")
			tt.send("Right")
			tt.waitFor("↳ coder · count", "↳ explore · list")
			// Quit and wait for the exit, so nothing writes into home while
			// the test removes it (kill-server did not wait).
			tt.send("C-c")
			tt.send("C-c")
			tt.waitUntilExited()
		})
	}
}

package tui

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/internal/testbin"
)

// tmuxTerm is the real binary running in a real terminal (tmux).
type tmuxTerm struct {
	t    *testing.T
	bin  string // the built rewind
	dir  string
	sock string
	env  []string
}

// startTmux builds rewind and runs `rewind args…` in a 120x50 tmux
// session ("" builds only: start it later); it skips the test under -short
// or without tmux.
func startTmux(t *testing.T, env []string, args string) *tmuxTerm {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: skipping the tmux end-to-end test")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("tmux is not installed (.ci/run installs it with apt-get): skipping the end-to-end terminal test")
	}
	bin, err := rewindBinary()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tt := &tmuxTerm{t: t, bin: bin, dir: dir, sock: filepath.Join(dir, "tmux.sock"), env: env}
	if args != "" {
		tt.start(args)
	}
	return tt
}

// The rewind binary is built once per package run, by the first tmux test
// that needs it (testbin keeps it between runs).
var (
	buildOnce sync.Once
	binPath   string
	binErr    error
)

func rewindBinary() (string, error) {
	buildOnce.Do(func() { binPath, binErr = testbin.Rewind("app-tui") })
	return binPath, binErr
}

// start runs `rewind args…` in the tmux session.
func (tt *tmuxTerm) start(args string) {
	tt.t.Helper()
	if out, err := tt.tmux("new-session", "-d", "-s", "demo", "-x", "120", "-y", "50",
		tt.bin+" "+args+" 2>"+filepath.Join(tt.dir, "stderr.txt")); err != nil {
		tt.t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	tt.t.Cleanup(func() { tt.tmux("kill-server") })
}

func (tt *tmuxTerm) tmux(args ...string) (string, error) {
	cmd := exec.Command("tmux", append([]string{"-S", tt.sock}, args...)...)
	cmd.Env = append(append(os.Environ(), "TERM=xterm-256color"), tt.env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (tt *tmuxTerm) capture() string {
	out, _ := tt.tmux("capture-pane", "-p", "-t", "demo")
	return out
}

// waitFor polls the screen until it shows every sub.
func (tt *tmuxTerm) waitFor(subs ...string) string {
	tt.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	var screen string
	for time.Now().Before(deadline) {
		screen = tt.capture()
		ok := true
		for _, s := range subs {
			if !strings.Contains(screen, s) {
				ok = false
				break
			}
		}
		if ok {
			return screen
		}
		time.Sleep(50 * time.Millisecond) // poll: another process's screen, read through tmux, signals nothing
	}
	errOut, _ := os.ReadFile(filepath.Join(tt.dir, "stderr.txt"))
	tt.t.Fatalf("the terminal never showed %q; screen:\n%s\nstderr: %s", subs, screen, errOut)
	return ""
}

// waitUntilExited waits until the program in the tmux session has exited
// (the session closes with it).
func (tt *tmuxTerm) waitUntilExited() {
	tt.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) { // poll: another process's screen, read through tmux, signals nothing
		if _, err := tt.tmux("has-session", "-t", "demo"); err != nil {
			return
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("rewind is still running; screen:\n%s", tt.capture())
		}
	}
}

func (tt *tmuxTerm) send(keys ...string) {
	tt.t.Helper()
	if out, err := tt.tmux(append([]string{"send-keys", "-t", "demo"}, keys...)...); err != nil {
		tt.t.Fatalf("send-keys: %v\n%s", err, out)
	}
}

// TestDemoInTmux runs the real binary in a real terminal (tmux): `rewind
// demo`, a prompt with an approval, /help, /exit, then checks the session
// the demo left in the store through the CLI.
func TestDemoInTmux(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	tt := startTmux(t, nil, "demo --home "+home)
	tmux, capture, waitFor, send, bin := tt.tmux, tt.capture, tt.waitFor, tt.send, tt.bin

	waitFor("Welcome to the rewind demo", "DEMO", "rewind-demo", "Conversation", "Timeline", "Sessions")
	send("-l", "write a file")
	send("Enter")
	waitFor("Approve WriteFile", "hello from the rewind demo", "[y] approve")
	// Answers typed within 300 ms of the modal appearing are ignored (so a
	// key meant for the prompt never answers it); on a loaded machine the
	// modal may be drawn late, so answer again while it is still up.
	for i := 0; i < 5 && strings.Contains(capture(), "[y] approve"); i++ {
		time.Sleep(400 * time.Millisecond) // tmux says nothing of when rewind read a key: answer again while the dialog stays
		send("y")
		time.Sleep(300 * time.Millisecond) // tmux says nothing of when rewind read a key: answer again while the dialog stays
	}
	waitFor("✓ WriteFile hello.go", "✓ ReadFile hello.go", "reads back as")
	send("C-u") // a late extra "y" must not prefix the command
	send("-l", "/help")
	send("Enter")
	waitFor("Help", "interrupt the running step")
	// The slash commands may be a page further down.
	for i := 0; i < 5 && !strings.Contains(capture(), "/compact"); i++ {
		send("NPage")
		time.Sleep(100 * time.Millisecond) // poll: another process's screen, read through tmux, signals nothing
	}
	waitFor("Slash commands", "/compact")
	send("Escape")
	for deadline := time.Now().Add(waitLimit); strings.Contains(capture(), "Slash commands"); time.Sleep(20 * time.Millisecond) { // poll: another process's screen, read through tmux, signals nothing
		if time.Now().After(deadline) {
			t.Fatalf("Escape did not close the help; screen:\n%s", capture())
		}
	}
	send("-l", "/exit")
	send("Enter")
	deadline := time.Now().Add(15 * time.Second)
	for {
		if _, err := tmux("has-session", "-t", "demo"); err != nil {
			break // the program exited and tmux closed its window
		}
		if time.Now().After(deadline) {
			t.Fatalf("rewind did not exit after /exit; screen:\n%s", capture())
		}
		time.Sleep(50 * time.Millisecond) // poll: another process's screen, read through tmux, signals nothing
	}

	// The demo wrote into its own work dir and its own labelled session.
	if _, err := os.Stat(filepath.Join(home, "demo-workdir", "hello.go")); err != nil {
		t.Fatalf("hello.go not in the demo work dir: %v", err)
	}
	out, err := exec.Command(bin, "sessions", "--json", "--home", home).Output()
	if err != nil {
		t.Fatalf("rewind sessions: %v", err)
	}
	var sessions []struct {
		Title    string `json:"title"`
		WorkDir  string `json:"work_dir"`
		Messages int    `json:"messages"`
	}
	if err := json.Unmarshal(out, &sessions); err != nil {
		t.Fatalf("sessions --json: %v\n%s", err, out)
	}
	if len(sessions) != 1 || !strings.HasPrefix(sessions[0].Title, "demo:") || !strings.HasSuffix(sessions[0].WorkDir, "demo-workdir") || sessions[0].Messages < 4 {
		t.Fatalf("sessions = %+v", sessions)
	}
}

package tui

import (
	"encoding/json"
	"fmt"
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
	out  string // the copy of rewind's output (startSized)
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

// start runs `rewind args…` in the tmux session, 120x50.
func (tt *tmuxTerm) start(args string) { tt.startSized(120, 50, args) }

// startSized runs `rewind args…` in a w x h tmux session, and copies what
// rewind writes to the terminal to a file (tmux pipe-pane) whose growth
// tells a wait when to read the screen again.
func (tt *tmuxTerm) startSized(w, h int, args string) {
	tt.t.Helper()
	if out, err := tt.tmux("new-session", "-d", "-s", "demo", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h),
		tt.bin+" "+args+" 2>"+filepath.Join(tt.dir, "stderr.txt")); err != nil {
		tt.t.Fatalf("tmux new-session: %v\n%s", err, out)
	}
	tt.t.Cleanup(func() { tt.tmux("kill-server") })
	// A program that exits at once takes the tmux server with it: then
	// there is no output to watch, and waits read the screen every
	// outputQuiet.
	tt.out = filepath.Join(tt.dir, "output")
	tt.tmux("pipe-pane", "-t", "demo", "cat >> "+tt.out)
}

// written is how many bytes rewind has written to the terminal since
// startSized (-1 before any).
func (tt *tmuxTerm) written() int64 {
	fi, err := os.Stat(tt.out)
	if err != nil {
		return -1
	}
	return fi.Size()
}

// waitWritten waits until rewind wrote to the terminal since written
// returned n, or at most outputQuiet: what tmux shows changes only when
// rewind writes. tmux signals nothing, so the file's size is polled
// (a stat, not a tmux client: capture-pane every 50 ms cost each test
// several seconds of CPU).
func (tt *tmuxTerm) waitWritten(n int64) {
	for until := time.Now().Add(outputQuiet); time.Now().Before(until) && tt.written() == n; {
		time.Sleep(5 * time.Millisecond) // poll: tmux's copy of the output signals nothing
	}
}

// outputQuiet bounds waitWritten: a screen that changes without output
// (a window resized, a pane that closed) is read again after it.
const outputQuiet = 500 * time.Millisecond

// waitScreen reads the screen until ok holds for it, each time after
// rewind wrote to the terminal, for at most limit; it returns the last
// screen and whether ok held.
func (tt *tmuxTerm) waitScreen(limit time.Duration, ok func(screen string) bool) (string, bool) {
	deadline := time.Now().Add(limit)
	for {
		n := tt.written()
		screen := tt.capture()
		if ok(screen) {
			return screen, true
		}
		if time.Now().After(deadline) {
			return screen, false
		}
		tt.waitWritten(n)
	}
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

// waitFor waits until the screen shows every sub.
func (tt *tmuxTerm) waitFor(subs ...string) string {
	tt.t.Helper()
	screen, ok := tt.waitScreen(20*time.Second, func(screen string) bool {
		for _, s := range subs {
			if !strings.Contains(screen, s) {
				return false
			}
		}
		return true
	})
	if ok {
		return screen
	}
	errOut, _ := os.ReadFile(filepath.Join(tt.dir, "stderr.txt"))
	tt.t.Fatalf("the terminal never showed %q; screen:\n%s\nstderr: %s", subs, screen, errOut)
	return ""
}

// waitGone waits until the screen no longer shows sub.
func (tt *tmuxTerm) waitGone(sub string) {
	tt.t.Helper()
	if screen, ok := tt.waitScreen(20*time.Second, func(screen string) bool { return !strings.Contains(screen, sub) }); !ok {
		tt.t.Fatalf("the terminal still shows %q; screen:\n%s", sub, screen)
	}
}

// waitUntilExited waits until the program in the tmux session has exited
// (the session closes with it; leaving the terminal, it writes).
func (tt *tmuxTerm) waitUntilExited() {
	tt.t.Helper()
	for deadline := time.Now().Add(20 * time.Second); ; {
		n := tt.written()
		if _, err := tt.tmux("has-session", "-t", "demo"); err != nil {
			return
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("rewind is still running; screen:\n%s", tt.capture())
		}
		tt.waitWritten(n)
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
	capture, waitFor, send, bin := tt.capture, tt.waitFor, tt.send, tt.bin

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
		n := tt.written()
		send("NPage")
		tt.waitWritten(n)
	}
	waitFor("Slash commands", "/compact")
	send("Escape")
	tt.waitGone("Slash commands")
	send("-l", "/exit")
	send("Enter")
	tt.waitUntilExited()

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

package tui

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

// TestHangupEndsShellCommandsInTheWorkspace: closing the terminal (SIGHUP)
// while a Shell command runs ends the command's process group too, as in
// print mode. Shell commands run in their own group, so the hangup never
// reaches them by itself.
func TestHangupEndsShellCommandsInTheWorkspace(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("call_sleep", "Shell", map[string]any{"command": "sleep 300 & echo $! > sleep.pid; wait"})),
		llmtest.Text("done"),
	)
	home, work := t.TempDir(), t.TempDir()
	tt := startTmux(t, []string{"OPENAI_API_KEY=k", "OPENAI_BASE_URL=" + srv.URL(), "REWIND_MODEL=m"},
		"--home "+home+" --work-dir "+work+" --yolo")
	tt.waitFor("Conversation")
	tt.send("-l", "sleep a while")
	tt.send("Enter")
	var pid int
	deadline := time.Now().Add(20 * time.Second)
	for pid == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the Shell command never started:\n%s", tt.capture())
		}
		if data, err := os.ReadFile(filepath.Join(work, "sleep.pid")); err == nil {
			pid, _ = strconv.Atoi(strings.TrimSpace(string(data)))
		}
		time.Sleep(50 * time.Millisecond) // poll: another process (its pid file, its exit) signals nothing here
	}
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	rewind := pidOf(t, tt.bin, home)
	if err := syscall.Kill(rewind, syscall.SIGHUP); err != nil { // the terminal went away
		t.Fatal(err)
	}
	for deadline = time.Now().Add(15 * time.Second); processAlive(pid); {
		if time.Now().After(deadline) {
			t.Fatal("the Shell command's sleep outlived the hangup")
		}
		time.Sleep(50 * time.Millisecond) // poll: another process (its pid file, its exit) signals nothing here
	}
}

// pidOf finds the process running the binary bin with arg among its
// arguments (the binary is shared by the package's tests).
func pidOf(t *testing.T, bin, arg string) int {
	t.Helper()
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		exe, err := os.Readlink("/proc/" + e.Name() + "/exe")
		if err != nil || exe != bin {
			continue
		}
		if cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && slices.Contains(strings.Split(string(cmdline), "\x00"), arg) {
			return pid
		}
	}
	t.Fatalf("no process runs %s", bin)
	return 0
}

// processAlive reports whether pid runs (a zombie does not).
func processAlive(pid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	_, rest, _ := strings.Cut(string(data), ") ")
	return !strings.HasPrefix(rest, "Z")
}

package childproc

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// group starts `sleep 60` leading its own process group.
func group(t *testing.T) *exec.Cmd {
	t.Helper()
	cmd := exec.Command("sleep", "60")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	return cmd
}

// exited waits up to 5 s for cmd to end and says whether it did.
func exited(cmd *exec.Cmd) bool {
	done := make(chan struct{})
	go func() { _, _ = cmd.Process.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(5 * time.Second):
		return false
	}
}

// The watchdog kills the groups still listed when its input ends, and
// none it was told ended; it ignores numbers that would reach every
// process (1) or its own group (0).
func TestWatchdogKillsTheGroupsLeft(t *testing.T) {
	t.Parallel()
	kept, ended := group(t), group(t)
	in := strings.Join([]string{
		"+ " + strconv.Itoa(kept.Process.Pid),
		"+ " + strconv.Itoa(ended.Process.Pid),
		"- " + strconv.Itoa(ended.Process.Pid),
		"+ 1", "+ 0", "+ -1", "+ x1",
	}, "\n") + "\n"
	wd := exec.Command("sh", "-c", watchdogScript)
	wd.Stdin = strings.NewReader(in)
	if out, err := wd.CombinedOutput(); err != nil {
		t.Fatalf("watchdog: %v %s", err, out)
	}
	if !exited(kept) {
		t.Error("a group still listed at EOF outlived the watchdog")
	}
	if syscall.Kill(ended.Process.Pid, 0) != nil {
		t.Error("a group taken off the list was killed")
	}
}

// A child started through Start dies when the thread that started it
// would: here, when its parent (a re-executed test binary) is killed.
func TestDeathSignalReachesTheChild(t *testing.T) {
	if os.Getenv("CHILDPROC_PARENT") == "1" {
		cmd := exec.Command("sleep", "60")
		cmd.SysProcAttr = Attr()
		if err := Start(cmd); err != nil {
			os.Exit(2)
		}
		os.Stdout.WriteString(strconv.Itoa(cmd.Process.Pid) + "\n")
		time.Sleep(time.Minute) // a helper process that stays until the test kills it
		os.Exit(0)
	}
	t.Parallel()
	parent := exec.Command(os.Args[0], "-test.run=^TestDeathSignalReachesTheChild$")
	parent.Env = append(os.Environ(), "CHILDPROC_PARENT=1")
	out, err := parent.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := parent.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 32)
	n, _ := out.Read(buf)
	pid, err := strconv.Atoi(strings.TrimSpace(string(buf[:n])))
	if err != nil {
		parent.Process.Kill()
		t.Fatalf("no child pid: %q", buf[:n])
	}
	_ = parent.Process.Kill()
	_ = parent.Wait()
	deadline := time.Now().Add(5 * time.Second)
	for syscall.Kill(pid, 0) == nil {
		if b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat"); strings.Contains(string(b), ") Z") {
			return // a zombie: dead, waiting for init to reap it
		}
		if time.Now().After(deadline) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
			t.Fatal("the child outlived its parent's kill -9")
		}
		time.Sleep(10 * time.Millisecond) // poll: another process (its pid file, its exit) signals nothing here
	}
}

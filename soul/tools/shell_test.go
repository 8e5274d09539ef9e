package tools

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// chunks collects Env.Output calls with their arrival time.
type chunks struct {
	mu    sync.Mutex
	texts []string
	times []time.Time
	first chan struct{}
}

func newChunks() *chunks { return &chunks{first: make(chan struct{})} }

func (c *chunks) out(s string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.texts) == 0 {
		close(c.first)
	}
	c.texts = append(c.texts, s)
	c.times = append(c.times, time.Now())
}

func TestShellBasicAndExitCodes(t *testing.T) {
	t.Parallel()
	env, rec := newEnv(t)
	writeFile(t, filepath.Join(env.WorkDir, "here.txt"), "")
	sh := &Shell{}

	res := call(t, sh, env, map[string]any{"command": "ls; echo err >&2"})
	mustOK(t, res)
	if !strings.Contains(res.Output, "here.txt") || !strings.Contains(res.Output, "err") || !strings.HasSuffix(res.Output, "[Exit code: 0]") {
		t.Fatalf("output: %q", res.Output)
	}
	if !strings.HasPrefix(res.Brief, "exit 0 · ") {
		t.Fatalf("brief %q", res.Brief)
	}
	a := rec.approvals[0]
	if a.Tool != "Shell" || a.Action != ActionRunShell || a.Command != "ls; echo err >&2" {
		t.Fatalf("approval %+v", a)
	}
	want := []string{"approve:" + ActionRunShell, "shell-before", "shell-after"}
	if log := rec.Log(); !slices.Equal(log, want) {
		t.Fatalf("log %v, want %v", log, want)
	}

	res = call(t, sh, env, map[string]any{"command": "echo failing; exit 3"})
	if !res.IsError || !strings.Contains(res.Output, "failing") || !strings.Contains(res.Output, "[Exit code: 3]") || res.Brief != "exit 3 · 8 B" {
		t.Fatalf("exit 3: %+v", res)
	}
	res = call(t, sh, env, map[string]any{"command": "true"})
	if res.IsError || !strings.HasPrefix(res.Output, "(no output)") {
		t.Fatalf("no output: %+v", res)
	}
	res = call(t, sh, env, map[string]any{"command": "kill -9 $$"})
	if !res.IsError || !strings.Contains(res.Output, "killed by signal") {
		t.Fatalf("signal: %+v", res)
	}
	mustErr(t, call(t, sh, env, map[string]any{"command": "  "}), "command is empty")
	mustErr(t, call(t, sh, env, map[string]any{"command": "ls", "timeout": 601}), "maximum is 600")
	mustErr(t, call(t, sh, env, map[string]any{"command": "ls", "timeout": 0}), "at least 1")
}

func TestShellRejectAndTrackerError(t *testing.T) {
	t.Parallel()
	env, rec := newEnv(t)
	marker := filepath.Join(env.WorkDir, "ran")
	rec.decide = func(Approval) Decision { return Decision{Feedback: "not that"} }
	res := call(t, &Shell{}, env, map[string]any{"command": "touch ran"})
	if !res.Rejected || !strings.Contains(res.Output, "not that") {
		t.Fatalf("reject: %+v", res)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("rejected command ran")
	}
	if log := rec.Log(); slices.Contains(log, "shell-before") {
		t.Fatalf("tracker called after reject: %v", log)
	}
	rec.decide = nil
	rec.failNext = os.ErrPermission
	mustErr(t, call(t, &Shell{}, env, map[string]any{"command": "touch ran"}), "was not run")
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("command ran although the checkpoint scan failed")
	}
}

// TestShellStreams: a command's output reaches Env.Output while it runs.
// The command prints, then waits until the test has seen that line (it
// makes the file "seen" when the first chunk arrives): were the output
// held until the end, the command would time out instead. (A fixed sleep
// between two lines, and the first seen 400 ms before the end, failed on
// a loaded machine: 225 ms.)
func TestShellStreams(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	c := newChunks()
	env.Output = c.out
	called := make(chan struct{})
	defer close(called)
	go func() {
		select {
		case <-c.first:
			_ = os.WriteFile(filepath.Join(env.WorkDir, "seen"), nil, 0o644)
		case <-called:
		}
	}()
	res := call(t, &Shell{}, env, map[string]any{
		"command": "echo first; until [ -e seen ]; do sleep 0.01; done; echo second",
		"timeout": 10,
	})
	mustOK(t, res)
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.texts) < 2 || c.texts[0] != "first\n" {
		t.Fatalf("want \"first\\n\" as a chunk of its own, then the rest; got %q", c.texts)
	}
	if strings.Join(c.texts, "") != "first\nsecond\n" {
		t.Fatalf("streamed %q", c.texts)
	}
}

func TestShellStreamsWholeRunes(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	var mu sync.Mutex
	var got []string
	env.Output = func(s string) { mu.Lock(); got = append(got, s); mu.Unlock() }
	// "é" is c3 a9: emit the two bytes in separate writes.
	res := call(t, &Shell{}, env, map[string]any{"command": `printf '\303'; sleep 0.3; printf '\251\n'`})
	mustOK(t, res)
	mu.Lock()
	defer mu.Unlock()
	if strings.Join(got, "") != "é\n" {
		t.Fatalf("streamed %q", got)
	}
	for _, s := range got {
		if !strings.HasPrefix(s, "é") && s != "\n" {
			t.Fatalf("split rune: %q", got)
		}
	}
}

// gone reports whether pid has exited (a zombie counts as gone: in a
// container nobody may reap it).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	return len(f) > 0 && (f[0] == "Z" || f[0] == "X")
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second) // a timeout, not a bound: the machine may be loaded
	for !gone(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Fatalf("child %d still running", pid)
		}
		time.Sleep(20 * time.Millisecond) // poll: another process (its pid file, its exit) signals nothing here
	}
}

func childPID(t *testing.T, path string) int {
	t.Helper()
	for i := 0; i < 100; i++ {
		if b, err := os.ReadFile(path); err == nil && strings.TrimSpace(string(b)) != "" {
			pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
			if err != nil {
				t.Fatal(err)
			}
			return pid
		}
		time.Sleep(10 * time.Millisecond) // poll: another process (its pid file, its exit) signals nothing here
	}
	t.Fatal("child pid not written")
	return 0
}

func TestShellTimeoutKillsProcessGroup(t *testing.T) {
	t.Parallel()
	env, rec := newEnv(t)
	pidFile := filepath.Join(env.WorkDir, "pid")
	start := time.Now()
	// A child that ignores SIGTERM, in the background, and the shell waiting.
	res := call(t, &Shell{}, env, map[string]any{
		"command": `(trap '' TERM; exec sleep 30) & echo $! > pid; echo started; wait`,
		"timeout": 1,
	})
	if took := time.Since(start); took > 6*time.Second {
		t.Fatalf("timeout took %v", took)
	}
	if !res.IsError || !strings.Contains(res.Output, "timed out after 1s") || !strings.Contains(res.Output, "started") || !strings.HasPrefix(res.Brief, "timed out after 1s") {
		t.Fatalf("timeout result: %+v", res)
	}
	waitGone(t, childPID(t, pidFile))
	if log := rec.Log(); !slices.Equal(log, []string{"approve:" + ActionRunShell, "shell-before", "shell-after"}) {
		t.Fatalf("tracker log %v (after() must run with a live ctx after a timeout)", log)
	}
}

// TestShellTimeoutWhenTheShellIgnoresTERM: a shell still running when the
// SIGTERM's grace ends is killed and then waited for through the one
// goroutine that waits for it: the call read the command's exit state
// while that goroutine wrote it (a data race under -race, seen under load
// when a shell took longer than the grace to die; here it ignores TERM).
func TestShellTimeoutWhenTheShellIgnoresTERM(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	res := call(t, &Shell{killGrace: 50 * time.Millisecond}, env, map[string]any{
		"command": "trap '' TERM; echo started; sleep 30; echo late",
		"timeout": 1,
	})
	if !res.IsError || !strings.HasPrefix(res.Brief, "timed out after 1s") || !strings.Contains(res.Output, "started") || strings.Contains(res.Output, "late") {
		t.Fatalf("timeout result: %+v", res)
	}
}

func TestShellCancelKillsProcessGroup(t *testing.T) {
	t.Parallel()
	env, rec := newEnv(t)
	c := newChunks()
	env.Output = c.out
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-c.first:
			cancel()
		case <-time.After(10 * time.Second):
		}
	}()
	start := time.Now()
	res := (&Shell{}).Call(ctx, env, []byte(`{"command":"sleep 30 & echo $! > pid; echo go; wait"}`))
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("cancel took %v", took)
	}
	if !res.IsError || !strings.Contains(res.Output, "interrupted") || !strings.HasPrefix(res.Brief, "interrupted") {
		t.Fatalf("cancel result: %+v", res)
	}
	waitGone(t, childPID(t, filepath.Join(env.WorkDir, "pid")))
	if log := rec.Log(); !slices.Equal(log, []string{"approve:" + ActionRunShell, "shell-before", "shell-after"}) {
		t.Fatalf("tracker log %v", log)
	}
}

func TestShellOutputCap(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	var streamed strings.Builder
	var mu sync.Mutex
	env.Output = func(s string) { mu.Lock(); streamed.WriteString(s); mu.Unlock() }
	sh := &Shell{MaxOutput: 1000}
	res := call(t, sh, env, map[string]any{"command": `echo HEAD; seq 1 20000; echo TAIL`})
	mustOK(t, res)
	if !strings.HasPrefix(res.Output, "HEAD\n1\n2\n") || !strings.Contains(res.Output, "20000\nTAIL") {
		t.Fatalf("head/tail not kept: %.80q … %q", res.Output, res.Output[len(res.Output)-80:])
	}
	if !strings.Contains(res.Output, " bytes elided …") || len(res.Output) > 1200 {
		t.Fatalf("cap: %d bytes", len(res.Output))
	}
	total := len("HEAD\nTAIL\n")
	for i := 1; i <= 20000; i++ {
		total += len(strconv.Itoa(i)) + 1
	}
	elided := total - 1000
	if !strings.Contains(res.Output, "… "+strconv.Itoa(elided)+" bytes elided …") {
		t.Fatalf("wrong elided count (want %d): %q", elided, res.Output[480:560])
	}
	mu.Lock()
	if streamed.Len() != total {
		t.Fatalf("live output %d bytes, want all %d", streamed.Len(), total)
	}
	mu.Unlock()
}

func TestShellBackgroundJobDoesNotHang(t *testing.T) {
	t.Parallel()
	env, _ := newEnv(t)
	start := time.Now()
	// The wait for the pipe is the point, not its length (2 s in use).
	res := call(t, &Shell{drainGrace: 500 * time.Millisecond}, env, map[string]any{"command": "sleep 30 & echo $! > pid; echo done"})
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("a background job held the call for %v", took)
	}
	mustOK(t, res)
	if !strings.Contains(res.Output, "done") || !strings.Contains(res.Output, "Background processes") {
		t.Fatalf("output %q", res.Output)
	}
	pid := childPID(t, filepath.Join(env.WorkDir, "pid"))
	syscall.Kill(pid, syscall.SIGKILL)
}

func TestShellEnvironmentHasNoSecrets(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-canary-shell-1")
	t.Setenv("SOME_SERVICE_TOKEN", "tok-canary-2")
	t.Setenv("REWIND_TEST_VISIBLE", "visible-3")
	env, _ := newEnv(t)

	res := call(t, &Shell{}, env, map[string]any{"command": "env"})
	mustOK(t, res)
	if strings.Contains(res.Output, "sk-canary-shell-1") || strings.Contains(res.Output, "tok-canary-2") {
		t.Errorf("a secret reached the shell by default:\n%s", res.Output)
	}
	if !strings.Contains(res.Output, "REWIND_TEST_VISIBLE=visible-3") {
		t.Errorf("an ordinary variable was dropped:\n%s", res.Output)
	}

	res = call(t, &Shell{Environ: []string{"ONLY=this"}}, env, map[string]any{"command": "env"})
	if !strings.Contains(res.Output, "ONLY=this") || strings.Contains(res.Output, "REWIND_TEST_VISIBLE") {
		t.Errorf("Shell.Environ was not used:\n%s", res.Output)
	}
}

// TestShellTimeoutTellsTheTruthAboutSetsid: a child started with setsid
// leaves the process group, so the timeout cannot kill it; the message
// must not claim that every process was killed.
func TestShellTimeoutTellsTheTruthAboutSetsid(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("no setsid here")
	}
	env, _ := newEnv(t)
	// The setsid child holds the output open for as long as the drain
	// grace lasts, however long that is: the grace is not the point.
	res := call(t, &Shell{drainGrace: 100 * time.Millisecond}, env, map[string]any{
		"command": `setsid sleep 30 & echo $! > pid; sleep 30`,
		"timeout": 1,
	})
	pid := childPID(t, filepath.Join(env.WorkDir, "pid"))
	t.Cleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
	if strings.Contains(res.Output, "with every process it started") {
		t.Errorf("claims every process was killed while the setsid child lives:\n%s", res.Output)
	}
	if !strings.Contains(res.Output, "outside that group") || !strings.Contains(res.Output, "still running") {
		t.Errorf("the timeout message does not say the setsid child survived:\n%s", res.Output)
	}
	if err := syscall.Kill(pid, 0); err != nil {
		t.Errorf("the setsid child is gone (%v): the test no longer shows the case", err)
	}
}

// TestShellCommandRunsOnlyOnceItsGroupIsWatched: a Shell command runs
// nothing until its process group is tracked, which tells childproc's
// watchdog to kill it if rewind dies. A command started free ran before
// that, and a kill -9 of rewind in between left what it had started in
// the background running for good (TestKill9LeavesNoOrphans, under load).
// The test holds the step between the start and the tracking until the
// command has run (its marker) or waits at the gate (its fd 3, the gate's
// pipe): on the old code it runs, every time. It runs as `bash -c`
// would: $0 bash, no positional parameters, no fd 3 of the gate's.
// Not parallel: it sets the package's hook.
func TestShellCommandRunsOnlyOnceItsGroupIsWatched(t *testing.T) {
	env, _ := newEnv(t)
	marker := filepath.Join(env.WorkDir, "ran")
	ranEarly := false
	shellStarted = func(pgid int) {
		gate := fmt.Sprintf("/proc/%d/fd/3", pgid)
		deadline := time.Now().Add(20 * time.Second)
		for {
			if _, err := os.Stat(marker); err == nil {
				ranEarly = true
				return
			}
			if l, err := os.Readlink(gate); err == nil && strings.HasPrefix(l, "pipe:") {
				return
			}
			if time.Now().After(deadline) {
				t.Error("the command neither ran nor waited at the gate")
				return
			}
			time.Sleep(time.Millisecond) // poll: another process's files signal nothing here
		}
	}
	defer func() { shellStarted = nil }()
	res := call(t, &Shell{}, env, map[string]any{"command": `echo ran > ran; echo "$0 $#"; if [ -e /proc/$$/fd/3 ]; then echo fd 3 open; fi`})
	if ranEarly {
		t.Error("the command ran before its process group was tracked (and watched)")
	}
	if !strings.HasPrefix(res.Output, "bash 0\n\n[Exit code: 0]") {
		t.Errorf("output %q, want bash's $0, no parameters and no fd 3", res.Output)
	}
}

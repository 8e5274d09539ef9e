package main

// kill -9 of rewind gives it no chance to clean up: what it started for the
// model must die with it all the same (a parent-death signal for its
// direct children, a watchdog for the rest of their process groups).

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/soul/mcp/mcptest"
)

// waitPIDs waits until each file holds a pid and returns them.
func waitPIDs(t *testing.T, files ...string) []int {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var pids []int
	for _, f := range files {
		for {
			b, err := os.ReadFile(f)
			if n, convErr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && convErr == nil && strings.HasSuffix(string(b), "\n") {
				pids = append(pids, n)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s never got a pid", f)
			}
			time.Sleep(20 * time.Millisecond) // poll: another process (its pid file, its exit) signals nothing here
		}
	}
	return pids
}

func TestKill9LeavesNoOrphans(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	// The shell itself, a child in its group, and an MCP server with its
	// child: none may outlive rewind.
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("c1", "Shell", map[string]any{"command": "echo $$ > shell.pid; sleep 300 & echo $! > child.pid; wait"})),
		llmtest.Text("never"),
	)
	e := newEnv(t).withServer(srv)
	mcpPIDs := e.withMCP(nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := e.command(ctx, "-p", "sleep", "--yolo")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pids := waitPIDs(t, filepath.Join(e.workDir, "shell.pid"), filepath.Join(e.workDir, "child.pid"))
	servers, err := mcptest.ReadPIDs(mcpPIDs, 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	pids = append(pids, servers...)
	for _, pid := range pids {
		if !mcptest.Running(pid) {
			t.Fatalf("process %d is not running before the kill", pid)
		}
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if pid := mcptest.WaitGone(pids, 5*time.Second); pid != 0 {
		b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		t.Fatalf("process %d (%s) outlived rewind's kill -9; all: %v", pid, strings.ReplaceAll(string(b), "\x00", " "), pids)
	}
}

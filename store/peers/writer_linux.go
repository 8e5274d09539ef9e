//go:build linux

package peers

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// writerAlive says whether the agent writing a session file still runs: a
// process holds the file open (codex keeps its rollout open), or a codex
// or Claude Code process runs in the session's work dir (Claude Code opens
// its file for each append).
func writerAlive(path, workDir string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	procs, err := os.ReadDir("/proc")
	if err != nil {
		return false
	}
	self := strconv.Itoa(os.Getpid())
	for _, p := range procs {
		pid := p.Name()
		if pid == self || pid[0] < '0' || pid[0] > '9' {
			continue
		}
		fds, _ := os.ReadDir(filepath.Join("/proc", pid, "fd"))
		for _, fd := range fds {
			if t, err := os.Readlink(filepath.Join("/proc", pid, "fd", fd.Name())); err == nil && t == abs {
				return true
			}
		}
		if workDir == "" {
			continue
		}
		if cwd, err := os.Readlink(filepath.Join("/proc", pid, "cwd")); err != nil || cwd != workDir {
			continue
		}
		if agentProcess(filepath.Join("/proc", pid, "cmdline")) {
			return true
		}
	}
	return false
}

// agentProcess: the command line is codex's or Claude Code's CLI (run
// directly or through node), not codex's app-server daemon, which stays
// after its sessions end (a session it writes holds its file open).
func agentProcess(cmdlinePath string) bool {
	cmd, _ := os.ReadFile(cmdlinePath)
	args := strings.Split(strings.TrimRight(string(cmd), "\x00"), "\x00")
	for i, arg := range args[:min(2, len(args))] {
		b := filepath.Base(arg)
		if b == "claude" || b == "claude.exe" || b == "codex" || b == "codex.js" {
			return !(len(args) > i+1 && args[i+1] == "app-server")
		}
	}
	return false
}

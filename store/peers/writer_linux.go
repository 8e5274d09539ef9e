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
		cmd, _ := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
		for _, arg := range strings.Split(string(cmd), "\x00")[:min(2, strings.Count(string(cmd), "\x00"))] {
			if b := filepath.Base(arg); b == "claude" || b == "codex" || strings.HasSuffix(b, "claude.exe") || strings.HasSuffix(arg, "codex.js") {
				return true
			}
		}
	}
	return false
}

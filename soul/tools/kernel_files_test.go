package tools

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestReadFileRefusesKernelFiles: a /proc file stats as a regular file but
// the kernel makes it up as it is read, and /proc/kmsg (as root) blocks
// until the kernel logs: ReadFile refuses such a file, here through a link
// in the work dir, before reading it. On the old code it was read.
func TestReadFileRefusesKernelFiles(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the kernel's pseudo-filesystems are Linux's")
	}
	env, _ := newEnv(t)
	if err := os.Symlink("/proc/self/status", filepath.Join(env.WorkDir, "status")); err != nil {
		t.Fatal(err)
	}
	done := make(chan Result, 1)
	go func() { done <- call(t, &ReadFile{}, env, map[string]any{"path": "status"}) }()
	select {
	case res := <-done:
		if !res.IsError || res.Brief != "not a regular file" || !strings.Contains(res.Output, "kernel's proc filesystem") {
			t.Errorf("ReadFile of /proc/self/status: %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ReadFile blocked on a kernel file")
	}
}

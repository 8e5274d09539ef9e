package testbin

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestTempInMemory: the temporary directories of the tests are made on
// tmpfs, under a directory of their own that remove takes away; a TMPDIR
// the user set is kept.
func TestTempInMemory(t *testing.T) {
	if memoryRoot() == "" {
		t.Skip("no tmpfs at /dev/shm that allows exec")
	}
	t.Setenv("TMPDIR", "")
	remove := TempInMemory("self")
	root := os.TempDir()
	if !strings.HasPrefix(root, "/dev/shm/rewind-test-self-") {
		remove()
		t.Fatalf("TMPDIR is %q, want a directory under /dev/shm", root)
	}
	dir, err := os.MkdirTemp("", "x")
	if err == nil {
		var st syscall.Statfs_t
		err = syscall.Statfs(dir, &st)
		if err == nil && st.Type != 0x01021994 {
			t.Errorf("%s is not on tmpfs (%#x)", dir, st.Type)
		}
	}
	remove()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Fatalf("%s still there after remove: %v", root, err)
	}
	if os.Getenv("TMPDIR") != "" {
		t.Fatalf("TMPDIR still %q", os.Getenv("TMPDIR"))
	}

	mine := filepath.Join(t.TempDir(), "mine")
	t.Setenv("TMPDIR", mine)
	TempInMemory("self")()
	if os.Getenv("TMPDIR") != mine {
		t.Fatalf("TMPDIR set by the user became %q", os.Getenv("TMPDIR"))
	}
}

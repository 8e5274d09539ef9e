package regfile

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestOpenRefusesFIFOWithoutBlocking(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{fifo, link, dir, "/dev/zero"} {
		_, err := ReadFile(p) // on the old code path (os.ReadFile) this blocks or never ends
		var nr *NotRegularError
		if !errors.As(err, &nr) || !errors.Is(err, ErrNotRegular) {
			t.Errorf("%s: %v, want a NotRegularError", p, err)
		}
	}
	reg := filepath.Join(dir, "plain")
	if err := os.WriteFile(reg, []byte("hi"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadFile(reg); err != nil || string(b) != "hi" {
		t.Errorf("regular file: %q %v", b, err)
	}
}

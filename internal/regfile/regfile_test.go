package regfile

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
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

// TestOpenRefusesKernelPseudoFiles: a file of /proc or /sys stats as
// regular but is made up by the kernel as it is read (/proc/kmsg blocks
// until the kernel logs, even opened O_NONBLOCK); Open refuses it before
// any read. On the old code it was opened and read like any file.
func TestOpenRefusesKernelPseudoFiles(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the kernel's pseudo-filesystems are Linux's")
	}
	for _, p := range []string{"/proc/self/status", "/proc/kmsg", "/sys/kernel/uevent_seqnum"} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		f, err := Open(p)
		if f != nil {
			f.Close()
		}
		var nr *NotRegularError
		if !errors.As(err, &nr) || !strings.Contains(err.Error(), "kernel's") {
			t.Errorf("%s: %v, want a NotRegularError naming the kernel filesystem", p, err)
		}
	}
}

// TestReaderGivesUpOnAStalledRead: a read that does not return fails after
// the timeout, or at once when the context ends, and so does every read
// after it; a reader that answers passes through untouched.
func TestReaderGivesUpOnAStalledRead(t *testing.T) {
	t.Parallel()
	pr, pw := io.Pipe() // nothing is ever written: a read blocks for good
	t.Cleanup(func() { pw.Close() })
	r := newTimedReader(context.Background(), pr, "/stalled", 50*time.Millisecond)
	start := time.Now()
	_, err := r.Read(make([]byte, 10))
	var te *TimeoutError
	if !errors.As(err, &te) || te.Path != "/stalled" || !strings.Contains(err.Error(), "no data for 50ms") {
		t.Fatalf("a stalled read: %v", err)
	}
	if waited := time.Since(start); waited > 5*time.Second {
		t.Errorf("gave up after %s", waited)
	}
	if _, err := r.Read(make([]byte, 10)); !errors.As(err, &te) {
		t.Errorf("the read after a timeout: %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	pr2, pw2 := io.Pipe()
	t.Cleanup(func() { pw2.Close() })
	r = newTimedReader(ctx, pr2, "/stalled", time.Hour)
	done := make(chan error, 1)
	go func() { _, err := r.Read(make([]byte, 10)); done <- err }()
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("a read cancelled: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a cancelled read still waits")
	}

	b, err := io.ReadAll(NewReader(context.Background(), strings.NewReader("plain text"), "/plain"))
	if err != nil || string(b) != "plain text" {
		t.Errorf("a plain reader: %q %v", b, err)
	}
}

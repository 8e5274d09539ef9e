package kimi

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/internal/regfile"
)

// within runs fn and fails the test if it has not returned in 10 s (it
// is left running: the old code blocked in it for good).
func within(t *testing.T, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatalf("%s blocked", what)
	}
}

// TestDiscoverRefusesAFIFOKimiJSON: a share dir whose kimi.json is a named
// pipe is refused at once, naming it; a FIFO state.json only loses the
// recorded title. os.ReadFile blocked on both for good.
func TestDiscoverRefusesAFIFOKimiJSON(t *testing.T) {
	t.Parallel()
	share := writeShare(t, []string{"/w"}, []shareSession{{workDir: 0, uuid: "u1", files: map[string]string{CurrentFile: lineUser}}})
	meta := filepath.Join(share, MetadataFile)
	if err := os.Remove(meta); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(meta, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	var err error
	within(t, "Discover with a FIFO kimi.json", func() { _, err = Discover(share) })
	var nr *regfile.NotRegularError
	if !errors.As(err, &nr) || nr.Path != meta {
		t.Errorf("Discover: %v, want a NotRegularError for %s", err, meta)
	}

	share = writeShare(t, []string{"/w"}, []shareSession{{workDir: 0, uuid: "u2", files: map[string]string{CurrentFile: lineUser}}})
	d, err := Discover(share)
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(d.Sources[0].Path, "state.json"), 0o600); err != nil {
		t.Fatal(err)
	}
	within(t, "Discover with a FIFO state.json", func() { d, err = Discover(share) })
	if err != nil || len(d.Sources) != 1 || d.Sources[0].Title != "" {
		t.Errorf("Discover: %+v %v", d.Sources, err)
	}
}

// TestImportRefusesKernelFiles: importing a file of /proc is refused
// before any read, whatever it is named: /proc/kmsg, read as root, blocked
// the import for good.
func TestImportRefusesKernelFiles(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	for _, p := range []string{"/proc/self/status", "/proc/kmsg"} {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		var err error
		within(t, "importing "+p, func() { _, err = ImportPath(context.Background(), db, p, "/w") })
		if !errors.Is(err, regfile.ErrNotRegular) {
			t.Errorf("import %s: %v, want a refusal", p, err)
		}
	}
}

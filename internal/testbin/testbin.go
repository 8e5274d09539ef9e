// Package testbin holds what test binaries share: Rewind builds the rewind
// binary for the end-to-end tests that run it (cmd/rewind, app/tui's tmux
// tests), and CollectLess tunes the collector of a test binary whose tests
// allocate much and keep little.
//
// Rewind builds into a directory of the user's cache kept per source tree,
// where go build links again only when a source changed: a fresh build
// linked the binary twice on every run of the suite, 3 s of CPU each.
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"syscall"
)

// CollectLess runs the collector at GOGC=400 unless GOGC is set, for a
// TestMain to call: the rendering, import and agent-loop tests allocate
// much and keep little, and the default GOGC=100 spent 10 to 25 % of
// their package's CPU collecting, for a few tens of MB saved.
func CollectLess() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}
}

// Rewind builds ./cmd/rewind of this source tree as name (one name per
// test package: two packages run at once, and a file being linked cannot
// be run) and returns the binary's path.
func Rewind(name string) (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("testbin: no source path")
	}
	root := filepath.Join(filepath.Dir(file), "..", "..")
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	sum := sha256.Sum256([]byte(root))
	dir := filepath.Join(cache, "rewind-tests", hex.EncodeToString(sum[:8]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("testbin: %w", err)
	}
	bin := filepath.Join(dir, name)
	// Another run of the same package (another go test in this tree)
	// waits here rather than run a half-written binary.
	lock, err := os.OpenFile(bin+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return "", fmt.Errorf("testbin: %w", err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("testbin: lock %s: %w", bin, err)
	}
	build := exec.Command("go", "build", "-o", bin, "./cmd/rewind")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
}

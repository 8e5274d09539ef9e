// Package testbin holds what test binaries share: Rewind builds the rewind
// binary for the end-to-end tests that run it (cmd/rewind, app/tui's tmux
// tests), CollectLess tunes the collector of a test binary whose tests
// allocate much and keep little, WidenParallel lets a package whose tests
// mostly wait run more of them at once, and TempInMemory puts the
// temporary directories of a package's tests on tmpfs; VerifyNoLeaks
// fails a package's run if a test left a goroutine behind.
//
// Rewind builds into a directory of the user's cache kept per source tree,
// where go build links again only when a source changed: a fresh build
// linked the binary twice on every run of the suite, 3 s of CPU each.
package testbin

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"syscall"
	"testing"

	"go.uber.org/goleak"

	"github.com/rewind-agent/rewind/internal/childproc"
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

// WidenParallel runs up to eight parallel tests at once unless -parallel
// is given, for a TestMain to call before m.Run: tests that mostly wait
// (on a simulated screen's redraw, a fake model, a child process, tmux)
// left the cores idle at the default of GOMAXPROCS (two on the CI
// machine). app/tui: 50 s of wall time for 31 s of CPU, 21 s with eight;
// cmd/rewind: 8.3 -> 6.6 s at the same CPU.
func WidenParallel() {
	flag.Parse()
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		_ = flag.Set("test.parallel", strconv.Itoa(max(8, runtime.GOMAXPROCS(0))))
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

// TempInMemory points TMPDIR, and so t.TempDir and os.MkdirTemp, at a new
// directory on tmpfs where the machine has one (/dev/shm, mounted without
// noexec), for a TestMain to call before m.Run; the function it returns
// removes the directory. It does nothing when TMPDIR is set: the user
// chose where temporary files go.
//
// For the packages whose tests are about what rewind does with files, not
// about the disk: on tmpfs the same files are made, written, renamed,
// locked, synced and watched, without ext4's block and journal work under
// them, which a loaded disk makes slow (soul/tools' 690 argument checks
// each make and remove a directory: 1.4 s of wall time and 0.4 s of
// system CPU on ext4, 0.1 s on tmpfs). A process killed with SIGKILL
// leaves its writes in the page cache on either: the crash tests test
// the same thing; no test cuts the power.
func TempInMemory(name string) (remove func()) {
	root := memoryRoot()
	if os.Getenv("TMPDIR") != "" || root == "" {
		return func() {}
	}
	dir, err := os.MkdirTemp(root, "rewind-test-"+name+"-")
	if err != nil {
		return func() {}
	}
	os.Setenv("TMPDIR", dir)
	return func() {
		os.Unsetenv("TMPDIR")
		os.RemoveAll(dir)
	}
}

// VerifyNoLeaks runs the package's tests and fails the run if one left a
// goroutine behind, besides those internal/childproc keeps for the life of
// the process (its forker thread, its watchdog's reaper) and the functions
// in ignore. cleanup, if not nil, runs before the binary exits.
func VerifyNoLeaks(m *testing.M, cleanup func(), ignore ...string) {
	var opts []goleak.Option
	for _, f := range append(append([]string(nil), childproc.Goroutines...), ignore...) {
		opts = append(opts, goleak.IgnoreAnyFunction(f))
	}
	if cleanup != nil {
		opts = append(opts, goleak.Cleanup(func(code int) {
			cleanup()
			os.Exit(code)
		}))
	}
	goleak.VerifyTestMain(m, opts...)
}

// Package childproc starts the processes rewind runs for the model (Shell
// commands, MCP servers) so that they do not outlive it, even when rewind
// is killed with SIGKILL and can clean nothing up:
//
//   - Each child leads its own process group (Attr), so a timeout or a stop
//     kills everything it started.
//   - On Linux it gets a parent-death signal (SIGKILL). The kernel sends it
//     when the thread that forked the child exits, not the process, so
//     every child is started from one goroutine locked to its OS thread for
//     good (Start, Do): that thread ends only with rewind.
//   - The death signal reaches the direct child only. The rest of its group
//     (a `sleep` under `bash -c "…; sleep 9"`, node under npx) is killed by
//     a watchdog: one `sh` per rewind process whose stdin is a pipe only
//     rewind holds. Watch and Unwatch tell it the groups alive; when rewind
//     dies, the pipe closes and the watchdog kills every group still
//     listed.
//
// A process that leaves its group (setsid, a daemon) escapes all three.
package childproc

import (
	"fmt"
	"os"
	"os/exec"
	"sync"
	"syscall"
)

// Attr is the SysProcAttr of a child that must not outlive rewind: its own
// process group and, on Linux, SIGKILL when rewind dies.
func Attr() *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(a)
	return a
}

// Start starts cmd, whose SysProcAttr is Attr(), from the thread that
// starts every child.
func Start(cmd *exec.Cmd) error { return Do(cmd.Start) }

// watchdogScript keeps the set of live groups from lines "+ PGID" and
// "- PGID" on stdin; at EOF (rewind exited or died) it kills what is left.
// It ignores the signals a terminal sends its foreground group. Only
// numbers above 1 are ever taken: kill -- -1 would signal every process.
const watchdogScript = `trap '' HUP INT TERM QUIT PIPE
g=' '
while read -r op pg; do
  case $pg in ''|*[!0-9]*|0|1) continue ;; esac
  case $op in
  +) g="$g$pg " ;;
  -) case $g in *" $pg "*) g="${g%% $pg *} ${g#* $pg }" ;; esac ;;
  esac
done
for pg in $g; do [ "$pg" -gt 1 ] && kill -s KILL -- "-$pg" 2>/dev/null; done`

var watchdog struct {
	sync.Mutex
	w      *os.File // the write end of its stdin; nil before the first Watch
	failed bool     // it could not be started: death signals only
}

// Watch tells the watchdog that process group pgid must die with rewind.
func Watch(pgid int) { tell('+', pgid) }

// Unwatch tells it that the group ended (or was killed).
func Unwatch(pgid int) { tell('-', pgid) }

func tell(op byte, pgid int) {
	if pgid <= 1 { // -1 and -0 mean every process and our own group
		return
	}
	watchdog.Lock()
	defer watchdog.Unlock()
	if watchdog.w == nil && !watchdog.failed {
		w, err := startWatchdog()
		if err != nil {
			watchdog.failed = true
			return
		}
		watchdog.w = w
	}
	if watchdog.w != nil {
		// A short line on a pipe the watchdog drains: it does not block. If
		// the watchdog is gone, the write fails and death signals remain.
		_, _ = fmt.Fprintf(watchdog.w, "%c %d\n", op, pgid)
	}
}

func startWatchdog() (*os.File, error) {
	r, w, err := os.Pipe() // close-on-exec: no other child inherits w
	if err != nil {
		return nil, err
	}
	defer r.Close()
	cmd := exec.Command("sh", "-c", watchdogScript)
	cmd.Stdin = r
	// Its own group: a Ctrl-C or a kill of rewind's group spares it. No
	// death signal: the closing pipe is its cue.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		w.Close()
		return nil, err
	}
	go reapWatchdog(cmd) // owner: the process; ends with the watchdog
	return w, nil
}

func reapWatchdog(cmd *exec.Cmd) { _ = cmd.Wait() }

// Goroutines are the functions of the goroutines this package keeps for
// the whole life of the process, for the leak checks of tests.
var Goroutines = []string{
	"github.com/rewind-agent/rewind/internal/childproc.forkerLoop",
	"github.com/rewind-agent/rewind/internal/childproc.reapWatchdog",
}

// Proc is a process as found at one moment: its pid and start time, so a
// pid reused since is never mistaken for it.
type Proc struct {
	PID   int
	start string
}

// KillAll sends SIGKILL to each process still running as found.
func KillAll(procs []Proc) {
	for _, p := range procs {
		if p.PID > 1 && startTime(p.PID) == p.start {
			_ = syscall.Kill(p.PID, syscall.SIGKILL)
		}
	}
}

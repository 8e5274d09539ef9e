package childproc

import (
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

func setDeathSignal(a *syscall.SysProcAttr) { a.Pdeathsig = syscall.SIGKILL }

// forker is the goroutine every child is started from. It locks itself to
// its OS thread and never returns, so that thread lives as long as rewind:
// a child's parent-death signal fires when the thread that forked it ends,
// and the Go runtime ends a thread whose locked goroutine exits.
var forker struct {
	once sync.Once
	jobs chan func()
}

func forkerLoop() {
	runtime.LockOSThread()
	for job := range forker.jobs {
		job()
	}
}

// Do runs f on the forker's thread and returns its error. f must be quick
// (start a process, set up its pipes): every start waits for the one
// before.
func Do(f func() error) error {
	forker.once.Do(func() {
		forker.jobs = make(chan func())
		go forkerLoop() // owner: the process; never returns (see forker)
	})
	done := make(chan error, 1)
	forker.jobs <- func() { done <- f() }
	return <-done
}

// Descendants are the processes below pid now, from /proc: also those
// that left its process group (setsid), which a group kill misses, as
// long as their parent still runs.
func Descendants(pid int) []Proc {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	children := map[int][]int{}
	starts := map[int]string{}
	for _, e := range entries {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		ppid, start, ok := stat(p)
		if !ok {
			continue
		}
		children[ppid] = append(children[ppid], p)
		starts[p] = start
	}
	var out []Proc
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, c := range children[p] {
			out = append(out, Proc{PID: c, start: starts[c]})
			queue = append(queue, c)
		}
	}
	return out
}

// stat reads a process's parent and start time from /proc/PID/stat.
func stat(pid int) (ppid int, start string, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, "", false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command may hold spaces and parens
	if i < 0 {
		return 0, "", false
	}
	// After the command: state, ppid, …; the start time is field 22 of
	// the whole line, the 20th after the command.
	f := strings.Fields(s[i+1:])
	if len(f) < 20 {
		return 0, "", false
	}
	ppid, err = strconv.Atoi(f[1])
	return ppid, f[19], err == nil
}

func startTime(pid int) string {
	_, start, _ := stat(pid)
	return start
}

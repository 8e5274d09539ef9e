package tools

import (
	"sync"
	"syscall"

	"github.com/rewind-agent/rewind/internal/childproc"
)

// groups are the process groups of the Shell commands running now. Each
// command runs in its own group (so that a timeout kills everything it
// started), which also means a signal ending rewind does not reach it: the
// process that ends must kill them itself (KillProcessGroups).
var groups = struct {
	sync.Mutex
	pgids   map[int]struct{}
	closing bool
}{pgids: map[int]struct{}{}}

// trackGroup records a running group; untrack forgets it. It fails once
// KillProcessGroups ran: the process is ending and must start nothing new.
func trackGroup(pgid int) (untrack func(), ok bool) {
	groups.Lock()
	defer groups.Unlock()
	if groups.closing {
		return nil, false
	}
	groups.pgids[pgid] = struct{}{}
	// A kill -9 of rewind runs nothing of ours: the watchdog kills the
	// group then.
	childproc.Watch(pgid)
	return func() {
		groups.Lock()
		delete(groups.pgids, pgid)
		groups.Unlock()
		childproc.Unwatch(pgid)
	}, true
}

// TrackProcessGroup records the process group of another child that must
// not outlive rewind (an MCP server), so that KillProcessGroups kills it
// too; untrack forgets it. ok is false once KillProcessGroups ran: the
// caller then kills the group itself.
func TrackProcessGroup(pgid int) (untrack func(), ok bool) { return trackGroup(pgid) }

// KillProcessGroups sends SIGKILL to the process group of every Shell
// command still running (and every group given to TrackProcessGroup) and
// refuses new ones from then on. The signal
// handler calls it before the process exits, whatever the signal (HUP,
// TERM, INT, QUIT), so no command outlives rewind.
func KillProcessGroups() {
	groups.Lock()
	defer groups.Unlock()
	groups.closing = true
	for pgid := range groups.pgids {
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	}
}

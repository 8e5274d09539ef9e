package app

import (
	"context"
	"errors"
	"fmt"

	"github.com/rewind-agent/rewind/app/timetravel"
	"github.com/rewind-agent/rewind/app/tui"
	"github.com/rewind-agent/rewind/store"
)

// ForkArgs is `rewind fork`: the session, and where to cut it.
type ForkArgs struct {
	SessionID  string
	Generation *int // nil: the current generation
	Checkpoint *int // nil: the whole view; N: the view before checkpoint N
	JSON       bool
}

// Fork copies a generation of a session (the current one by default), up
// to a checkpoint (the whole view by default), into a new session, through
// store.ForkSession, the workspace's forks' one implementation: no record
// is copied and the source is unchanged. It takes no lease, so a session
// another process is writing can be forked, as the workspace offers.
// stdout gets the new session's id (with --json, the new session as
// `rewind sessions --json` prints it); stderr one line saying what was
// forked and the work dir the fork belongs to.
func Fork(ctx context.Context, rt *Runtime, a ForkArgs) error {
	gen, err := forkIndex("--generation", a.Generation)
	if err != nil {
		return err
	}
	cp, err := forkIndex("--checkpoint", a.Checkpoint)
	if err != nil {
		return err
	}
	h, err := rt.openSession(ctx, a.SessionID, false)
	if err != nil {
		return err
	}
	defer h.Close(ctx)
	src := h.s.ID
	fork, err := h.db.ForkSession(ctx, src, gen, cp)
	if err != nil {
		return storeError(err, src, forkWhat(err, gen, cp))
	}
	if a.JSON {
		if err := writeJSON(rt.Stdout, tui.SessionRow(fork)); err != nil {
			return err
		}
	} else if _, err := fmt.Fprintln(rt.Stdout, fork.ID); err != nil {
		return err
	}
	what := "session " + src
	if gen >= 0 {
		what = fmt.Sprintf("generation %d of %s", gen, what)
	}
	if cp >= 0 {
		what += fmt.Sprintf(" before checkpoint %d", cp)
	}
	if timetravel.DirMissing(fork.WorkDir) {
		// Continued in place every tool would fail ("bad work dir").
		_, err = fmt.Fprintf(rt.Stderr, "forked %s into %s, whose work dir %s is not on this machine: the workspace opens it read-only; run `rewind --session %s` in the dir to work in and fork it there\n",
			what, fork.ID, oneLine(fork.WorkDir), fork.ID)
		return err
	}
	_, err = fmt.Fprintf(rt.Stderr, "forked %s into %s, which works in %s: continue it with `rewind --session %s`\n",
		what, fork.ID, oneLine(fork.WorkDir), fork.ID)
	return err
}

// forkIndex is a --generation or --checkpoint value as store.ForkSession
// takes it: -1 when not given.
func forkIndex(flag string, v *int) (int, error) {
	switch {
	case v == nil:
		return -1, nil
	case *v < 0:
		return 0, UsageIn("rewind fork", fmt.Errorf("%s must be a non-negative number, got %d", flag, *v))
	}
	return *v, nil
}

// forkWhat names, for storeError, what a failed fork did not find.
func forkWhat(err error, gen, cp int) string {
	switch {
	case errors.Is(err, store.ErrGenerationNotFound):
		return fmt.Sprintf("generation %d", gen)
	case gen >= 0:
		return fmt.Sprintf("checkpoint %d in generation %d", cp, gen)
	}
	return fmt.Sprintf("checkpoint %d", cp)
}

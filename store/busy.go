package store

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mattn/go-sqlite3"
)

// Waiting for a write lock another process holds. Each attempt already
// waits the busy timeout inside SQLite; RetryBusy pauses between attempts,
// doubling from busyBackoff up to busyBackoffMax (variables so tests can
// shorten them).
var (
	busyBackoff    = 50 * time.Millisecond
	busyBackoffMax = time.Second
)

// markBusy wraps a SQLite "database is locked"/"busy" error in ErrBusy, so
// callers tell a lock held elsewhere (transient: try again) from a failure.
func markBusy(err error) error {
	if err == nil || errors.Is(err, ErrBusy) {
		return err
	}
	if isSQLiteBusy(err) {
		return fmt.Errorf("%w (%w)", ErrBusy, err)
	}
	return err
}

func isSQLiteBusy(err error) bool {
	var se sqlite3.Error
	return errors.As(err, &se) && (se.Code == sqlite3.ErrBusy || se.Code == sqlite3.ErrLocked)
}

// RetryBusy runs write, and runs it again while it fails with ErrBusy
// (another process holds the write lock past the busy timeout), until it
// succeeds, fails otherwise, or ctx ends. Meanwhile Busy reports the wait.
// write must be one transaction (all or nothing), so that a failed attempt
// wrote nothing. When ctx ends first, the error wraps both ErrBusy and
// ctx's error.
func (db *DB) RetryBusy(ctx context.Context, write func() error) error {
	err := write()
	if !errors.Is(err, ErrBusy) {
		return err
	}
	db.beginBusy()
	defer db.endBusy()
	t := time.NewTimer(busyBackoff)
	defer t.Stop()
	for wait := busyBackoff; ; {
		select {
		case <-ctx.Done():
			return fmt.Errorf("%w (gave up waiting: %w)", err, ctx.Err())
		case <-db.closed:
			return err
		case <-t.C:
		}
		if err = write(); !errors.Is(err, ErrBusy) {
			return err
		}
		wait = min(2*wait, busyBackoffMax)
		t.Reset(wait)
	}
}

// lockWaitKey carries, in a context made by LockWait, the context whose end
// ends a write's wait for the lock.
type lockWaitKey struct{}

// LockWait returns a context for store writes that ctx must not cut short
// (each is one transaction: begun, it completes) but whose wait for
// another process's write lock ends with ctx: such a write then fails at
// once with ErrBusy wrapping ctx's error, having written nothing. So an
// interrupt is prompt while a long import holds the lock.
func LockWait(ctx context.Context) context.Context {
	return context.WithValue(context.WithoutCancel(ctx), lockWaitKey{}, ctx)
}

// lockWaitEnded reports why a write should stop waiting for the lock: ctx
// ended, or the context given to LockWait did.
func lockWaitEnded(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if outer, ok := ctx.Value(lockWaitKey{}).(context.Context); ok {
		return outer.Err()
	}
	return nil
}

// whileBusy runs op (a BEGIN, or one statement in autocommit) again while
// it fails on a lock another process holds: each attempt waits a slice of
// SQLite's busy timeout, and between attempts whileBusy gives up when the
// DB's busy timeout has passed, when ctx (or LockWait's context) ends, or
// when the DB closes.
func (db *DB) whileBusy(ctx context.Context, op func() error) error {
	deadline := time.Now().Add(db.busyTimeout)
	for {
		err := op()
		if err == nil || !isSQLiteBusy(err) {
			return err
		}
		if cause := lockWaitEnded(ctx); cause != nil {
			return fmt.Errorf("%w (gave up waiting: %w)", markBusy(err), cause)
		}
		select {
		case <-db.closed:
			return markBusy(err)
		default:
		}
		if !time.Now().Before(deadline) {
			return markBusy(err)
		}
	}
}

func (db *DB) beginBusy() {
	if db.busy.Add(1) == 1 {
		db.busySince.Store(time.Now().UnixNano())
	}
}

func (db *DB) endBusy() { db.busy.Add(-1) }

// Busy reports whether a write of this DB is waiting for a write lock
// another process holds (RetryBusy, or the renewal of a lease), and since
// when. Cheap: no SQLite call, so a UI may poll it.
func (db *DB) Busy() (since time.Time, waiting bool) {
	if db.busy.Load() <= 0 {
		return time.Time{}, false
	}
	return time.Unix(0, db.busySince.Load()), true
}

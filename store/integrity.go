package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
)

// ErrDamaged is wrapped by every write to a database that failed PRAGMA
// quick_check: it is open read-only, so that nothing is written on top of
// the damage (which would spread it and make recovery harder).
var ErrDamaged = errors.New("the database is damaged")

// DamagedError says what quick_check found and how to recover.
type DamagedError struct {
	Path   string
	Detail string // quick_check's first complaint
	// Unopenable: even the schema cannot be read, so the database was not
	// opened at all (rather than read-only).
	Unopenable bool
}

func (e *DamagedError) Error() string {
	if e.Unopenable {
		return fmt.Sprintf("the database %s is damaged (%s) and cannot be opened; nothing was written; recover with `sqlite3 %s .recover | sqlite3 %s.recovered`, then move the .recovered file over it",
			e.Path, e.Detail, e.Path, e.Path)
	}
	return fmt.Sprintf("the database %s is damaged (quick_check: %s): it is open read-only and nothing more is written; recover with `sqlite3 %s .recover | sqlite3 %s.recovered`, then move the .recovered file over it",
		e.Path, e.Detail, e.Path, e.Path)
}

func (e *DamagedError) Unwrap() error { return ErrDamaged }

// syncCheckLimit: databases up to this size are checked during Open (a few
// milliseconds); bigger ones on a goroutine, so opening and reading stay
// fast, and the first write waits for the verdict.
var syncCheckLimit int64 = 32 << 20

// integrity is the verdict of quick_check for one DB.
type integrity struct {
	done   chan struct{}
	err    error // set before done is closed
	once   sync.Once
	cancel context.CancelFunc // stops a check still running at Close
	ran    bool               // quick_check ran (the cache did not answer), for tests
}

func (in *integrity) finish(err error) {
	in.once.Do(func() {
		in.err = err
		close(in.done)
	})
}

// startIntegrityCheck runs PRAGMA quick_check unless the cache says this
// very file (size and mtime) passed it already. Small files are checked
// before it returns; big ones on a goroutine.
func (db *DB) startIntegrityCheck(ctx context.Context) {
	db.check = &integrity{done: make(chan struct{}), cancel: func() {}}
	stamp, ok := fileStamp(db.path)
	if ok && stamp.size == 0 {
		db.check.finish(nil) // a new database
		return
	}
	if ok && readCheckCache(db.path) == stamp {
		db.check.finish(nil)
		return
	}
	db.check.ran = true
	if !ok || stamp.size <= syncCheckLimit {
		db.check.finish(quickCheck(ctx, db.reader, db.path))
		return
	}
	cctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	db.check.cancel = cancel
	go func() { // owner: the DB; Close cancels it and waits
		db.check.finish(quickCheck(cctx, db.reader, db.path))
	}()
}

// quickCheck runs PRAGMA quick_check(1) and turns a complaint into a
// *DamagedError.
func quickCheck(ctx context.Context, q *sql.DB, path string) error {
	var verdict string
	err := q.QueryRowContext(ctx, "PRAGMA quick_check(1)").Scan(&verdict)
	if ctx.Err() != nil {
		return fmt.Errorf("integrity check not finished: %w", ctx.Err())
	}
	if err != nil {
		return &DamagedError{Path: path, Detail: oneLineErr(err)}
	}
	if verdict != "ok" {
		return &DamagedError{Path: path, Detail: oneLineErr(errors.New(verdict))}
	}
	return nil
}

func oneLineErr(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// waitChecked blocks until the integrity verdict is in and returns it.
func (db *DB) waitChecked(ctx context.Context) error {
	if db.check == nil {
		return nil
	}
	select {
	case <-db.check.done:
		return db.check.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Damaged reports the integrity verdict if it is in: a *DamagedError when
// quick_check failed, nil when it passed or is still running.
func (db *DB) Damaged() error {
	if db.check == nil {
		return nil
	}
	select {
	case <-db.check.done:
		if errors.Is(db.check.err, ErrDamaged) {
			return db.check.err
		}
	default:
	}
	return nil
}

// stamp identifies one generation of the database file.
type stamp struct {
	size, mtimeNs int64
}

func fileStamp(path string) (stamp, bool) {
	st, err := os.Stat(path)
	if err != nil {
		return stamp{}, false
	}
	return stamp{size: st.Size(), mtimeNs: st.ModTime().UnixNano()}, true
}

// checkCachePath records the stamp of the file generation last known good.
func checkCachePath(path string) string { return path + ".checked" }

func readCheckCache(path string) stamp {
	var s stamp
	data, err := os.ReadFile(checkCachePath(path))
	if err == nil {
		_, _ = fmt.Sscanf(string(data), "%d %d", &s.size, &s.mtimeNs)
	}
	return s
}

// stampCheckCache is called after each complete WAL checkpoint and by
// Close once every connection is closed (the last one checkpoints the WAL
// into the file): this process checked the file and wrote to it only
// through SQLite, so the new generation is as good as the one checked, and
// the next start (or another rewind opening the file meanwhile) need not
// check it again.
func (db *DB) stampCheckCache() {
	if db.check == nil {
		return
	}
	select {
	case <-db.check.done:
	default:
		return
	}
	if db.check.err != nil {
		return
	}
	if s, ok := fileStamp(db.path); ok && s.size > 0 {
		_ = os.WriteFile(checkCachePath(db.path), fmt.Appendf(nil, "%d %d\n", s.size, s.mtimeNs), 0o600)
	}
}

package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
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
	ran    bool               // quick_check ran (the cache did not answer)
	// created: the file was empty at open (a new database): nothing in it
	// was written by anyone but this process.
	created bool
}

func (in *integrity) finish(err error) {
	in.once.Do(func() {
		in.err = err
		close(in.done)
	})
}

// startIntegrityCheck runs PRAGMA quick_check unless the cache says this
// very file (its stamp) passed it already. Small files are checked before
// it returns; big ones on a goroutine.
func (db *DB) startIntegrityCheck(ctx context.Context) {
	db.check = &integrity{done: make(chan struct{}), cancel: func() {}}
	stamp, ok := fileStamp(db.path)
	if ok && stamp.size == 0 {
		db.check.created = true // a new database
		db.check.finish(nil)
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

// stamp identifies one generation of the database file: size, mtime, and
// what a user cannot put back by hand, the inode's ctime (touch -d or a copy
// with cp -p restores an mtime, not the ctime) and inode number, plus a
// content signal, the header's file change counter (bytes 24..27). The WAL
// is left out: see DECISIONS (its frames carry their own checksums).
type stamp struct {
	size, mtimeNs, ctimeNs int64
	inode                  uint64
	counter                uint32
}

func fileStamp(path string) (stamp, bool) {
	f, err := os.Open(path)
	if err != nil {
		return stamp{}, false
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return stamp{}, false
	}
	s := stamp{size: st.Size(), mtimeNs: st.ModTime().UnixNano()}
	if sys, ok := st.Sys().(*syscall.Stat_t); ok {
		s.ctimeNs = sys.Ctim.Nano()
		s.inode = sys.Ino
	}
	head := make([]byte, 28)
	if n, _ := f.ReadAt(head, 0); n == len(head) {
		s.counter = binary.BigEndian.Uint32(head[24:28])
	}
	return s, true
}

// checkCachePath records the stamp of the file generation last known good.
func checkCachePath(path string) string { return path + ".checked" }

// stampFormat is the cache file's one line; a line in another format (an
// older rewind's "size mtime") matches no stamp, so the file is checked.
const stampFormat = "v2 %d %d %d %d %d\n"

func readCheckCache(path string) stamp {
	var s stamp
	data, err := os.ReadFile(checkCachePath(path))
	if err == nil {
		if _, err := fmt.Sscanf(string(data), stampFormat, &s.size, &s.mtimeNs, &s.ctimeNs, &s.inode, &s.counter); err != nil {
			return stamp{}
		}
	}
	return s
}

// stampCheckCache is called after each complete WAL checkpoint and by
// Close once every connection is closed (the last one checkpoints the WAL
// into the file). Only a process that ran quick_check on the file itself
// (or created it) stamps: it checked the file and wrote to it only through
// SQLite, so the new generation is as good as the one checked, and the
// next start need not check it again. A process whose verdict came from
// the cache never stamps, so a stamp never outlives the check it stands
// for by more than one run: damage the stamp cannot see (a disk's own
// errors) is found by the next start after a writing run.
func (db *DB) stampCheckCache() {
	if db.check == nil || !(db.check.ran || db.check.created) {
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
		_ = writeCheckCache(db.path, s)
	}
}

// writeCheckCache records s as the stamp of path's generation known good.
func writeCheckCache(path string, s stamp) error {
	return os.WriteFile(checkCachePath(path), fmt.Appendf(nil, stampFormat, s.size, s.mtimeNs, s.ctimeNs, s.inode, s.counter), 0o600)
}

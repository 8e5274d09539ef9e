package store

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mattn/go-sqlite3"
)

// ApplicationID marks a SQLite file as a rewind database ("RWND").
const ApplicationID = 0x52574e44

//go:embed migrations/*.sql
var migrationFS embed.FS

// migration is one numbered SQL file of migrations/.
type migration struct {
	version int
	name    string
	sql     string
}

// migrationSteps are the Go parts of migrations: before runs, when the
// database is at the version below, ahead of the migration's transaction
// (work done in steps of their own: it must be resumable); inTx runs in
// that transaction before its SQL.
var migrationSteps = map[int]struct {
	before func(*DB, context.Context) error
	inTx   func(context.Context, *sql.Tx) error
}{
	13: {before: (*DB).copySearchIndex, inTx: copySearchTail},
	14: {before: (*DB).copyContext, inTx: copyContextTail},
}

// DB is an open rewind database: one writer connection (every write
// transaction is BEGIN IMMEDIATE) beside a pool of readers, and a goroutine
// that checkpoints the WAL.
type DB struct {
	path   string
	writer *sql.DB
	reader *sql.DB
	closed chan struct{}
	ckpt   *checkpointer
	stmts  lazyStmts
	// held maps the id of each session this DB holds the lease of to the
	// lease's token (checkLease).
	held sync.Map
	// check is the PRAGMA quick_check verdict; writes wait for it.
	check *integrity
	// dv counts the write transactions DataVersion reports.
	dv changeWatch
	// busy counts the writes now waiting for another process's write lock
	// (RetryBusy, lease renewal); busySince is when the first began (Busy).
	busy      atomic.Int32
	busySince atomic.Int64
	// busyTimeout bounds one write's wait for another process's lock.
	busyTimeout time.Duration
	// keeper commits interrupted steps saved to recovery files (salvage.go).
	keeper keeper
	// leaseEvery is how often a lease of this DB is renewed; leaseStale is
	// how old a heartbeat this DB still takes for a live holder.
	leaseEvery, leaseStale time.Duration
	// importChunk and importTime bound an import transaction
	// (ImportSessions); importGap spaces them.
	importChunk int
	importTime  time.Duration
	importGap   importGap
	// afterImportTx: Options.AfterImportTx.
	afterImportTx func()
}

// WAL checkpoints. SQLite's automatic checkpoint (every 1000 WAL pages) runs
// inside the commit that crosses the threshold: one append in ~80 paid 3 ms
// for it (BENCHMARKS.md). The writer connection's threshold is raised to
// writerAutoCheckpoint pages, a backstop only, and a goroutine owned by the
// DB runs PRAGMA wal_checkpoint(PASSIVE) on a reader connection after
// checkpointCommits write commits, or checkpointDelay after the first commit
// not yet checkpointed. A passive checkpoint takes no write lock, so appends
// go on while it copies pages. Durability is unchanged: a commit is durable
// once in the WAL (synchronous NORMAL, as before); only who copies WAL pages
// into the database file, and when, changed.
const writerAutoCheckpoint = 10000

// Variables so that tests can change them before Open.
var (
	checkpointCommits int64 = 64
	checkpointDelay         = time.Second
)

// checkpointer counts the writer connection's commits (a commit hook, so
// lease heartbeats count too) and wakes its goroutine.
type checkpointer struct {
	commits int64 // checkpoint after this many commits
	delay   time.Duration
	pending atomic.Int64
	wake    chan struct{}
	stop    context.CancelFunc
	done    sync.WaitGroup
	// last is the last checkpoint's outcome, for tests: one value, so a
	// count is never read beside another run's outcome.
	last atomic.Pointer[checkpointRun]
	// checkpointed runs after each complete checkpoint (the DB re-stamps
	// its integrity cache: the file changed, but only through SQLite).
	checkpointed func()
}

// checkpointRun is the outcome of the nth checkpoint: WAL frames copied
// into the database file, and whether that was all of them.
type checkpointRun struct {
	n        int64
	copied   int64
	complete bool
}

// lastRun is the last checkpoint's outcome (n 0: none ran yet).
func (c *checkpointer) lastRun() checkpointRun {
	if r := c.last.Load(); r != nil {
		return *r
	}
	return checkpointRun{}
}

func newCheckpointer() *checkpointer {
	return &checkpointer{commits: checkpointCommits, delay: checkpointDelay, wake: make(chan struct{}, 1)}
}

// committed is the writer's commit hook: it must not call SQLite. It wakes
// the goroutine only to arm the timer (first pending commit) and at the
// threshold, not on every commit.
func (c *checkpointer) committed() int {
	if n := c.pending.Add(1); n != 1 && n < c.commits {
		return 0
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
	return 0 // 0: let the commit proceed
}

// start runs the checkpointing goroutine until Close.
func (c *checkpointer) start(reader *sql.DB) {
	ctx, cancel := context.WithCancel(context.Background())
	c.stop = cancel
	c.done.Add(1)
	go func() {
		defer c.done.Done()
		var timer <-chan time.Time
		for {
			select {
			case <-ctx.Done():
				return
			case <-c.wake:
				if c.pending.Load() < c.commits {
					if timer == nil {
						timer = time.After(c.delay)
					}
					continue
				}
			case <-timer:
			}
			timer = nil
			c.pending.Store(0)
			// A passive checkpoint copies only what no reader still needs;
			// an error (SQLITE_BUSY while another process checkpoints, Close)
			// or a partial copy is tried again after the delay.
			var busy, walFrames, copied int64
			err := reader.QueryRowContext(ctx, "PRAGMA wal_checkpoint(PASSIVE)").Scan(&busy, &walFrames, &copied)
			c.last.Store(&checkpointRun{n: c.lastRun().n + 1, copied: copied, complete: err == nil && busy == 0 && copied >= walFrames})
			if err == nil && c.checkpointed != nil && busy == 0 && copied >= walFrames {
				c.checkpointed()
			}
			if err != nil || busy != 0 || copied < walFrames {
				timer = time.After(c.delay)
			}
		}
	}()
}

// close stops the goroutine and waits for it.
func (c *checkpointer) close() {
	if c != nil && c.stop != nil {
		c.stop()
		c.done.Wait()
	}
}

// writerConnector opens the writer's connections: raised
// wal_autocheckpoint, and the checkpointer's commit hook.
type writerConnector struct {
	dsn string
	drv *sqlite3.SQLiteDriver
}

func newWriterConnector(dsn string, c *checkpointer) *writerConnector {
	return &writerConnector{dsn: dsn, drv: &sqlite3.SQLiteDriver{ConnectHook: func(conn *sqlite3.SQLiteConn) error {
		if _, err := conn.Exec(fmt.Sprintf("PRAGMA wal_autocheckpoint = %d", writerAutoCheckpoint), nil); err != nil {
			return err
		}
		conn.RegisterCommitHook(c.committed)
		return nil
	}}}
}

func (w *writerConnector) Connect(context.Context) (driver.Conn, error) { return w.drv.Open(w.dsn) }
func (w *writerConnector) Driver() driver.Driver                        { return w.drv }

// dsn is the only place the connection string is built. Writers use
// _txlock=immediate; readers use deferred transactions so a read snapshot
// never takes the write lock. No connection has SQLite's mutex (see
// unlockedConnections). Each connection keeps its last 128 prepared
// statements (the driver's _stmt_cache_size): preparing every query again
// was a fifth of the CPU of a revert's reads and writes.
func dsn(path string, txlock string) string {
	return dsnBusy(path, txlock, DefaultBusyTimeout)
}

func dsnBusy(path string, txlock string, busy time.Duration) string {
	return "file:" + escapePath(path) +
		"?_journal_mode=WAL&_busy_timeout=" + strconv.FormatInt(busy.Milliseconds(), 10) +
		"&_foreign_keys=on&_txlock=" + txlock + "&_synchronous=NORMAL&_stmt_cache_size=128&_mutex=no"
}

// escapePath keeps characters SQLite's URI parser treats specially literal.
func escapePath(p string) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return r.Replace(p)
}

// DefaultBusyTimeout is how long one SQLite call waits for a lock another
// connection holds before it fails with ErrBusy.
const DefaultBusyTimeout = 5 * time.Second

// lockSlice is how long the writer connection waits for the lock inside
// SQLite at a time (its busy_timeout): SQLite's wait cannot be interrupted,
// so WriteTx waits in slices and looks at its context between them.
var lockSlice = 50 * time.Millisecond

// Options tune Open; the zero value is the default.
type Options struct {
	// BusyTimeout replaces DefaultBusyTimeout (tests shorten it, so that a
	// lock held elsewhere outlasts it quickly).
	BusyTimeout time.Duration
	// LeaseHeartbeat replaces how often a lease is renewed (2 s; tests
	// shorten it).
	LeaseHeartbeat time.Duration
	// LeaseStale replaces how old a holder's last heartbeat may be before
	// its lease counts as free (10 s): tests whose own lease must stay
	// live however late a loaded machine renews it lengthen it.
	LeaseStale time.Duration
	// BeforeUpgrade, when set, is called before Open migrates a database
	// an earlier rewind wrote (schema from, 0 < from < to), so that the
	// caller can say so: on a large history it takes a while. Open reads
	// the version on its probe's connection (a separate look opened one
	// more connection on every start).
	BeforeUpgrade func(from, to int)
	// AfterImportTx, when set, is called after each transaction of a
	// session imported in pieces commits, before the next begins (tests:
	// a kill -9 of an import half-way, at a known point).
	AfterImportTx func()
}

// Open opens (creating if needed) the database at path and migrates it to
// the current schema. A file that is not a rewind database (ErrNotDatabase) or
// was written by a newer rewind (ErrNewerSchema) is refused and left as is.
func Open(ctx context.Context, path string) (*DB, error) {
	return OpenWith(ctx, path, Options{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, path string, o Options) (*DB, error) {
	busy := o.BusyTimeout
	if busy <= 0 {
		busy = DefaultBusyTimeout
	}
	if err := enableQPSG(); err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	migs, err := loadMigrations()
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := prepareFile(path); err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	version, err := probe(ctx, path, len(migs))
	if err != nil {
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if o.BeforeUpgrade != nil && version > 0 && version < len(migs) {
		o.BeforeUpgrade(version, len(migs))
	}
	ckpt := newCheckpointer()
	// The writer waits for a lock in short slices (lockSlice), between which
	// WriteTx sees an interrupt; busy bounds the whole wait.
	writer := sql.OpenDB(newWriterConnector(dsnBusy(path, "immediate", min(busy, lockSlice)), ckpt))
	writer.SetMaxOpenConns(1)
	writer.SetConnMaxIdleTime(0)
	reader, err := sql.Open("sqlite3", dsnBusy(path, "deferred", busy))
	if err != nil {
		writer.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	reader.SetMaxOpenConns(4)
	reader.SetMaxIdleConns(4)
	db := &DB{path: path, writer: writer, reader: reader, closed: make(chan struct{}), ckpt: ckpt, busyTimeout: busy,
		leaseEvery: leaseHeartbeat, leaseStale: leaseStale, importChunk: importTxRecords, importTime: importTxTime,
		afterImportTx: o.AfterImportTx}
	if o.LeaseHeartbeat > 0 {
		db.leaseEvery = o.LeaseHeartbeat
	}
	if o.LeaseStale > 0 {
		db.leaseStale = o.LeaseStale
	}
	ckpt.checkpointed = db.stampCheckCache
	ckpt.start(reader)
	db.startIntegrityCheck(ctx)
	if err := db.migrate(ctx, migs, version == 0); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	if err := db.reclaim(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("store: open %s: %w", path, err)
	}
	for _, suffix := range []string{"", "-wal", "-shm"} {
		if err := chmodPrivate(path + suffix); err != nil && !errors.Is(err, os.ErrNotExist) {
			db.Close()
			return nil, fmt.Errorf("store: open %s: %w", path, err)
		}
	}
	return db, nil
}

// chmodPrivate makes path 0600 unless it is already: a chmod moves the
// inode's ctime, which the integrity stamp holds.
func chmodPrivate(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if st.Mode().Perm() == 0o600 {
		return nil
	}
	return os.Chmod(path, 0o600)
}

// prepareFile creates a missing database file with mode 0600 and refuses an
// existing non-empty file whose header is not SQLite's, without writing.
func prepareFile(path string) error {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		return f.Close()
	}
	if !errors.Is(err, os.ErrExist) {
		return err
	}
	f, err = os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%w: is a directory", ErrNotDatabase)
	}
	if st.Size() == 0 {
		return nil
	}
	head := make([]byte, 100)
	if _, err := io.ReadFull(f, head); err != nil {
		return fmt.Errorf("%w: too short for a SQLite file", ErrNotDatabase)
	}
	if !bytes.Equal(head[:16], []byte("SQLite format 3\x00")) {
		return fmt.Errorf("%w: not a SQLite file", ErrNotDatabase)
	}
	return nil
}

// probe reads the schema marker through a read-only connection (so a WAL
// not yet checkpointed is seen), decides whether we may write the file and
// returns its schema version (0 for a new file).
func probe(ctx context.Context, path string, latest int) (int, error) {
	ro, err := sql.Open("sqlite3", "file:"+escapePath(path)+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		return 0, err
	}
	defer ro.Close()
	var appID, version, objects int
	err = ro.QueryRowContext(ctx, "PRAGMA application_id").Scan(&appID)
	if err == nil {
		err = ro.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version)
	}
	if err == nil {
		err = ro.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&objects)
	}
	if err != nil {
		var se sqlite3.Error
		if errors.As(err, &se) && se.Code == sqlite3.ErrCorrupt {
			// prepareFile saw SQLite's header: a database, but damaged.
			return 0, &DamagedError{Path: path, Detail: oneLineErr(err), Unopenable: true}
		}
		if errors.As(err, &se) && se.Code == sqlite3.ErrNotADB {
			return 0, fmt.Errorf("%w: %v", ErrNotDatabase, err)
		}
		return 0, err
	}
	switch {
	case appID == 0 && version == 0 && objects == 0:
		return 0, nil // new, empty database
	case appID != ApplicationID:
		return 0, fmt.Errorf("%w: SQLite file without rewind's application id", ErrNotDatabase)
	case version > latest:
		return 0, fmt.Errorf("%w: schema version %d, this rewind knows up to %d", ErrNewerSchema, version, latest)
	}
	return version, nil
}

func loadMigrations() ([]migration, error) {
	entries, err := migrationFS.ReadDir("migrations")
	if err != nil {
		return nil, err
	}
	var migs []migration
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".sql") {
			continue
		}
		num, _, ok := strings.Cut(name, "_")
		if !ok {
			return nil, fmt.Errorf("migration %s: want NNNN_name.sql", name)
		}
		v, err := strconv.Atoi(num)
		if err != nil {
			return nil, fmt.Errorf("migration %s: want NNNN_name.sql", name)
		}
		body, err := migrationFS.ReadFile("migrations/" + name)
		if err != nil {
			return nil, err
		}
		migs = append(migs, migration{version: v, name: name, sql: string(body)})
	}
	sort.Slice(migs, func(i, j int) bool { return migs[i].version < migs[j].version })
	for i, m := range migs {
		if m.version != i+1 {
			return nil, fmt.Errorf("migration %s: expected version %d", m.name, i+1)
		}
	}
	return migs, nil
}

// SchemaVersion is the schema version this build migrates to.
func SchemaVersion() int {
	migs, err := loadMigrations()
	if err != nil {
		return 0
	}
	return len(migs)
}

// migrate applies the missing migrations, each in its own transaction that
// also sets user_version; a concurrent opener waits on BEGIN IMMEDIATE and
// then sees the work done. A new database gets schema.sql instead, then
// any migration newer than it.
func (db *DB) migrate(ctx context.Context, migs []migration, fresh bool) error {
	if fresh {
		if err := db.createFrom(ctx, schemaSQL); err != nil {
			return err
		}
	}
	return db.migrateTo(ctx, migs, len(migs))
}

func (db *DB) migrateTo(ctx context.Context, migs []migration, target int) error {
	// An up-to-date database needs no write lock: read-only commands work
	// while another process is writing.
	var current int
	if err := db.reader.QueryRowContext(ctx, "PRAGMA user_version").Scan(&current); err != nil {
		return fmt.Errorf("read schema version: %w", err)
	}
	if current >= target && current <= len(migs) {
		return nil
	}
	for _, m := range migs[:target] {
		if step := migrationSteps[m.version]; step.before != nil {
			var v int
			if err := db.reader.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
				return fmt.Errorf("read schema version: %w", err)
			}
			if v == m.version-1 {
				if err := step.before(db, ctx); err != nil {
					return fmt.Errorf("migration %s: %w", m.name, err)
				}
			}
		}
		err := db.WriteTx(ctx, func(tx *sql.Tx) error {
			var v int
			if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
				return err
			}
			if v > len(migs) {
				return fmt.Errorf("%w: schema version %d, this rewind knows up to %d", ErrNewerSchema, v, len(migs))
			}
			if v >= m.version {
				return nil
			}
			if v != m.version-1 {
				return fmt.Errorf("schema version %d cannot take migration %s", v, m.name)
			}
			if step := migrationSteps[m.version]; step.inTx != nil {
				if err := step.inTx(ctx, tx); err != nil {
					return err
				}
			}
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return err
			}
			if m.version == 1 {
				if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", ApplicationID)); err != nil {
					return err
				}
			}
			_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.version))
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	return nil
}

// Close stops lease heartbeats and the checkpointer and closes both pools
// (closing the last connection checkpoints the WAL).
func (db *DB) Close() error {
	select {
	case <-db.closed:
		return nil
	default:
		close(db.closed)
	}
	if db.check != nil { // the check goroutine reads through db.reader
		db.check.cancel()
		<-db.check.done
	}
	db.keeper.close()
	db.ckpt.close()
	db.stmts.close()
	err := db.reader.Close()
	if werr := db.writer.Close(); err == nil {
		err = werr
	}
	if err == nil {
		db.stampCheckCache()
	}
	return err
}

// Path is the database file.
func (db *DB) Path() string { return db.path }

// Reader is the pool for read-only queries (deferred transactions).
func (db *DB) Reader() *sql.DB { return db.reader }

// WriteTx runs fn in one BEGIN IMMEDIATE transaction on the single writer
// connection, committing if fn returns nil and rolling back otherwise.
//
// Nothing is written before the integrity check passed; a damaged database
// refuses every write with a *DamagedError.
//
// While another process holds the write lock, WriteTx waits for it up to
// the busy timeout (then ErrBusy), in slices between which it gives up as
// soon as ctx ends, or the context LockWait was given, or the DB closes.
func (db *DB) WriteTx(ctx context.Context, fn func(*sql.Tx) error) error {
	if err := db.waitChecked(ctx); err != nil {
		return err
	}
	var tx *sql.Tx
	err := db.whileBusy(ctx, func() (err error) {
		tx, err = db.writer.BeginTx(ctx, nil)
		return err
	})
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return markBusy(endedBy(ctx, err))
	}
	if err := tx.Commit(); err != nil {
		return markBusy(endedBy(ctx, err))
	}
	db.dv.writes.Add(1)
	return nil
}

// endedBy names ctx's end as the cause of err when ctx has ended: database/sql
// closes a cancelled transaction's statements, and the driver's "statement
// is closed" hid the interrupt from callers that check for it.
func endedBy(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("%w (%v)", cerr, err)
	}
	return err
}

// readTx runs fn in one deferred (snapshot) transaction on the reader pool.
//
// It is BEGIN and ROLLBACK on a pooled connection, not a *sql.Tx: a Tx
// starts a goroutine to watch its context, and another for each query in
// it. A connection whose ROLLBACK fails is discarded, never returned to
// the pool inside its snapshot.
func (db *DB) readTx(ctx context.Context, fn func(querier) error) error {
	conn, err := db.reader.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN"); err != nil {
		return err
	}
	defer func() {
		if _, err := conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK"); err != nil {
			_ = conn.Raw(func(any) error { return driver.ErrBadConn })
		}
	}()
	return fn(conn)
}

func nowMS() int64 { return time.Now().UnixMilli() }

func fromMS(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

func toMS(t time.Time) int64 {
	if t.IsZero() {
		return nowMS()
	}
	return t.UnixMilli()
}

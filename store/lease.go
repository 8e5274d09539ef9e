package store

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
)

// Lease timing; variables so tests can shorten them.
var (
	leaseHeartbeat = 2 * time.Second
	leaseStale     = 10 * time.Second
)

// Lease is the right to write one session. A goroutine refreshes its
// heartbeat until Release (or until the DB is closed).
type Lease struct {
	db        *DB
	sessionID string
	token     string
	stop      chan struct{}
	done      chan struct{}
	once      sync.Once
	mu        sync.Mutex
	lost      error
}

var hostname = func() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}()

// PIDAlive reports whether a process with this pid exists on this host.
func PIDAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

type leaseRow struct {
	pid       int
	host      string
	heartbeat int64
}

// live reports whether the lease's holder is still running: a heartbeat
// fresher than stale, and on this host a process that exists.
func (r leaseRow) live(now int64, stale time.Duration) bool {
	if now-r.heartbeat > stale.Milliseconds() {
		return false
	}
	if r.host == hostname {
		return PIDAlive(r.pid)
	}
	return true
}

func loadLease(ctx context.Context, q querier, sessionID string) (leaseRow, bool, error) {
	var r leaseRow
	err := q.QueryRowContext(ctx, `SELECT pid, hostname, heartbeat_at FROM leases WHERE session_id = ?`, sessionID).
		Scan(&r.pid, &r.host, &r.heartbeat)
	if errors.Is(err, sql.ErrNoRows) {
		return leaseRow{}, false, nil
	}
	return r, err == nil, err
}

// AcquireLease makes this process the session's writer. A live holder gives
// ErrLeaseHeld (naming its pid); a holder whose process is gone or whose
// heartbeat is stale is taken over at once.
func (db *DB) AcquireLease(ctx context.Context, sessionID string) (*Lease, error) {
	return db.acquireLease(ctx, sessionID, os.Getpid())
}

func (db *DB) acquireLease(ctx context.Context, sessionID string, pid int) (*Lease, error) {
	tok := make([]byte, 16)
	if _, err := rand.Read(tok); err != nil {
		return nil, fmt.Errorf("store: lease %s: %w", sessionID, err)
	}
	l := &Lease{db: db, token: hex.EncodeToString(tok), stop: make(chan struct{}), done: make(chan struct{})}
	err := db.WriteTx(ctx, func(tx *sql.Tx) error {
		st, err := loadState(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		l.sessionID = st.id
		now := nowMS()
		cur, ok, err := loadLease(ctx, tx, st.id)
		if err != nil {
			return err
		}
		if ok && cur.live(now, db.leaseStale) {
			return fmt.Errorf("%w (pid %d on %s)", ErrLeaseHeld, cur.pid, cur.host)
		}
		_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO leases (session_id, pid, hostname, token, acquired_at, heartbeat_at)
			VALUES (?, ?, ?, ?, ?, ?)`, st.id, pid, hostname, l.token, now, now)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: lease %s: %w", sessionID, err)
	}
	db.held.Store(l.sessionID, l.token)
	go l.heartbeat(db.leaseEvery)
	return l, nil
}

// heartbeat renews the lease every period until Release, Close, or the
// lease is lost. Only another process taking the session over loses it: a
// renewal that fails otherwise (above all ErrBusy, another process holding
// the write lock past the busy timeout, as a long import did) keeps the
// lease and is tried again, sooner (from busyBackoff, doubling up to
// every), and Busy reports the wait meanwhile. A holder whose heartbeat
// went stale that way may be taken over by a process that gets the lock
// first; the next renewal then finds that out.
func (l *Lease) heartbeat(every time.Duration) {
	defer close(l.done)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		select {
		case <-l.stop:
		case <-l.db.closed:
		case <-ctx.Done():
		}
		cancel()
	}()
	busy := false
	defer func() {
		if busy {
			l.db.endBusy()
		}
	}()
	t := time.NewTimer(every)
	defer t.Stop()
	wait := every
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		err := l.renew(ctx)
		if nowBusy := errors.Is(err, ErrBusy); nowBusy != busy {
			if nowBusy {
				l.db.beginBusy()
			} else {
				l.db.endBusy()
			}
			busy = nowBusy
		}
		switch {
		case err == nil:
			wait = every
		case errors.Is(err, ErrLeaseLost):
			l.mu.Lock()
			l.lost = err
			l.mu.Unlock()
			return
		case ctx.Err() != nil:
			return
		case wait == every:
			wait = min(busyBackoff, every)
		default:
			wait = min(2*wait, every)
		}
		t.Reset(wait)
	}
}

// renew refreshes the heartbeat: ErrLeaseLost when the row no longer
// carries this lease's token (another process took the session over, or
// released it after taking it), ErrBusy when the write lock is held
// elsewhere.
func (l *Lease) renew(ctx context.Context) error {
	var res sql.Result
	err := l.db.whileBusy(ctx, func() (err error) {
		res, err = l.db.writer.ExecContext(ctx, `UPDATE leases SET heartbeat_at = ? WHERE session_id = ? AND token = ?`,
			nowMS(), l.sessionID, l.token)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: renew lease %s: %w", l.sessionID, markBusy(err))
	}
	if n, err := res.RowsAffected(); err != nil || n > 0 {
		return err
	}
	cur, ok, err := loadLease(ctx, l.db.reader, l.sessionID)
	switch {
	case err != nil:
		return fmt.Errorf("store: renew lease %s: %w", l.sessionID, markBusy(err))
	case ok:
		return fmt.Errorf("%w: pid %d on %s took session %s over", ErrLeaseLost, cur.pid, cur.host, l.sessionID)
	}
	return fmt.Errorf("%w: another process took session %s over and gave it up", ErrLeaseLost, l.sessionID)
}

// Err reports why the lease was lost (an ErrLeaseLost: another process
// took the session over), or nil. A database busy past the busy timeout
// does not lose it: renewal goes on (DB.Busy reports the wait).
func (l *Lease) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.lost
}

// SessionID is the leased session.
func (l *Lease) SessionID() string { return l.sessionID }

// releaseWait bounds how long Release waits for a write lock another
// process holds: quitting must not wait out a long import. A lease left
// behind is no one's: its process is gone (or, after a switch, its
// heartbeat stopped, stale within the DB's leaseStale).
var releaseWait = 300 * time.Millisecond

// Release stops the heartbeat and gives the session up.
func (l *Lease) Release(ctx context.Context) error {
	l.once.Do(func() { close(l.stop) })
	l.db.held.CompareAndDelete(l.sessionID, l.token)
	<-l.done
	select {
	case <-l.db.closed:
		return nil
	default:
	}
	wait, cancel := context.WithTimeout(ctx, releaseWait)
	defer cancel()
	ctx = LockWait(wait)
	err := l.db.WriteTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM leases WHERE session_id = ? AND token = ?`, l.sessionID, l.token)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: release lease %s: %w", l.sessionID, err)
	}
	return nil
}

// checkLease ties a write to the lease: when this DB holds the lease of
// sessionID, the write transaction goes on only while the lease row still
// carries its token. A process paused (Ctrl-Z, SIGSTOP) past the stale
// limit may have been taken over; its heartbeat would notice only later,
// so the check is in the transaction itself, under the write lock.
func (db *DB) checkLease(ctx context.Context, q querier, sessionID string) error {
	held, ok := db.held.Load(sessionID)
	if !ok {
		return nil
	}
	var token string
	err := q.QueryRowContext(ctx, `SELECT token FROM leases WHERE session_id = ?`, sessionID).Scan(&token)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && token != held.(string)) {
		return fmt.Errorf("%w: another process took over session %s; nothing was written", ErrLeaseLost, sessionID)
	}
	return err
}

// writeState loads the session's state for a write transaction, checking
// the lease (checkLease).
func (db *DB) writeState(ctx context.Context, q querier, id string) (sessionState, error) {
	st, err := loadState(ctx, q, id)
	if err != nil {
		return st, err
	}
	return st, db.checkLease(ctx, q, st.id)
}

// LiveLease reports the pid holding the session's lease and whether that
// holder is alive (pid 0 when there is no lease).
func (db *DB) LiveLease(ctx context.Context, sessionID string) (int, bool, error) {
	full, err := resolveID(ctx, db.reader, sessionID)
	if err != nil {
		return 0, false, fmt.Errorf("store: lease of %s: %w", sessionID, err)
	}
	r, ok, err := loadLease(ctx, db.reader, full)
	if err != nil {
		return 0, false, fmt.Errorf("store: lease of %s: %w", sessionID, err)
	}
	if !ok {
		return 0, false, nil
	}
	return r.pid, r.live(nowMS(), db.leaseStale), nil
}

// NewestLiveSession is the most recently updated session whose lease holder
// is alive (for `rewind watch` without an id).
func (db *DB) NewestLiveSession(ctx context.Context) (Session, error) {
	rows, err := db.reader.QueryContext(ctx, `SELECT l.session_id, l.pid, l.hostname, l.heartbeat_at
		FROM leases l JOIN sessions s ON s.id = l.session_id
		WHERE l.heartbeat_at >= ? AND s.deleted_at IS NULL
		ORDER BY s.updated_at DESC, s.id DESC`, nowMS()-db.leaseStale.Milliseconds())
	if err != nil {
		return Session{}, fmt.Errorf("store: newest live session: %w", err)
	}
	var found string
	now := nowMS()
	for rows.Next() {
		var id string
		var r leaseRow
		if err := rows.Scan(&id, &r.pid, &r.host, &r.heartbeat); err != nil {
			rows.Close()
			return Session{}, fmt.Errorf("store: newest live session: %w", err)
		}
		if r.live(now, db.leaseStale) {
			found = id
			break
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return Session{}, fmt.Errorf("store: newest live session: %w", err)
	}
	if found == "" {
		return Session{}, fmt.Errorf("store: no session is running: %w", ErrSessionNotFound)
	}
	s, err := getSession(ctx, db.reader, found)
	if err != nil {
		return Session{}, fmt.Errorf("store: newest live session: %w", err)
	}
	return s, nil
}

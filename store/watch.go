package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"time"
)

// Version is a cheap fingerprint of a session for watchers: it changes on
// every append and every new generation.
type Version struct {
	MaxSeq      int64
	CurrentGen  int
	Generations int
	UpdatedAt   time.Time
}

// SessionVersion reads the session's Version from its row alone (last_seq is
// kept by every append), so polling it costs one primary-key lookup.
func (db *DB) SessionVersion(ctx context.Context, sessionID string) (Version, error) {
	var v Version
	var updated int64
	err := db.reader.QueryRowContext(ctx, `SELECT last_seq, current_gen, updated_at FROM sessions WHERE id = ?`, sessionID).
		Scan(&v.MaxSeq, &v.CurrentGen, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		full, rerr := resolveID(ctx, db.reader, sessionID)
		if rerr != nil {
			return Version{}, fmt.Errorf("store: version of %s: %w", sessionID, rerr)
		}
		return db.SessionVersion(ctx, full)
	}
	if err != nil {
		return Version{}, fmt.Errorf("store: version of %s: %w", sessionID, err)
	}
	v.Generations = v.CurrentGen + 1
	v.UpdatedAt = fromMS(updated)
	return v, nil
}

// changeWatch holds the one reader connection DataVersion asks: SQLite's
// data_version is per connection, so it must be the same one every time.
type changeWatch struct {
	mu   sync.Mutex
	conn *sql.Conn
}

// DataVersion returns a number that changes whenever anything was committed
// to the database since the previous call — by this DB's writer or by
// another process — and stays put otherwise. It touches no table (PRAGMA
// data_version), so an idle poller can ask it often and skip every real
// query while nothing changed.
func (db *DB) DataVersion(ctx context.Context) (int64, error) {
	db.dv.mu.Lock()
	defer db.dv.mu.Unlock()
	if db.dv.conn == nil {
		conn, err := db.reader.Conn(ctx)
		if err != nil {
			return 0, fmt.Errorf("store: data version: %w", err)
		}
		db.dv.conn = conn
	}
	var v int64
	if err := db.dv.conn.QueryRowContext(ctx, "PRAGMA data_version").Scan(&v); err != nil {
		db.dv.conn.Close()
		db.dv.conn = nil
		return 0, fmt.Errorf("store: data version: %w", err)
	}
	return v, nil
}

// close gives the held connection back before the reader pool closes.
func (w *changeWatch) close() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.conn != nil {
		w.conn.Close()
		w.conn = nil
	}
}

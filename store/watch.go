package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
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

package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Rewind is one entry of a session's rewind log: what a revert, restore,
// undo or D-Mail file rewind replaced, so it can be undone. The log belongs
// to app/timetravel; the store only keeps it.
type Rewind struct {
	ID        int64
	SessionID string
	Op        string // revert, restore, undo, backtrack
	BeforeGen int    // the generation current before the rewind
	AfterGen  int    // the generation current after it (BeforeGen: the conversation did not move)
	FilesUndo int64  // the file position whose state the rewind replaced; 0: no file changed
	What      string
	CreatedAt time.Time
}

// ErrNoRewind: the session has no rewind to undo.
var ErrNoRewind = errors.New("no rewind recorded")

// RecordRewind appends r to the session's rewind log and returns its id.
func (db *DB) RecordRewind(ctx context.Context, r Rewind) (int64, error) {
	var id int64
	err := db.WriteTx(ctx, func(tx *sql.Tx) error {
		st, err := loadState(ctx, tx, r.SessionID)
		if err != nil {
			return err
		}
		var undo sql.NullInt64
		if r.FilesUndo > 0 {
			undo = sql.NullInt64{Int64: r.FilesUndo, Valid: true}
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO rewinds (session_id, op, before_gen, after_gen, files_undo, what, created_at)
			VALUES (?, ?, ?, ?, ?, ?, ?)`, st.id, r.Op, r.BeforeGen, r.AfterGen, undo, r.What, nowMS())
		if err != nil {
			return err
		}
		id, err = res.LastInsertId()
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: record rewind of %s: %w", r.SessionID, err)
	}
	return id, nil
}

// LastRewind returns the session's newest rewind (id 0) or rewind id;
// ErrNoRewind when there is none.
func (db *DB) LastRewind(ctx context.Context, sessionID string, id int64) (Rewind, error) {
	var r Rewind
	err := db.readTx(ctx, func(tx querier) error {
		st, err := loadState(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		q := `SELECT id, session_id, op, before_gen, after_gen, files_undo, what, created_at FROM rewinds WHERE session_id = ?`
		args := []any{st.id}
		if id > 0 {
			q += ` AND id = ?`
			args = append(args, id)
		}
		var undo sql.NullInt64
		var created int64
		err = tx.QueryRowContext(ctx, q+` ORDER BY id DESC LIMIT 1`, args...).
			Scan(&r.ID, &r.SessionID, &r.Op, &r.BeforeGen, &r.AfterGen, &undo, &r.What, &created)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNoRewind
		}
		r.FilesUndo, r.CreatedAt = undo.Int64, fromMS(created)
		return err
	})
	if err != nil {
		return Rewind{}, fmt.Errorf("store: rewind of %s: %w", sessionID, err)
	}
	return r, nil
}

// Rewinds returns the session's rewind log, oldest first.
func (db *DB) Rewinds(ctx context.Context, sessionID string) ([]Rewind, error) {
	var out []Rewind
	err := db.readTx(ctx, func(tx querier) error {
		st, err := loadState(ctx, tx, sessionID)
		if err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, `SELECT id, session_id, op, before_gen, after_gen, files_undo, what, created_at
			FROM rewinds WHERE session_id = ? ORDER BY id`, st.id)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r Rewind
			var undo sql.NullInt64
			var created int64
			if err := rows.Scan(&r.ID, &r.SessionID, &r.Op, &r.BeforeGen, &r.AfterGen, &undo, &r.What, &created); err != nil {
				return err
			}
			r.FilesUndo, r.CreatedAt = undo.Int64, fromMS(created)
			out = append(out, r)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: rewinds of %s: %w", sessionID, err)
	}
	return out, nil
}

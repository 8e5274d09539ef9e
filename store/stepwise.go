package store

import (
	"context"
	"database/sql"
	"fmt"
)

// stepwiseCopy is the first part of a migration that copies a large table
// (13: the search index; 14: the context table): its rows are copied
// lowest id first, in transactions of copyBatchRows rows that each record
// how far they got in a progress table (low: where the copy started,
// done: the last id copied), so a migration killed half-way goes on from
// there at the next open, and other writers get the lock between two.
// Rows written meanwhile above done or below low (an older rewind's append
// or import) are the migration's own transaction's to copy (its inTx
// step), which also swaps the tables.
type stepwiseCopy struct {
	migration int    // the migration it is part of: it runs at schema migration-1
	progress  string // the progress table (low, done)
	lowest    string // the lowest id of the rows to copy (no row: nothing to copy)
	// prepare creates what a batch writes into (IF NOT EXISTS: every batch
	// runs it).
	prepare func(ctx context.Context, tx *sql.Tx) error
	// copy copies at most limit rows with ids above after, lowest first,
	// and returns the last id copied and how many.
	copy func(ctx context.Context, tx *sql.Tx, after int64, limit int) (last int64, n int, err error)
}

// copyBatchRows is how many rows one transaction of a stepwise copy
// copies (tests make it small).
var copyBatchRows = 20000

// afterCopyBatch, when set by tests, runs after each committed batch.
var afterCopyBatch func(migration int, copied int64)

// copyStepwise runs c to its end (or until another process finished the
// migration).
func (db *DB) copyStepwise(ctx context.Context, c stepwiseCopy) error {
	var low int64
	err := db.reader.QueryRowContext(ctx, c.lowest).Scan(&low)
	if err == sql.ErrNoRows {
		return nil // nothing to copy (a new database): the migration's transaction does it all
	}
	if err != nil {
		return fmt.Errorf("migration %d: %w", c.migration, err)
	}
	for {
		var n int
		var done bool
		err := db.WriteTx(ctx, func(tx *sql.Tx) error {
			var v int
			if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
				return err
			}
			if v != c.migration-1 {
				done = true // another process finished it
				return nil
			}
			if err := c.prepare(ctx, tx); err != nil {
				return err
			}
			if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS `+c.progress+` (low INTEGER NOT NULL, done INTEGER NOT NULL)`); err != nil {
				return err
			}
			var low, upTo sql.NullInt64
			if err := tx.QueryRowContext(ctx, `SELECT low, done FROM `+c.progress).Scan(&low, &upTo); err != nil && err != sql.ErrNoRows {
				return err
			}
			if !low.Valid {
				// Where the copy starts: rows written below it later (an
				// older rewind importing meanwhile) are copied by the tail.
				if err := tx.QueryRowContext(ctx, c.lowest).Scan(&low); err != nil && err != sql.ErrNoRows {
					return err
				}
				if !low.Valid {
					done = true // nothing to copy
					return nil
				}
				upTo = sql.NullInt64{Int64: low.Int64 - 1, Valid: true}
				if _, err := tx.ExecContext(ctx, `INSERT INTO `+c.progress+` (low, done) VALUES (?, ?)`, low.Int64, upTo.Int64); err != nil {
					return err
				}
			}
			last, copied, err := c.copy(ctx, tx, upTo.Int64, copyBatchRows)
			if err != nil {
				return err
			}
			n = copied
			if copied < copyBatchRows {
				done = true
			}
			if copied > 0 {
				_, err = tx.ExecContext(ctx, `UPDATE `+c.progress+` SET done = ?`, last)
			}
			return err
		})
		if err != nil {
			return fmt.Errorf("migration %d: copy in steps: %w", c.migration, err)
		}
		if afterCopyBatch != nil && n > 0 {
			afterCopyBatch(c.migration, int64(n))
		}
		if done {
			return nil
		}
	}
}

// copiedRange is how far a stepwise copy got (its progress table): ok is
// false when it never ran (no table, or no row in it).
func copiedRange(ctx context.Context, tx *sql.Tx, progress string) (low, done int64, ok bool, err error) {
	err = tx.QueryRowContext(ctx, `SELECT low, done FROM `+progress).Scan(&low, &done)
	if err == sql.ErrNoRows || isNoSuchTable(err) {
		return 0, 0, false, nil
	}
	return low, done, err == nil, err
}

// markReclaim leaves reclaim_pending for Open's VACUUM (reclaim): a
// migration freed the pages of what it copied.
func markReclaim(ctx context.Context, tx *sql.Tx, why string) error {
	if _, err := tx.ExecContext(ctx, `CREATE TABLE IF NOT EXISTS reclaim_pending (why TEXT NOT NULL)`); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO reclaim_pending VALUES (?)`, why)
	return err
}

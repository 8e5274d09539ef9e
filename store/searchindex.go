package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
)

// The full-text index keeps no copy of the text (contentless FTS4,
// content="", migration 13): each message's text is in its context row's
// body once, and snippets are built from it (snippet.go). Before, the
// index's own content table held a second copy (17 % of a 1M-record
// database, docs/DECISIONS.md).
//
// A contentless FTS4 table cannot delete a row. Records are deleted only
// when an import's hidden, half-written session is dropped
// (dropSessions); their entries stay in the index, which search joins to
// the context table, so an entry whose record is gone finds nothing. What
// could go wrong is an id given again to a new record (an import reserves
// ids below the lowest, an append takes the next after the highest): its
// old entry would then find the new record for words it does not hold.
// So the dropped ids are kept as retired ranges, and a hit in one whose
// text does not hold the query is skipped.

// retiredRanges are the id ranges of dropped records (search_retired).
type retiredRanges [][2]int64

func (r retiredRanges) holds(id int64) bool {
	return slices.ContainsFunc(r, func(lh [2]int64) bool { return lh[0] <= id && id <= lh[1] })
}

// readRetired reads the retired ranges: none but after a failed import.
func readRetired(ctx context.Context, q querier) (retiredRanges, error) {
	rows, err := q.QueryContext(ctx, `SELECT lo, hi FROM search_retired`)
	if err != nil {
		return nil, fmt.Errorf("retired ids: %w", err)
	}
	defer rows.Close()
	var out retiredRanges
	for rows.Next() {
		var lh [2]int64
		if err := rows.Scan(&lh[0], &lh[1]); err != nil {
			return nil, fmt.Errorf("retired ids: %w", err)
		}
		out = append(out, lh)
	}
	return out, rows.Err()
}

// retireRecords records the id range of the records of the sessions sel
// selects (SELECT id FROM sessions WHERE …) before they are deleted.
func retireRecords(ctx context.Context, tx *sql.Tx, sel string, args ...any) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO search_retired (lo, hi)
		SELECT min(id), max(id) FROM context WHERE session_key IN (SELECT key FROM sessions WHERE id IN (`+sel+`)) HAVING count(*) > 0`, args...)
	return err
}

const searchIndexV13 = `CREATE VIRTUAL TABLE IF NOT EXISTS context_fts_v13 USING fts4 (text, content="",
	tokenize=unicode61, prefix="2,3", order=DESC)`

// searchCopy is migration 13's first part (stepwiseCopy): the old index's
// rows are copied into the contentless context_fts_v13, oldest docid
// first. The rest, the copy of rows written meanwhile and the swap, is
// copySearchTail in the migration's own transaction.
var searchCopy = stepwiseCopy{
	migration: 13,
	progress:  "search_copy",
	lowest:    `SELECT docid FROM context_fts ORDER BY docid LIMIT 1`,
	prepare: func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, searchIndexV13)
		return err
	},
	copy: func(ctx context.Context, tx *sql.Tx, after int64, limit int) (int64, int, error) {
		return copyIndexRows(ctx, tx, `docid > ?`, after, limit)
	},
}

func (db *DB) copySearchIndex(ctx context.Context) error { return db.copyStepwise(ctx, searchCopy) }

// copySearchTail copies, in the transaction that swaps the indexes, the
// old index's rows the batches did not: written after the last batch, or
// below where the copy started. A database created at schema 13 has
// neither table yet. When there was an index to copy, it leaves
// reclaim_pending for Open's VACUUM.
func copySearchTail(ctx context.Context, tx *sql.Tx) error {
	if err := searchCopy.prepare(ctx, tx); err != nil {
		return err
	}
	low, upTo, started, err := copiedRange(ctx, tx, searchCopy.progress)
	if err != nil {
		return err
	}
	if !started {
		_, copied, err := copyIndexRows(ctx, tx, `1`, nil, -1) // never copied: all of it
		if err != nil || copied == 0 {
			return err
		}
	} else {
		// Two ranges, not one OR: FTS4 reads a docid range from its
		// content table's rowids, but an OR of two scans all of it.
		for _, r := range []struct {
			where string
			arg   int64
		}{{`docid < ?`, low}, {`docid > ?`, upTo}} {
			if _, _, err := copyIndexRows(ctx, tx, r.where, r.arg, -1); err != nil {
				return err
			}
		}
	}
	return markReclaim(ctx, tx, "0013: the old search index")
}

func isNoSuchTable(err error) bool {
	return err != nil && strings.Contains(err.Error(), "no such table")
}

// copyIndexRows copies the old index's rows matching where (with arg,
// when not nil), oldest docid first, at most limit (-1: all), and returns
// the last docid copied and how many.
func copyIndexRows(ctx context.Context, tx *sql.Tx, where string, arg any, limit int) (int64, int, error) {
	var a []any
	if arg != nil {
		a = append(a, arg)
	}
	a = append(a, limit)
	rows, err := tx.QueryContext(ctx, `SELECT docid, text FROM context_fts WHERE `+where+` ORDER BY docid LIMIT ?`, a...)
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	ins, err := tx.PrepareContext(ctx, `INSERT INTO context_fts_v13 (docid, text) VALUES (?, ?)`)
	if err != nil {
		return 0, 0, err
	}
	defer ins.Close()
	var last int64
	n := 0
	for rows.Next() {
		var text sql.NullString
		if err := rows.Scan(&last, &text); err != nil {
			return 0, 0, err
		}
		if _, err := ins.ExecContext(ctx, last, text.String); err != nil {
			return 0, 0, err
		}
		n++
	}
	return last, n, rows.Err()
}

// reclaim gives the file back the pages a migration freed (migration 13
// leaves the old index's pages free: a third of a large database), when
// it left reclaim_pending. VACUUM rewrites the file in one transaction: a
// process killed in it leaves the file as it was and the next open does
// it again.
func (db *DB) reclaim(ctx context.Context) error {
	var pending int
	if err := db.reader.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE name = 'reclaim_pending'`).Scan(&pending); err != nil {
		return fmt.Errorf("reclaim freed pages: %w", err)
	}
	if pending == 0 {
		return nil
	}
	var free, pages int64
	if err := db.reader.QueryRowContext(ctx, `SELECT (SELECT freelist_count FROM pragma_freelist_count), (SELECT page_count FROM pragma_page_count)`).Scan(&free, &pages); err != nil {
		return fmt.Errorf("reclaim freed pages: %w", err)
	}
	if free > reclaimMinPages {
		if beforeReclaim != nil {
			beforeReclaim()
		}
		if err := db.waitChecked(ctx); err != nil {
			return fmt.Errorf("reclaim freed pages: %w", err)
		}
		err := db.RetryBusy(ctx, func() error {
			_, err := db.writer.ExecContext(ctx, `VACUUM`)
			return markBusy(err)
		})
		if err != nil {
			return fmt.Errorf("reclaim freed pages (VACUUM): %w", err)
		}
	}
	err := db.WriteTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, `DROP TABLE IF EXISTS reclaim_pending`)
		return err
	})
	if err != nil {
		return fmt.Errorf("reclaim freed pages: %w", err)
	}
	return nil
}

// beforeReclaim, when set by tests, runs before the VACUUM.
var beforeReclaim func()

// reclaimMinPages: fewer free pages (4 MB) are left for SQLite to reuse
// (tests lower it).
var reclaimMinPages int64 = 1024

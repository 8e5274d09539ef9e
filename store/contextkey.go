package store

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
)

// Since migration 14 a context row names its session by sessions.key, a
// small integer given once to each session, instead of its 26-byte text
// id, and its kind by a number: the id was in every row and in two
// indexes, a fifth of a 1M-record database (docs/DECISIONS.md). Only the
// store sees keys; every caller names sessions by their text id.
//
// The key is an explicit column, not the table's rowid (sessions has
// none, and VACUUM may renumber an implicit one). A trigger gives a new
// session the next key, so every writer, an older rewind inserting a
// session while migration 14 copies the records included, leaves none
// without one.

// The kinds as the context table stores them.
const (
	kindCodeMessage    = 0
	kindCodeCheckpoint = 1
	kindCodeUsage      = 2
)

// kindCode is how kind k is stored.
func kindCode(k Kind) (int, error) {
	switch k {
	case KindMessage:
		return kindCodeMessage, nil
	case KindCheckpoint:
		return kindCodeCheckpoint, nil
	case KindUsage:
		return kindCodeUsage, nil
	}
	return 0, fmt.Errorf("unknown kind %q", k)
}

// kindOfCode is the kind stored as c.
func kindOfCode(c int64) (Kind, error) {
	switch c {
	case kindCodeMessage:
		return KindMessage, nil
	case kindCodeCheckpoint:
		return KindCheckpoint, nil
	case kindCodeUsage:
		return KindUsage, nil
	}
	return "", fmt.Errorf("unknown kind code %d", c)
}

// sessionKey reads session id's key.
func sessionKey(ctx context.Context, q querier, id string) (int64, error) {
	var key sql.NullInt64
	err := q.QueryRowContext(ctx, `SELECT key FROM sessions WHERE id = ?`, id).Scan(&key)
	if err == nil && !key.Valid {
		err = fmt.Errorf("session %s has no key", id)
	}
	return key.Int64, err
}

// sessionKeyOf is the SQL of session id's key (one probe of the primary key).
const sessionKeyOf = `(SELECT key FROM sessions WHERE id = ?)`

// giveSessionKeys adds sessions.key, gives every session one (oldest
// first) and installs the trigger that gives each new session the next,
// unless done already. Older rewinds name their columns in every insert,
// so they go on writing sessions beside it.
func giveSessionKeys(ctx context.Context, tx *sql.Tx) error {
	var has int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM pragma_table_info('sessions') WHERE name = 'key'`).Scan(&has); err != nil {
		return err
	}
	if has > 0 {
		return nil
	}
	for _, q := range []string{
		`ALTER TABLE sessions ADD COLUMN key INTEGER`,
		`UPDATE sessions SET key = k.n
			FROM (SELECT id, row_number() OVER (ORDER BY created_at, id) AS n FROM sessions) AS k
			WHERE k.id = sessions.id`,
		`CREATE UNIQUE INDEX sessions_key ON sessions (key)`,
		`CREATE TRIGGER sessions_key_given AFTER INSERT ON sessions WHEN NEW.key IS NULL
		BEGIN UPDATE sessions SET key = (SELECT coalesce(max(key), 0) + 1 FROM sessions) WHERE id = NEW.id; END`,
	} {
		if _, err := tx.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("session keys: %w", err)
		}
	}
	return nil
}

// contextV14 is the context table of schema 14, filled under this name
// and renamed by the migration; its indexes are built there, in one sort.
const contextV14 = `CREATE TABLE IF NOT EXISTS context_v14 (
    id            INTEGER PRIMARY KEY,          -- docid in context_fts
    session_key   INTEGER NOT NULL,             -- sessions.key
    seq           INTEGER NOT NULL,
    gen           INTEGER NOT NULL,
    kind          INTEGER NOT NULL CHECK (kind IN (0, 1, 2)), -- message, checkpoint, usage
    role          TEXT,
    checkpoint_id INTEGER,
    token_count   INTEGER,
    body          TEXT,                         -- JSON
    msgs_before   INTEGER NOT NULL,
    tokens_before INTEGER NOT NULL,
    created_at    INTEGER NOT NULL
)`

// contextCopy is migration 14's first part (stepwiseCopy): the schema-13
// context rows are copied into context_v14, oldest id first, with their
// session's key and their kind's number. The rest, the rows written
// meanwhile and the swap, is copyContextTail in the migration's own
// transaction.
var contextCopy = stepwiseCopy{
	migration: 14,
	progress:  "context_copy",
	lowest:    `SELECT id FROM context ORDER BY id LIMIT 1`,
	prepare: func(ctx context.Context, tx *sql.Tx) error {
		if err := giveSessionKeys(ctx, tx); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, contextV14)
		return err
	},
	copy: func(ctx context.Context, tx *sql.Tx, after int64, limit int) (int64, int, error) {
		var last sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT id FROM context WHERE id > ? ORDER BY id LIMIT 1 OFFSET ?`, after, limit-1).Scan(&last)
		if err == sql.ErrNoRows { // the last batch
			err = tx.QueryRowContext(ctx, `SELECT max(id) FROM context WHERE id > ?`, after).Scan(&last)
		}
		if err != nil || !last.Valid {
			return after, 0, err
		}
		n, err := copyContextRows(ctx, tx, `c.id > ? AND c.id <= ?`, after, last.Int64)
		return last.Int64, n, err
	},
}

func (db *DB) copyContext(ctx context.Context) error { return db.copyStepwise(ctx, contextCopy) }

// copyContextRows copies the schema-13 context rows matching where into
// context_v14 and says how many.
func copyContextRows(ctx context.Context, tx *sql.Tx, where string, args ...any) (int, error) {
	res, err := tx.ExecContext(ctx, `INSERT INTO context_v14 (id, session_key, seq, gen, kind, role, checkpoint_id,
		token_count, body, msgs_before, tokens_before, created_at)
		SELECT c.id, s.key, c.seq, c.gen,
			CASE c.kind WHEN 'message' THEN 0 WHEN 'checkpoint' THEN 1 WHEN 'usage' THEN 2 END,
			c.role, c.checkpoint_id, c.token_count, c.body, c.msgs_before, c.tokens_before, c.created_at
		FROM context c JOIN sessions s ON s.id = c.session_id
		WHERE `+where+` ORDER BY c.id`, args...)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}

// copyContextTail copies, in the transaction that swaps the tables, the
// rows the batches did not: written after the last batch or below where
// the copy started, and again those of the retired id ranges inside the
// copied range (an older rewind dropped a half-imported session meanwhile
// and may have written others on its ids). A new database copies nothing.
// When there were rows, it leaves reclaim_pending for Open's VACUUM.
func copyContextTail(ctx context.Context, tx *sql.Tx) error {
	if err := contextCopy.prepare(ctx, tx); err != nil {
		return err
	}
	low, upTo, started, err := copiedRange(ctx, tx, contextCopy.progress)
	if err != nil {
		return err
	}
	if !started {
		n, err := copyContextRows(ctx, tx, `1`)
		if err != nil || n == 0 {
			return err
		}
		return markReclaim(ctx, tx, "0014: the old context table")
	}
	retired, err := readRetired(ctx, tx)
	if err != nil {
		return err
	}
	for _, r := range mergeRanges(retired) {
		lo, hi := max(r[0], low), min(r[1], upTo)
		if lo > hi {
			continue
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM context_v14 WHERE id BETWEEN ? AND ?`, lo, hi); err != nil {
			return err
		}
		if _, err := copyContextRows(ctx, tx, `c.id BETWEEN ? AND ?`, lo, hi); err != nil {
			return err
		}
	}
	if _, err := copyContextRows(ctx, tx, `c.id < ?`, low); err != nil {
		return err
	}
	if _, err := copyContextRows(ctx, tx, `c.id > ?`, upTo); err != nil {
		return err
	}
	return markReclaim(ctx, tx, "0014: the old context table")
}

// mergeRanges sorts id ranges and joins those that overlap or touch.
func mergeRanges(rs retiredRanges) [][2]int64 {
	out := slices.Clone([][2]int64(rs))
	slices.SortFunc(out, func(a, b [2]int64) int {
		switch {
		case a[0] < b[0]:
			return -1
		case a[0] > b[0]:
			return 1
		}
		return 0
	})
	var merged [][2]int64
	for _, r := range out {
		if n := len(merged); n > 0 && r[0] <= merged[n-1][1]+1 {
			merged[n-1][1] = max(merged[n-1][1], r[1])
			continue
		}
		merged = append(merged, r)
	}
	return merged
}

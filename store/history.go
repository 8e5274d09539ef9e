package store

import (
	"context"
	"database/sql"
	"fmt"
)

// MaxInputHistory is how many input history entries a work dir keeps.
const MaxInputHistory = 1000

// AddInputHistory records a prompt typed in workDir. The same text as the
// newest entry is not repeated; entries beyond MaxInputHistory are dropped,
// oldest first.
func (db *DB) AddInputHistory(ctx context.Context, workDir, text string) error {
	err := db.WriteTx(ctx, func(tx *sql.Tx) error {
		var last string
		err := tx.QueryRowContext(ctx, "SELECT text FROM input_history WHERE work_dir = ? ORDER BY id DESC LIMIT 1", workDir).Scan(&last)
		if err == nil && last == text {
			return nil
		}
		if err != nil && err != sql.ErrNoRows {
			return err
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO input_history (work_dir, text, created_at) VALUES (?, ?, ?)", workDir, text, nowMS()); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM input_history WHERE work_dir = ? AND id <= (
			SELECT id FROM input_history WHERE work_dir = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`, workDir, workDir, MaxInputHistory)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: add input history: %w", err)
	}
	return nil
}

// InputHistory returns the newest limit prompts typed in workDir, oldest
// first.
func (db *DB) InputHistory(ctx context.Context, workDir string, limit int) ([]string, error) {
	rows, err := db.reader.QueryContext(ctx, "SELECT text FROM input_history WHERE work_dir = ? ORDER BY id DESC LIMIT ?", workDir, limit)
	if err != nil {
		return nil, fmt.Errorf("store: input history: %w", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, fmt.Errorf("store: input history: %w", err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: input history: %w", err)
	}
	for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
		out[i], out[j] = out[j], out[i]
	}
	return out, nil
}

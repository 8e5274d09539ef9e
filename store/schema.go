package store

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
	"strconv"
	"strings"
)

// schemaSQL is the schema the migrations build, for a new database: one
// transaction of plain CREATE statements instead of every migration (they
// rebuild the full-text index three times and rename tables: about 20 ms
// of CPU, most of a first run's). TestSchemaIsTheMigrations holds it equal
// to what the migrations build and rewrites it with -update-schema.
//
//go:embed schema.sql
var schemaSQL string

// schemaVersion is the migration a schema script stands for (its
// "-- version: N" line); the migrations after it, if any, run on top.
func schemaVersion(script string) (int, error) {
	for line := range strings.Lines(script) {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "-- version: "); ok {
			return strconv.Atoi(v)
		}
	}
	return 0, fmt.Errorf("schema script names no version")
}

// createFrom writes a schema script (schema.sql) into a new, empty
// database, in one transaction that sets user_version as the migrations
// would have. A database another process created meanwhile is left alone
// (migrateTo then finds it up to date).
func (db *DB) createFrom(ctx context.Context, script string) error {
	version, err := schemaVersion(script)
	if err != nil {
		return err
	}
	return db.WriteTx(ctx, func(tx *sql.Tx) error {
		var v, objects int
		if err := tx.QueryRowContext(ctx, "SELECT (SELECT user_version FROM pragma_user_version), count(*) FROM sqlite_schema").Scan(&v, &objects); err != nil {
			return err
		}
		if v != 0 || objects != 0 {
			return nil
		}
		if _, err := tx.ExecContext(ctx, script); err != nil {
			return fmt.Errorf("create schema: %w", err)
		}
		_, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d; PRAGMA user_version = %d", ApplicationID, version))
		return err
	})
}

package store

import (
	"context"
	"database/sql"
	"os"
)

// PendingUpgrade reports the schema version of the existing database at path
// and the version Open would migrate it to, without writing. from == to when
// nothing is pending; from is 0 for a missing or new file. Open on a large
// history can take a while to migrate, and a caller can say so first.
func PendingUpgrade(ctx context.Context, path string) (from, to int, err error) {
	to = SchemaVersion()
	if st, err := os.Stat(path); err != nil || st.Size() == 0 {
		return 0, to, nil
	}
	ro, err := sql.Open("sqlite3", "file:"+escapePath(path)+"?mode=ro&_busy_timeout=5000")
	if err != nil {
		return 0, to, err
	}
	defer ro.Close()
	if err := ro.QueryRowContext(ctx, "PRAGMA user_version").Scan(&from); err != nil {
		return 0, to, err
	}
	return from, to, nil
}

package store

import (
	"database/sql"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateSchema = flag.Bool("update-schema", false, "rewrite schema.sql from what the migrations build")

// migratedDB is a new database taken through every migration up to v, one
// transaction each, as a database made before schema.sql was.
func migratedDB(t *testing.T, v int) *DB {
	t.Helper()
	migs, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	db := openRaw(t, filepath.Join(t.TempDir(), "rewind.db"))
	t.Cleanup(func() { db.Close() })
	if err := db.migrateTo(bg, migs, v); err != nil {
		t.Fatal(err)
	}
	return db
}

// schemaScript is the schema script of a database: its tables, indexes,
// views and triggers (not the full-text index's own tables: its CREATE
// VIRTUAL TABLE makes them) and the rows of its tables, at version v.
func schemaScript(t *testing.T, db *sql.DB, v int) string {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "-- The schema migrations/ builds, which Open writes into a new database in\n")
	fmt.Fprintf(&b, "-- one transaction (schema.go). Written by TestSchemaIsTheMigrations:\n")
	fmt.Fprintf(&b, "-- go test ./store -run TestSchemaIsTheMigrations -update-schema\n")
	fmt.Fprintf(&b, "-- version: %d\n", v)
	shadow := map[string]bool{}
	for _, r := range queryRows(t, db, "SELECT name, type FROM pragma_table_list WHERE schema = 'main'") {
		if r[1] == "shadow" {
			shadow[r[0]] = true
		}
	}
	var tables []string
	for _, r := range queryRows(t, db, `SELECT type, name, sql FROM sqlite_schema
		WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite\_%' ESCAPE '\'
		ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END, rowid`) {
		if shadow[r[1]] {
			continue
		}
		fmt.Fprintf(&b, "\n%s;\n", r[2])
		if r[0] == "table" && !strings.HasPrefix(r[2], "CREATE VIRTUAL TABLE") {
			tables = append(tables, r[1])
		}
	}
	for _, table := range tables {
		var cols []string
		for _, r := range queryRows(t, db, "SELECT name FROM pragma_table_info(?) ORDER BY cid", table) {
			cols = append(cols, fmt.Sprintf("quote(%q)", r[0]))
		}
		for _, r := range queryRows(t, db, fmt.Sprintf("SELECT %s FROM %q", strings.Join(cols, " || ',' || "), table)) {
			fmt.Fprintf(&b, "\nINSERT INTO %q VALUES (%s);\n", table, r[0])
		}
	}
	return b.String()
}

// catalogue is everything of a database's schema that a new one must
// equal: every object (the full-text index's tables too) and its SQL, the
// two version pragmas and every ordinary table's rows.
func catalogue(t *testing.T, db *sql.DB) string {
	t.Helper()
	var b strings.Builder
	for _, q := range []string{
		// The full-text index's own tables, which its CREATE VIRTUAL TABLE
		// makes, name themselves 'so'; a RENAME of the index (migrations
		// 4, 6 and 13) rewrote it "so".
		`SELECT type, name, tbl_name, CASE WHEN name IN (SELECT name FROM pragma_table_list WHERE type = 'shadow')
			THEN replace(sql, '"', '''') ELSE coalesce(sql, '') END FROM sqlite_schema ORDER BY type, name`,
		"SELECT 'user_version', user_version FROM pragma_user_version",
		"SELECT 'application_id', application_id FROM pragma_application_id",
	} {
		for _, r := range queryRows(t, db, q) {
			fmt.Fprintln(&b, strings.Join(r, " | "))
		}
	}
	for _, r := range queryRows(t, db, "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name") {
		var n int
		if err := db.QueryRow(fmt.Sprintf("SELECT count(*) FROM %q", r[0])).Scan(&n); err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s: %d rows\n", r[0], n)
	}
	return b.String()
}

func queryRows(t *testing.T, db *sql.DB, q string, args ...any) [][]string {
	t.Helper()
	rows, err := db.Query(q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	var out [][]string
	for rows.Next() {
		r := make([]string, len(cols))
		ptrs := make([]any, len(cols))
		for i := range r {
			ptrs[i] = &r[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSchemaIsTheMigrations holds schema.sql to what the migrations build
// from an empty file, and a database Open makes from it to one migrated
// a version at a time: the same objects with the same SQL, versions and
// rows.
func TestSchemaIsTheMigrations(t *testing.T) {
	t.Parallel()
	migs, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	migrated := migratedDB(t, len(migs))
	script := schemaScript(t, migrated.reader, len(migs))
	if *updateSchema {
		if err := os.WriteFile("schema.sql", []byte(script), 0o644); err != nil {
			t.Fatal(err)
		}
	} else if script != schemaSQL {
		t.Fatalf("schema.sql is not what the migrations build (a new migration?): go test ./store -run TestSchemaIsTheMigrations -update-schema")
	}
	made, err := Open(bg, filepath.Join(t.TempDir(), "rewind.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer made.Close()
	if got, want := catalogue(t, made.reader), catalogue(t, migrated.reader); got != want {
		t.Fatalf("a new database differs from one migrated a version at a time:\n%s\nwant:\n%s", got, want)
	}
}

// TestSchemaThenNewerMigrations: a schema script older than the newest
// migration (a migration added, schema.sql not rewritten yet) is written,
// then the migrations after it run: the database is the migrated one.
func TestSchemaThenNewerMigrations(t *testing.T) {
	t.Parallel()
	migs, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	older := len(migs) - 2
	script := schemaScript(t, migratedDB(t, older).reader, older)
	db := openRaw(t, filepath.Join(t.TempDir(), "rewind.db"))
	defer db.Close()
	if err := db.createFrom(bg, script); err != nil {
		t.Fatal(err)
	}
	if err := db.migrateTo(bg, migs, len(migs)); err != nil {
		t.Fatal(err)
	}
	if got, want := catalogue(t, db.reader), catalogue(t, migratedDB(t, len(migs)).reader); got != want {
		t.Fatalf("schema %d then the migrations after it differs from every migration:\n%s\nwant:\n%s", older, got, want)
	}
}

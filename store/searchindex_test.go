package store

import (
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rewind-agent/rewind/store/message"
)

// TestDroppedRecordsIdsGivenAgainAreNotFound: the contentless index keeps
// the entries of a dropped half-imported session; a record that later
// gets one of its ids is not found for the dropped record's words.
func TestDroppedRecordsIdsGivenAgainAreNotFound(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	db.importChunk, db.importTime = 10, 0 // a large import: hidden, several transactions
	recs := make([]Record, 25)
	for i := range recs {
		recs[i] = Record{Kind: KindMessage, Body: []byte(`{"role":"user","content":"zanzibar line ` + fmt.Sprint(i) + `"}`)}
	}
	recs[22] = Record{Kind: "bogus"}
	if _, err := db.ImportSessions(bg, []ImportedSession{{Session: NewSession{Title: "broken"}, Generations: []ImportedGeneration{{Records: recs}}}}); err == nil {
		t.Fatal("an import with a bad record succeeded")
	}
	s := newSession(t, db, "after", "/w")
	for i := range 30 {
		must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", fmt.Sprintf("plain words %d", i))))
	}
	var reused int
	if err := db.Reader().QueryRow(`SELECT count(*) FROM context c JOIN search_retired r ON c.id BETWEEN r.lo AND r.hi`).Scan(&reused); err != nil || reused == 0 {
		t.Fatalf("no record took a dropped id (%d, %v): the test proves nothing", reused, err)
	}
	if hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "zanzibar"})); len(hits) != 0 {
		t.Errorf("the dropped records' word finds %d records that do not hold it: %+v", len(hits), hits[0])
	}
	if hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "plain"})); len(hits) != 30 {
		t.Errorf("%d hits for the new records, want 30", len(hits))
	}
}

// openAtVersion creates a database at path migrated to schema version v
// only, as a release of that schema left it.
func openAtVersion(t *testing.T, path string, v int) *DB {
	t.Helper()
	migs, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); os.IsNotExist(err) && v > 0 {
		if err := os.WriteFile(path, versionFile(t, v), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	old := openRaw(t, path)
	if err := old.migrateTo(bg, migs, v); err != nil {
		t.Fatal(err)
	}
	return old
}

// openRaw opens path as Open does but runs no migration.
func openRaw(t *testing.T, path string) *DB {
	t.Helper()
	if err := prepareFile(path); err != nil {
		t.Fatal(err)
	}
	old := &DB{path: path, closed: make(chan struct{})}
	var err error
	if old.writer, err = sql.Open("sqlite3", dsn(path, "immediate")); err != nil {
		t.Fatal(err)
	}
	old.writer.SetMaxOpenConns(1)
	if old.reader, err = sql.Open("sqlite3", dsn(path, "deferred")); err != nil {
		t.Fatal(err)
	}
	return old
}

// versions holds an empty database at each schema version, built once
// per test binary by migrating one file a version at a time: the tests
// of migrations from older schemas copy one rather than each migrating
// an empty file up to its version.
var versions struct {
	once  sync.Once
	files [][]byte // by version; 0 is the empty file
	err   error
}

func versionFile(t *testing.T, v int) []byte {
	t.Helper()
	versions.once.Do(func() {
		versions.err = errors.New("the test that built them failed")
		migs, err := loadMigrations()
		if err != nil {
			versions.err = err
			return
		}
		dir, err := os.MkdirTemp("", "rewind-store-versions")
		if err != nil {
			versions.err = err
			return
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "rewind.db")
		files := [][]byte{nil}
		for v := 1; v < len(migs); v++ {
			db := openRaw(t, path)
			err := db.migrateTo(bg, migs, v)
			if cerr := db.Close(); err == nil {
				err = cerr
			}
			if err != nil {
				versions.err = err
				return
			}
			if _, err := os.Stat(path + "-wal"); err == nil {
				versions.err = errors.New("the WAL outlived the close")
				return
			}
			file, err := os.ReadFile(path)
			if err != nil {
				versions.err = err
				return
			}
			files = append(files, file)
		}
		versions.files, versions.err = files, nil
	})
	if versions.err != nil {
		t.Fatalf("databases at each version: %v", versions.err)
	}
	if v >= len(versions.files) {
		t.Fatalf("no database at version %d", v)
	}
	return versions.files[v]
}

// TestMigrationCopiesRowsWrittenMeanwhile: rows an older rewind writes
// into the old index while migration 13 copies it (between two of its
// transactions: an append above the copied range, an import of older
// history below it) are copied by the migration's last transaction.
func TestMigrationCopiesRowsWrittenMeanwhile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "rewind.db")
	old := openAtVersion(t, path, 12)
	legacySession(t, old, "s")
	for i := range 5 {
		legacyRecord(t, old, "s", 0, int64(i+1), fmt.Sprint("before the copy ", i))
	}
	if err := old.copySearchIndex(bg); err != nil {
		t.Fatal(err)
	}
	legacyRecord(t, old, "s", 0, 6, "kumquat above")
	legacyRecord(t, old, "s", -7, 1000, "quince below")
	old.Close()
	db, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for q, want := range map[string]int{"before": 5, "kumquat": 1, "quince": 1} {
		if hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: q})); len(hits) != want {
			t.Errorf("search %q: %d hits, want %d", q, len(hits), want)
		}
	}
}

// legacySession creates a session as a schema 12 or 13 rewind did, through
// SQL: the store's code writes only the current schema.
func legacySession(t *testing.T, db *DB, id string) {
	t.Helper()
	now := nowMS()
	for _, q := range []string{
		`INSERT INTO sessions (id, title, work_dir, model, created_at, updated_at) VALUES (?1, ?1, '/w', 'm', ?2, ?2)`,
		`INSERT INTO generations (session_id, gen, cause, created_at) VALUES (?1, 0, 'start', ?2)`,
	} {
		if _, err := db.writer.Exec(q, id, now); err != nil {
			t.Fatal(err)
		}
	}
}

// legacyRecord appends a user message to generation 0 of session as a
// schema 12 or 13 rewind did (context.session_id, the kind as text, the
// index's row), with id (0: the next rowid) and seq.
func legacyRecord(t *testing.T, db *DB, session string, id, seq int64, text string) {
	t.Helper()
	body, _ := json.Marshal(message.NewText("user", text))
	var idArg any
	if id != 0 {
		idArg = id
	}
	var msgs int
	if err := db.writer.QueryRow(`SELECT messages FROM generations WHERE session_id = ? AND gen = 0`, session).Scan(&msgs); err != nil {
		t.Fatal(err)
	}
	res, err := db.writer.Exec(`INSERT INTO context (id, session_id, seq, gen, kind, role, body, msgs_before, tokens_before, created_at)
		VALUES (?, ?, ?, 0, 'message', 'user', ?, ?, 0, ?)`, idArg, session, seq, string(body), msgs, nowMS())
	if err != nil {
		t.Fatal(err)
	}
	rowid, _ := res.LastInsertId()
	for _, q := range []struct {
		sql  string
		args []any
	}{
		{`INSERT INTO context_fts (docid, text) VALUES (?, ?)`, []any{rowid, text}},
		{`UPDATE sessions SET last_seq = max(last_seq, ?) WHERE id = ?`, []any{seq, session}},
		{`UPDATE generations SET messages = messages + 1 WHERE session_id = ? AND gen = 0`, []any{session}},
	} {
		if _, err := db.writer.Exec(q.sql, q.args...); err != nil {
			t.Fatal(err)
		}
	}
}

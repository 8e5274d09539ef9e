package store

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
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
	if err := prepareFile(path); err != nil {
		t.Fatal(err)
	}
	old := &DB{path: path, closed: make(chan struct{})}
	if old.writer, err = sql.Open("sqlite3", dsn(path, "immediate")); err != nil {
		t.Fatal(err)
	}
	old.writer.SetMaxOpenConns(1)
	if old.reader, err = sql.Open("sqlite3", dsn(path, "deferred")); err != nil {
		t.Fatal(err)
	}
	if err := old.migrateTo(bg, migs, v); err != nil {
		t.Fatal(err)
	}
	return old
}

const migrateChildEnv = "REWIND_STORE_MIGRATE_CHILD"

// TestMigrateChild is the child of TestMigrationKilledResumes: it opens
// the database (migrating it) in batches of 40 rows, printing a line after
// each batch and before the VACUUM, and going on when told to.
func TestMigrateChild(t *testing.T) {
	path := os.Getenv(migrateChildEnv)
	if path == "" {
		t.Skip("run by TestMigrationKilledResumes")
	}
	out := bufio.NewWriter(os.Stdout)
	in := bufio.NewReader(os.Stdin)
	// Each point waits for the parent's go-ahead: a kill lands exactly there.
	say := func(line string) {
		fmt.Fprintln(out, line)
		out.Flush()
		if _, err := in.ReadString('\n'); err != nil {
			os.Exit(4)
		}
	}
	searchCopyBatch, reclaimMinPages = 40, 0
	afterSearchCopyBatch = func(n int64) { say(fmt.Sprint("BATCH ", n)) }
	beforeReclaim = func() { say("VACUUM") }
	db, err := Open(bg, path)
	if err != nil {
		fmt.Fprintln(out, "ERR", err)
		out.Flush()
		os.Exit(3)
	}
	db.Close()
	fmt.Fprintln(out, "OPEN")
	out.Flush()
}

// TestMigrationKilledResumes kills (SIGKILL) a process migrating a schema
// 12 database to the contentless index, at several points of the copy
// and as the VACUUM is due (each a point where the child waits), and checks that each next open goes on from where
// the last stopped (the rows copied over all runs are the index's rows,
// once), and that the end is a whole database:
// integrity_check ok, every record there, the same search hits.
func TestMigrationKilledResumes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("short")
	}
	path := filepath.Join(t.TempDir(), "rewind.db")
	old := openAtVersion(t, path, 12)
	words := strings.Fields("the build fix error refactor test retry return deadlock café quokka zeppelin lookahead flaky")
	var sessions []ImportedSession
	for si := range 4 {
		var recs []Record
		for i := range 600 {
			var b strings.Builder
			for j := range 3 + (i*7+si)%20 {
				if j > 0 {
					b.WriteString(" ")
				}
				b.WriteString(words[(i*13+j*j*5+j+si)%len(words)])
			}
			body, _ := json.Marshal(message.NewText([]string{"user", "assistant"}[i%2], b.String()))
			recs = append(recs, Record{Kind: KindMessage, Body: body})
		}
		sessions = append(sessions, ImportedSession{Session: NewSession{Title: fmt.Sprint("s", si), WorkDir: "/w"}, Generations: []ImportedGeneration{{Records: recs}}})
	}
	old.importChunk = 1 << 20 // small imports: schema 12 has no search_retired for a large one's cleanup
	if _, err := old.ImportSessions(bg, sessions); err != nil {
		t.Fatal(err)
	}
	var records, indexed int
	if err := old.reader.QueryRow(`SELECT (SELECT count(*) FROM context), (SELECT count(*) FROM context_fts)`).Scan(&records, &indexed); err != nil {
		t.Fatal(err)
	}
	old.Close()
	// The hits of a copy migrated without a kill.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	clean := filepath.Join(t.TempDir(), "clean.db")
	if err := os.WriteFile(clean, data, 0o600); err != nil {
		t.Fatal(err)
	}
	cdb, err := Open(bg, clean)
	if err != nil {
		t.Fatal(err)
	}
	queries := []string{"quokka", "re*", "the", "build", "café", "zeppelin OR flaky"}
	before := map[string][]SearchHit{}
	for _, q := range queries {
		before[q] = must[[]SearchHit](t)(cdb.Search(bg, SearchOptions{Query: q, Limit: 100}))
	}
	cdb.Close()

	copied, kills := 0, 0
	// run runs a child, killing it after its nth batch (n > 0) or when it
	// starts the VACUUM, and reports whether it finished.
	run := func(n int, atVacuum bool) (finished bool) {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestMigrateChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), migrateChildEnv+"="+path)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer cmd.Wait()
		defer stdin.Close()
		sc := bufio.NewScanner(stdout)
		batches := 0
		for sc.Scan() {
			line := sc.Text()
			var rows int
			if _, err := fmt.Sscanf(line, "BATCH %d", &rows); err == nil {
				copied += rows
				batches++
			}
			switch {
			case strings.HasPrefix(line, "ERR"):
				t.Fatalf("child: %s", line)
			case line == "OPEN":
				return true
			case n > 0 && batches == n, atVacuum && line == "VACUUM":
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				kills++
				return false
			}
			if _, err := io.WriteString(stdin, "go\n"); err != nil {
				t.Fatal(err)
			}
		}
		return false
	}
	run(3, false)
	run(10, false)
	run(0, true)
	if !run(0, false) {
		t.Fatal("the last run did not finish")
	}
	if kills != 3 {
		t.Fatalf("%d kills, want 3 (the migration ended before a kill point)", kills)
	}
	if copied != indexed {
		t.Errorf("%d rows copied over the runs for %d indexed: a killed migration started over or skipped some", copied, indexed)
	}
	db, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v, n int
	var check string
	if err := db.Reader().QueryRow(`SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM context)`).Scan(&v, &n); err != nil || v != SchemaVersion() || n != records {
		t.Fatalf("after the kills: schema %d, %d records (%v); want %d, %d", v, n, err, SchemaVersion(), records)
	}
	if err := db.Reader().QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q %v", check, err)
	}
	for _, q := range queries {
		got := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: q, Limit: 100}))
		g, _ := json.Marshal(got)
		w, _ := json.Marshal(before[q])
		if len(before[q]) == 0 || string(g) != string(w) {
			t.Errorf("search %q after the migration: %d hits, before %d\n got %.300s\nwant %.300s", q, len(got), len(before[q]), g, w)
		}
	}
}

// TestMigrationCopiesRowsWrittenMeanwhile: rows an older rewind writes
// into the old index while migration 13 copies it (between two of its
// transactions: an append above the copied range, an import of older
// history below it) are copied by the migration's last transaction.
func TestMigrationCopiesRowsWrittenMeanwhile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "rewind.db")
	old := openAtVersion(t, path, 12)
	s := newSession(t, old, "s", "/w")
	for i := range 5 {
		turn(t, old, s.ID, fmt.Sprint("before the copy ", i), 10+i)
	}
	if err := old.copySearchIndex(bg); err != nil {
		t.Fatal(err)
	}
	turn(t, old, s.ID, "kumquat above", 100)
	body, _ := json.Marshal(message.NewText("user", "quince below"))
	if _, err := old.writer.Exec(`INSERT INTO context (id, session_id, seq, gen, kind, role, body, msgs_before, tokens_before, created_at)
		VALUES (-7, ?, 1000, 0, 'message', 'user', ?, 0, 0, 1)`, s.ID, string(body)); err != nil {
		t.Fatal(err)
	}
	if _, err := old.writer.Exec(`INSERT INTO context_fts (docid, text) VALUES (-7, 'quince below')`); err != nil {
		t.Fatal(err)
	}
	old.Close()
	db, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for q, want := range map[string]int{"before": 15, "kumquat": 3, "quince": 1} {
		if hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: q})); len(hits) != want {
			t.Errorf("search %q: %d hits, want %d", q, len(hits), want)
		}
	}
}

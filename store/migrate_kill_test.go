package store

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

const migrateChildEnv = "REWIND_STORE_MIGRATE_CHILD"

// TestMigrateChild is the child of TestMigrationKilledResumes: it opens
// the database (migrating it) in batches of 40 rows, printing a line after
// each batch ("BATCH migration rows") and before the VACUUM, and going on
// when told to.
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
	copyBatchRows, reclaimMinPages = 40, 0
	afterCopyBatch = func(m int, n int64) { say(fmt.Sprint("BATCH ", m, " ", n)) }
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

// killAt is where a run of the migrating child is killed: after its nth
// batch of a migration's copy, or as the VACUUM is due (migration 0).
type killAt struct{ migration, n int }

// TestMigrationKilledResumes kills (SIGKILL) processes migrating a
// release's database (the schema 12 and 13 fixtures, written through
// those releases' store) at several points of each stepwise copy (13: the
// search index, 14: the context table) and as the VACUUM is due, and
// checks that each next open goes on from where the last stopped (the rows
// copied over all runs are the table's rows, once), and that the end is a
// whole database: integrity_check ok, every record there, and the hits
// (labels and snippets) the release found.
func TestMigrationKilledResumes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("short")
	}
	for _, tc := range []struct {
		fixture string
		kills   []killAt
	}{
		{"schema-v12", []killAt{{13, 3}, {14, 4}, {0, 0}}},
		{"schema-v13", []killAt{{14, 3}, {14, 10}, {14, 1}, {0, 0}}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile("testdata/" + tc.fixture + ".db")
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "rewind.db")
			if err := os.WriteFile(path, data, 0o600); err != nil {
				t.Fatal(err)
			}
			old := openAtVersion(t, path, 0) // opened only to count: migrates nothing
			var v, records int
			if err := old.reader.QueryRow(`SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM context)`).Scan(&v, &records); err != nil {
				t.Fatal(err)
			}
			want := map[int]int{14: records} // rows each migration's copy copies
			if v < 13 {
				var indexed int
				if err := old.reader.QueryRow(`SELECT count(*) FROM context_fts`).Scan(&indexed); err != nil {
					t.Fatal(err)
				}
				want[13] = indexed
			}
			old.Close()

			copied, kills := map[int]int{}, 0
			// run runs a child, killing it at k (or never, for the zero
			// killAt with finish), and reports whether it finished.
			run := func(k killAt, finish bool) (finished bool) {
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
				batches := map[int]int{}
				for sc.Scan() {
					line := sc.Text()
					var m, rows int
					if _, err := fmt.Sscanf(line, "BATCH %d %d", &m, &rows); err == nil {
						copied[m] += rows
						batches[m]++
					}
					switch {
					case strings.HasPrefix(line, "ERR"):
						t.Fatalf("child: %s", line)
					case line == "OPEN":
						return true
					case !finish && (k.migration > 0 && m == k.migration && batches[m] == k.n || k.migration == 0 && line == "VACUUM"):
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
			for _, k := range tc.kills {
				run(k, false)
			}
			if !run(killAt{}, true) {
				t.Fatal("the last run did not finish")
			}
			if kills != len(tc.kills) {
				t.Fatalf("%d kills, want %d (the migration ended before a kill point)", kills, len(tc.kills))
			}
			for m, n := range want {
				if copied[m] != n {
					t.Errorf("migration %d: %d rows copied over the runs for %d: a killed migration started over or skipped some", m, copied[m], n)
				}
			}
			db, err := Open(bg, path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var n int
			var check string
			if err := db.Reader().QueryRow(`SELECT (SELECT user_version FROM pragma_user_version), (SELECT count(*) FROM context)`).Scan(&v, &n); err != nil || v != SchemaVersion() || n != records {
				t.Fatalf("after the kills: schema %d, %d records (%v); want %d, %d", v, n, err, SchemaVersion(), records)
			}
			if err := db.Reader().QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
				t.Fatalf("integrity_check: %q %v", check, err)
			}
			checkFixtureHits(t, db, "testdata/"+tc.fixture+"-hits.json")
		})
	}
}

// TestMigration14CopiesWhatAnOlderRewindWroteMeanwhile: while migration
// 14 copies the context table in steps, an older rewind goes on writing
// the old one between two of its transactions: an append above the copied
// range, an import of older history below it, a new session, and the drop
// of a half-imported session whose ids another session then takes. The
// migration's last transaction copies all of it, and nothing of the
// dropped session stays.
func TestMigration14CopiesWhatAnOlderRewindWroteMeanwhile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "rewind.db")
	old := openAtVersion(t, path, 13)
	legacySession(t, old, "s")
	for i := range 5 {
		legacyRecord(t, old, "s", 0, int64(i+1), fmt.Sprint("before the copy ", i))
	}
	legacySession(t, old, "dropped")
	for i := range 3 {
		legacyRecord(t, old, "dropped", 0, int64(i+1), fmt.Sprint("durian ", i))
	}
	var droppedLo, droppedHi int64
	if err := old.reader.QueryRow(`SELECT min(id), max(id) FROM context WHERE session_id = 'dropped'`).Scan(&droppedLo, &droppedHi); err != nil {
		t.Fatal(err)
	}
	if err := old.copyContext(bg); err != nil {
		t.Fatal(err)
	}
	var copied int
	if err := old.reader.QueryRow(`SELECT count(*) FROM context_v14`).Scan(&copied); err != nil || copied != 8 {
		t.Fatalf("%d rows copied by the steps (%v), want 8", copied, err)
	}
	legacyRecord(t, old, "s", 0, 6, "kumquat above")
	legacyRecord(t, old, "s", -7, 1000, "quince below")
	legacySession(t, old, "new")
	legacyRecord(t, old, "new", 0, 1, "papaya")
	// The older rewind's dropSessions, then a session on a dropped id.
	for _, q := range []string{
		`INSERT INTO search_retired (lo, hi) SELECT min(id), max(id) FROM context WHERE session_id = 'dropped'`,
		`DELETE FROM context WHERE session_id = 'dropped'`,
		`DELETE FROM generations WHERE session_id = 'dropped'`,
		`DELETE FROM sessions WHERE id = 'dropped'`,
	} {
		if _, err := old.writer.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	legacySession(t, old, "reuser")
	legacyRecord(t, old, "reuser", droppedLo+1, 1, "guava")
	old.Close()

	db, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for q, want := range map[string]int{"before": 5, "kumquat": 1, "quince": 1, "papaya": 1, "guava": 1, "durian": 0} {
		if hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: q})); len(hits) != want {
			t.Errorf("search %q: %d hits, want %d", q, len(hits), want)
		}
	}
	var n, stray int
	if err := db.Reader().QueryRow(`SELECT (SELECT count(*) FROM context),
		(SELECT count(*) FROM context WHERE session_key NOT IN (SELECT key FROM sessions))`).Scan(&n, &stray); err != nil || n != 9 || stray != 0 {
		t.Fatalf("%d records, %d of no session (%v); want 9, 0", n, stray, err)
	}
	for sid, want := range map[string]int{"s": 7, "new": 1, "reuser": 1} {
		if v := checkCounters(t, db, sid); len(v.Records) != want {
			t.Errorf("session %s: %d records, want %d", sid, len(v.Records), want)
		}
	}
	var check string
	if err := db.Reader().QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q %v", check, err)
	}
}

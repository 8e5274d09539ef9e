package store

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func openTest(t testing.TB) *DB {
	t.Helper()
	db, err := Open(context.Background(), newDBPath(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newDBPath is the path of a new database in t.TempDir(): a copy of an
// empty one migrated once per test binary. Running every migration for
// each test's database was a third of the package's CPU; the tests of
// creating and migrating a database open a new path themselves.
func newDBPath(t testing.TB) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rewind.db")
	emptyDB.copyTo(t, path)
	return path
}

var emptyDB = &fileFixture{build: func(t testing.TB, path string) {
	db, err := Open(bg, path)
	if err == nil {
		err = db.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
}}

// fileFixture is a database file built once per test binary, by the first
// test that asks for it, and copied for each: storetest.Fixture for the
// store's own tests, which cannot import storetest (it imports store).
type fileFixture struct {
	build func(t testing.TB, path string) // closes the database it built

	once      sync.Once
	file, wal []byte
	err       error
}

func (f *fileFixture) copyTo(t testing.TB, path string) {
	t.Helper()
	f.once.Do(func() {
		f.err = errors.New("the test that built it failed")
		dir, err := os.MkdirTemp("", "rewind-store-fixture")
		if err != nil {
			f.err = err
			return
		}
		defer os.RemoveAll(dir)
		built := filepath.Join(dir, "rewind.db")
		f.build(t, built) // a t.Fatal in it leaves f.err set
		if f.file, f.err = os.ReadFile(built); f.err != nil {
			return
		}
		if wal, err := os.ReadFile(built + "-wal"); err == nil {
			f.wal = wal
		}
	})
	if f.err != nil {
		t.Fatalf("fixture: %v", f.err)
	}
	if err := os.WriteFile(path, f.file, 0o600); err != nil {
		t.Fatal(err)
	}
	if f.wal != nil {
		if err := os.WriteFile(path+"-wal", f.wal, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpenFresh(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "home")
	path := filepath.Join(dir, "rewind.db")
	db, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v, app int
	if err := db.Reader().QueryRow("PRAGMA user_version").Scan(&v); err != nil {
		t.Fatal(err)
	}
	if err := db.Reader().QueryRow("PRAGMA application_id").Scan(&app); err != nil {
		t.Fatal(err)
	}
	if v != SchemaVersion() || app != ApplicationID {
		t.Fatalf("user_version %d application_id %x", v, app)
	}
	var mode string
	if err := db.Reader().QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		t.Fatalf("journal mode %q %v", mode, err)
	}
	var fk, timeout int
	if err := db.Reader().QueryRow("PRAGMA foreign_keys").Scan(&fk); err != nil || fk != 1 {
		t.Fatalf("foreign keys %d %v", fk, err)
	}
	if err := db.Reader().QueryRow("PRAGMA busy_timeout").Scan(&timeout); err != nil || timeout < 5000 {
		t.Fatalf("busy timeout %d %v", timeout, err)
	}
	newSession(t, db, "x", "/w") // makes the -wal file exist
	for p, want := range map[string]os.FileMode{dir: 0o700, path: 0o600, path + "-wal": 0o600} {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != want {
			t.Fatalf("%s mode %v want %v", p, st.Mode().Perm(), want)
		}
	}
	// Reopening an up-to-date database is fine, also while it is open.
	db2, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	db2.Close()
}

func fileSum(t *testing.T, path string) [32]byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return sha256.Sum256(b)
}

// rawExec runs statements on a plain SQLite connection (no rewind DSN).
func rawExec(t *testing.T, path string, stmts ...string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
}

func TestOpenRefuses(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		setup func(t *testing.T, path string)
		want  error
	}{
		{"text file", func(t *testing.T, p string) {
			os.WriteFile(p, []byte("hello, I am not a database\n"), 0o644)
		}, ErrNotDatabase},
		{"short binary file", func(t *testing.T, p string) { os.WriteFile(p, []byte("SQLite"), 0o644) }, ErrNotDatabase},
		{"corrupt sqlite header", func(t *testing.T, p string) {
			b := make([]byte, 4096)
			copy(b, "SQLite format 3\x00")
			os.WriteFile(p, b, 0o644)
		}, ErrNotDatabase},
		{"foreign sqlite database", func(t *testing.T, p string) {
			rawExec(t, p, "CREATE TABLE notes (x TEXT)", "INSERT INTO notes VALUES ('mine')")
		}, ErrNotDatabase},
		{"foreign sqlite in WAL mode", func(t *testing.T, p string) {
			rawExec(t, p, "PRAGMA journal_mode=WAL", "CREATE TABLE notes (x TEXT)")
		}, ErrNotDatabase},
		{"newer schema", func(t *testing.T, p string) {
			db, err := Open(bg, p)
			if err != nil {
				t.Fatal(err)
			}
			newSession(t, db, "x", "/w")
			db.Close()
			rawExec(t, p, "PRAGMA user_version = 999")
		}, ErrNewerSchema},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "rewind.db")
			tc.setup(t, path)
			before := fileSum(t, path)
			db, err := Open(bg, path)
			if err == nil {
				db.Close()
				t.Fatal("opened")
			}
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), path) {
				t.Fatalf("error %v, want %v naming the path", err, tc.want)
			}
			if fileSum(t, path) != before {
				t.Fatal("refused file was modified")
			}
		})
	}
	dir := filepath.Join(t.TempDir(), "d")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(bg, dir); !errors.Is(err, ErrNotDatabase) {
		t.Fatalf("directory: %v", err)
	}
}

// TestMigrateFromEveryVersion builds a database at each older schema
// version (0 = fresh file), puts data in it where the schema allows, and
// opens it with the current code.
func TestMigrateFromEveryVersion(t *testing.T) {
	t.Parallel()
	migs, err := loadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	for from := 0; from < len(migs); from++ {
		t.Run(fmt.Sprintf("v%d", from), func(t *testing.T) {
			t.Parallel()
			old := openAtVersion(t, filepath.Join(t.TempDir(), "rewind.db"), from)
			path := old.Path()
			var sid string
			if from >= 1 { // as that release wrote them: the store's code writes only the current schema
				sid = newID()
				legacySession(t, old, sid)
				for i := range 3 {
					legacyRecord(t, old, sid, 0, int64(i+1), fmt.Sprint("before upgrade ", i))
				}
			}
			old.Close()
			db, err := Open(bg, path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			var v int
			if err := db.Reader().QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != len(migs) {
				t.Fatalf("user_version %d %v", v, err)
			}
			if sid != "" {
				if s := checkCounters(t, db, sid); len(s.Records) != 3 {
					t.Fatalf("data lost in migration: %d records", len(s.Records))
				}
				if hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "upgrade"})); len(hits) != 3 {
					t.Fatalf("%d hits for the records before the upgrade", len(hits))
				}
				turn(t, db, sid, "after", 1)
			}
			turn(t, db, newSession(t, db, "new", "/w").ID, "after", 1)
		})
	}
}

func TestLeases(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	a := newSession(t, db, "a", "/w")
	b := newSession(t, db, "b", "/w")
	if _, err := db.NewestLiveSession(bg); !errors.Is(err, ErrSessionNotFound) {
		t.Fatalf("no lease yet: %v", err)
	}
	l, err := db.AcquireLease(bg, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.AcquireLease(bg, a.ID); !errors.Is(err, ErrLeaseHeld) || !strings.Contains(err.Error(), "pid ") {
		t.Fatalf("second acquire: %v", err)
	}
	// Another process (a second Open) sees the same.
	path := db.Path()
	db2, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	if _, err := db2.AcquireLease(bg, a.ID); !errors.Is(err, ErrLeaseHeld) {
		t.Fatalf("acquire from second DB: %v", err)
	}
	if pid, alive, err := db2.LiveLease(bg, a.ID); err != nil || !alive || pid != os.Getpid() {
		t.Fatalf("live lease %d %v %v", pid, alive, err)
	}
	if pid, alive, err := db2.LiveLease(bg, b.ID); err != nil || alive || pid != 0 {
		t.Fatalf("no lease %d %v %v", pid, alive, err)
	}
	if s, err := db2.NewestLiveSession(bg); err != nil || s.ID != a.ID {
		t.Fatalf("newest live %v %v", s.ID, err)
	}
	if err := l.Release(bg); err != nil {
		t.Fatal(err)
	}
	if _, alive, _ := db.LiveLease(bg, a.ID); alive {
		t.Fatal("released lease alive")
	}
	l2, err := db2.AcquireLease(bg, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	defer l2.Release(bg)

	t.Run("dead pid taken over", func(t *testing.T) {
		cmd := exec.Command("true")
		if err := cmd.Run(); err != nil {
			t.Skip("no true(1):", err)
		}
		dead := cmd.Process.Pid
		ld, err := db.acquireLease(bg, b.ID, dead)
		if err != nil {
			t.Fatal(err)
		}
		ld.Release(bg) // stop its heartbeat; put the dead holder back
		if _, err := db.writer.Exec(`INSERT INTO leases VALUES (?, ?, ?, 'x', ?, ?)`, b.ID, dead, hostname, nowMS(), nowMS()); err != nil {
			t.Fatal(err)
		}
		if pid, alive, _ := db.LiveLease(bg, b.ID); alive || pid != dead {
			t.Fatalf("dead holder reported alive (%d)", pid)
		}
		l, err := db2.AcquireLease(bg, b.ID)
		if err != nil {
			t.Fatalf("dead holder not taken over: %v", err)
		}
		l.Release(bg)
	})
	t.Run("stale heartbeat taken over, fresh remote held", func(t *testing.T) {
		stale := nowMS() - 2*leaseStale.Milliseconds()
		if _, err := db.writer.Exec(`INSERT OR REPLACE INTO leases VALUES (?, 1, 'other-host', 'x', ?, ?)`, b.ID, stale, stale); err != nil {
			t.Fatal(err)
		}
		l, err := db.AcquireLease(bg, b.ID)
		if err != nil {
			t.Fatalf("stale holder not taken over: %v", err)
		}
		l.Release(bg)
		if _, err := db.writer.Exec(`INSERT OR REPLACE INTO leases VALUES (?, 1, 'other-host', 'x', ?, ?)`, b.ID, nowMS(), nowMS()); err != nil {
			t.Fatal(err)
		}
		if _, err := db.AcquireLease(bg, b.ID); !errors.Is(err, ErrLeaseHeld) || !strings.Contains(err.Error(), "other-host") {
			t.Fatalf("fresh remote holder: %v", err)
		}
		db.writer.Exec(`DELETE FROM leases WHERE session_id = ?`, b.ID)
	})
	t.Run("LeaseStale keeps an older heartbeat live", func(t *testing.T) {
		patient, err := OpenWith(bg, path, Options{LeaseStale: 4 * leaseStale})
		if err != nil {
			t.Fatal(err)
		}
		defer patient.Close()
		old := nowMS() - 2*leaseStale.Milliseconds()
		if _, err := db.writer.Exec(`INSERT OR REPLACE INTO leases VALUES (?, 1, 'other-host', 'x', ?, ?)`, b.ID, old, old); err != nil {
			t.Fatal(err)
		}
		defer db.writer.Exec(`DELETE FROM leases WHERE session_id = ?`, b.ID)
		if _, alive, _ := db.LiveLease(bg, b.ID); alive {
			t.Fatal("a heartbeat older than the default staleness is live")
		}
		if _, alive, _ := patient.LiveLease(bg, b.ID); !alive {
			t.Fatal("with LeaseStale four times as long, the holder is not live")
		}
		if _, err := patient.AcquireLease(bg, b.ID); !errors.Is(err, ErrLeaseHeld) {
			t.Fatalf("acquire with LeaseStale: %v, want ErrLeaseHeld", err)
		}
	})
	t.Run("heartbeat and loss", func(t *testing.T) {
		old := db.leaseEvery
		db.leaseEvery = 10 * time.Millisecond
		l, err := db.AcquireLease(bg, b.ID)
		db.leaseEvery = old
		if err != nil {
			t.Fatal(err)
		}
		heartbeat := func() int64 {
			t.Helper()
			var hb int64
			if err := db.Reader().QueryRow(`SELECT heartbeat_at FROM leases WHERE session_id = ?`, b.ID).Scan(&hb); err != nil {
				t.Fatal(err)
			}
			return hb
		}
		first := heartbeat()
		deadline := time.Now().Add(20 * time.Second)
		for {
			if heartbeat() > first {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("heartbeat never advanced")
			}
			time.Sleep(5 * time.Millisecond) // poll: the background goroutine's counters signal nothing
		}
		if _, err := db.writer.Exec(`UPDATE leases SET token = 'thief' WHERE session_id = ?`, b.ID); err != nil {
			t.Fatal(err)
		}
		for l.Err() == nil {
			if time.Now().After(deadline) {
				t.Fatal("lost lease not noticed")
			}
			time.Sleep(5 * time.Millisecond) // poll: the background goroutine's counters signal nothing
		}
		if err := l.Release(bg); err != nil {
			t.Fatal(err)
		}
		select {
		case <-l.done:
		default:
			t.Fatal("heartbeat goroutine still running after Release")
		}
	})
}

// Opening an up-to-date database takes no write lock, so reading commands
// work while another process holds one.
func TestOpenWhileAnotherProcessWrites(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := newDBPath(t)
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := db.CreateSession(ctx, NewSession{Title: "busy elsewhere", WorkDir: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()

	other, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=100")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	conn, err := other.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "ROLLBACK")

	db, err = Open(ctx, path)
	if err != nil {
		t.Fatalf("open while another connection holds the write lock: %v", err)
	}
	defer db.Close()
	list, err := db.ListSessions(ctx, ListOptions{})
	if err != nil || len(list) != 1 || list[0].ID != s.ID {
		t.Fatalf("list while locked = %v, %v", list, err)
	}
}

package peers

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/rewind-agent/rewind/store"
)

// TestFollowImportsEachAppend follows a copy of each fixture that starts
// with its first lines and is appended to a few lines at a time, as the
// agent writes it: each append is in the session soon after (the latency
// is logged; the bound is loose for a loaded machine), the session ends
// as a whole import makes it, and Follow ends once the file is idle and
// its writer gone.
func TestFollowImportsEachAppend(t *testing.T) {
	t.Parallel()
	for _, fx := range []struct{ origin, path string }{fixtures[1], fixtures[4], fixtures[9]} {
		t.Run(filepath.Base(fx.path), func(t *testing.T) {
			t.Parallel()
			// How soon each append shows is BenchmarkFollowAppends's:
			// a bound here failed under load (566 ms for one of two).
			followEachAppend(t, fx)
		})
	}
}

// followEachAppend follows the fixture as it is appended to, three lines
// at a time, and returns how long after each append that grew the session
// it showed in the database.
func followEachAppend(t testing.TB, fx struct{ origin, path string }) []time.Duration {
	whole, err := os.ReadFile(filepath.Join("testdata", fx.path))
	if err != nil {
		t.Fatal(err)
	}
	full := parseFixture(t, fx.origin, fx.path)
	lines := bytes.SplitAfter(whole, []byte("\n"))
	path := filepath.Join(t.TempDir(), filepath.Base(fx.path))
	if err := os.WriteFile(path, bytes.Join(lines[:12], nil), 0o644); err != nil {
		t.Fatal(err)
	}
	db := openDB(t)
	d, _, err := Detect(path)
	if err != nil {
		t.Fatal(err)
	}
	var alive atomic.Bool
	alive.Store(true)
	started := make(chan string, 1)
	grew := make(chan int, 100)
	done := make(chan error, 1)
	go func() {
		done <- Follow(context.Background(), db, d.Sources[0], FollowOptions{
			Started: func(id string) { started <- id },
			Grew:    func(n int) { grew <- n },
			// The writer is alive until the last append: the idle time
			// counts from then, and only ends the wait for it.
			Idle:        50 * time.Millisecond,
			WriterAlive: func(string, string) bool { return alive.Load() },
		})
	}()
	var id string
	select {
	case id = <-started:
	case err := <-done:
		t.Fatalf("Follow ended before it started: %v", err)
	}
	var lat []time.Duration
	for i := 12; i < len(lines); i += 3 {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		end := min(i+3, len(lines))
		// What the session holds once the append is in: the current
		// generation of the lines so far, as an import makes it.
		sofar, err := Parse(bytes.NewReader(bytes.Join(lines[:end], nil)), fx.origin, path, nil)
		if err != nil {
			t.Fatal(err)
		}
		want := len(sofar.Gens[len(sofar.Gens)-1].Records)
		before := viewLen(t, db, id)
		at := time.Now()
		if _, err := f.Write(bytes.Join(lines[i:end], nil)); err != nil {
			t.Fatal(err)
		}
		f.Close()
		for viewLen(t, db, id) != want && time.Since(at) < 5*time.Second {
			select {
			case <-grew:
			case <-time.After(2 * time.Millisecond):
			}
		}
		if got := viewLen(t, db, id); got != want {
			t.Fatalf("%s: after lines %d-%d the session has %d records, want %d", fx.path, i, end, got, want)
		}
		if want != before {
			lat = append(lat, time.Since(at))
		}
	}
	alive.Store(false)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Follow did not end once the file was idle and its writer gone")
	}
	if len(lat) == 0 {
		t.Fatalf("%s: no append grew the session", fx.path)
	}
	gens, err := db.Generations(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if len(gens) != len(full.Gens) || viewLen(t, db, id) != len(full.Gens[len(full.Gens)-1].Records) {
		t.Errorf("%s: followed to %d generations and %d records, want %d and %d as a whole import", fx.path,
			len(gens), viewLen(t, db, id), len(full.Gens), len(full.Gens[len(full.Gens)-1].Records))
	}
	// Sub-agent runs written into the file (Claude Code 1.0) are its
	// sub-agent sessions, as an import makes them.
	kids, err := db.SubagentsOf(context.Background(), []string{id})
	if err != nil {
		t.Fatal(err)
	}
	if len(kids) != len(full.Sidechains) {
		t.Errorf("%s: followed to %d sub-agent sessions, want %d", fx.path, len(kids), len(full.Sidechains))
	}
	for _, k := range kids {
		for _, sc := range full.Sidechains {
			if sc.Side.CallID == k.SubagentCall && viewLen(t, db, k.ID) != len(sc.Gens[len(sc.Gens)-1].Records) {
				t.Errorf("%s: sub-agent %s has %d records, want %d", fx.path, k.Title, viewLen(t, db, k.ID), len(sc.Gens[len(sc.Gens)-1].Records))
			}
		}
	}
	// A later import of the same file finds nothing new.
	res, err := ImportAll(context.Background(), db, d.Sources, Options{})
	if err != nil || res.Unchanged != 1+len(full.Sidechains) {
		t.Errorf("import after following: %+v %v", res, err)
	}
	return lat
}

func viewLen(t testing.TB, db *store.DB, id string) int {
	t.Helper()
	v, err := db.View(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	return len(v.Records)
}

// TestFollowTellsTheStepsBeforeTheSession: Started is told the session's
// id only once Steps has been told the turn's steps, for a file that held
// lines when followed and for one that was empty until its first append.
// `rewind import --follow` prints the id at Started and publishes the steps
// at Steps: a `rewind runs` right after the id showed step 0 while the turn
// under way had answers (TestImportFollow failed so in CI).
func TestFollowTellsTheStepsBeforeTheSession(t *testing.T) {
	t.Parallel()
	whole, err := os.ReadFile(filepath.Join("testdata", fixtures[0].path))
	if err != nil {
		t.Fatal(err)
	}
	first := bytes.Join(bytes.SplitAfter(whole, []byte("\n"))[:20], nil)
	for _, tc := range []struct {
		name          string
		before, after []byte
	}{{"lines before", first, nil}, {"empty before", nil, first}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := filepath.Join(t.TempDir(), filepath.Base(fixtures[0].path))
			if err := os.WriteFile(path, tc.before, 0o644); err != nil {
				t.Fatal(err)
			}
			db := openDB(t)
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var steps atomic.Int64
			steps.Store(-1)
			told := make(chan int64, 1)
			done := make(chan error, 1)
			go func() {
				done <- Follow(ctx, db, Source{Origin: fixtures[0].origin, Path: path, Key: "codex:01a21a5f-0700-7353-89ca-3d07664189fe"}, FollowOptions{
					Started:     func(string) { told <- steps.Load() },
					Steps:       func(n int) { steps.Store(int64(n)) },
					WriterAlive: func(string, string) bool { return true },
				})
			}()
			if tc.after != nil {
				f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				if _, err := f.Write(tc.after); err != nil {
					t.Fatal(err)
				}
				f.Close()
			}
			select {
			case n := <-told:
				if n < 1 {
					t.Errorf("Started was told the session with the steps told so far %d, want the turn's (≥ 1)", n)
				}
			case err := <-done:
				t.Fatalf("Follow ended before it started: %v", err)
			case <-time.After(20 * time.Second):
				t.Fatal("Started was never told")
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}

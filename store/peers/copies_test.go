package peers

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
)

// TestCopiesUnderTwoPaths imports copies of one rollout (same session id)
// from several paths, as a copied ~/.codex holds: the first path imported
// keeps the session; an identical or older copy changes nothing; a copy
// that diverges is skipped and reported once; a copy that extends what
// was imported continues the session and becomes its source. No import
// of a copy adds a generation or changes the work dir.
func TestCopiesUnderTwoPaths(t *testing.T) {
	t.Parallel()
	fx := fixtures[0]
	whole, err := os.ReadFile(filepath.Join("testdata", fx.path))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(whole, []byte("\n"))
	if len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	name := filepath.Base(fx.path)
	dir := t.TempDir()
	write := func(sub string, data []byte) string {
		t.Helper()
		p := filepath.Join(dir, sub, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The imported file ends in the middle of the last turn, whose prompt
	// is 10 lines before the end.
	short := bytes.Join(lines[:len(lines)-4], nil)
	first := write("a", short)
	identical := write("b", short)
	older := write("c", bytes.Join(lines[:len(lines)-14], nil))
	// Another machine's copy: the same start, then another last prompt
	// in another work dir.
	tail := bytes.Join(lines[len(lines)-12:], nil)
	other := bytes.ReplaceAll(tail, []byte("/tmp/peers/fx/work"), []byte("/tmp/elsewhere"))
	other = bytes.ReplaceAll(other, []byte("Thanks, that is all."), []byte("Something else entirely."))
	if bytes.Equal(other, tail) {
		t.Fatal("the diverging copy is the same as the whole file")
	}
	diverging := write("d", append(bytes.Join(lines[:len(lines)-12], nil), other...))
	extends := write("e", whole)

	db := openDB(t)
	var warnings []string
	imp := func(path string) Result {
		t.Helper()
		d, ok, err := Detect(path)
		if err != nil || !ok {
			t.Fatalf("Detect(%s) = %v, %v", path, ok, err)
		}
		res, err := ImportAll(context.Background(), db, d.Sources, Options{Warn: func(w string) { warnings = append(warnings, w) }})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	state := func() (store.Session, int, int) {
		t.Helper()
		list, err := db.ListSessions(context.Background(), store.ListOptions{})
		if err != nil || len(list) != 1 {
			t.Fatalf("sessions %+v, %v: want one", list, err)
		}
		gens, err := db.Generations(context.Background(), list[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		v, err := db.View(context.Background(), list[0].ID)
		if err != nil {
			t.Fatal(err)
		}
		return list[0], len(gens), len(v.Records)
	}
	if res := imp(first); res.Imported != 1 {
		t.Fatalf("first import %+v", res)
	}
	s0, gens0, recs0 := state()
	for round := 0; round < 2; round++ {
		for _, p := range []string{identical, older, diverging, first} {
			res := imp(p)
			if res.Imported != 0 || res.Updated != 0 {
				t.Errorf("round %d, %s: %+v, want nothing imported or updated", round, p, res)
			}
			if want := 0; p == diverging && round == 0 {
				if res.Diverged != 1 {
					t.Errorf("the diverging copy: %+v, want it counted once", res)
				}
			} else if res.Diverged != want {
				t.Errorf("round %d, %s: %+v, want no divergence reported", round, p, res)
			}
			s, gens, recs := state()
			if s.WorkDir != s0.WorkDir || gens != gens0 || recs != recs0 {
				t.Fatalf("round %d after %s: work dir %s, %d generations, %d records; want %s, %d, %d as after the first import",
					round, p, s.WorkDir, gens, recs, s0.WorkDir, gens0, recs0)
			}
		}
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], diverging) || !strings.Contains(warnings[0], first) {
		t.Errorf("warnings %q: want one naming the diverging copy and the path imported", warnings)
	}
	// A copy that holds more than was imported continues the session; the
	// shorter copies are then older ones.
	if res := imp(extends); res.Updated != 1 {
		t.Fatalf("the extending copy: %+v, want the session updated", res)
	}
	s1, gens1, recs1 := state()
	if gens1 != gens0 || recs1 <= recs0 || s1.ID != s0.ID {
		t.Fatalf("after the extending copy: %d generations, %d records, want %d and more than %d", gens1, recs1, gens0, recs0)
	}
	for _, p := range []string{first, identical, older} {
		if res := imp(p); res.Updated != 0 || res.Imported != 0 || res.Diverged != 0 {
			t.Errorf("%s after the extending copy: %+v, want unchanged", p, res)
		}
	}
	if _, gens, recs := state(); gens != gens1 || recs != recs1 {
		t.Errorf("the older copies changed the session: %d generations, %d records", gens, recs)
	}
	// Following a copy that does not extend the session's file would mix
	// the two files: it is refused, naming the file to follow.
	d, _, err := Detect(diverging)
	if err != nil {
		t.Fatal(err)
	}
	err = Follow(context.Background(), db, d.Sources[0], FollowOptions{WriterAlive: func(string, string) bool { return false }})
	var cp *CopyError
	if !errors.As(err, &cp) || cp.Imported != extends || cp.SessionID != s1.ID {
		t.Errorf("following the diverging copy: %v, want a CopyError naming %s", err, extends)
	}
}

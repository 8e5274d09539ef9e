package store

import (
	"fmt"
	"reflect"
	"slices"
	"testing"

	"github.com/rewind-agent/rewind/store/message"
)

// TestSearchFilterPlansAgree: a work dir or session filter driven from the
// filtered sessions' records (planNarrow, what searchNarrow picks for a
// restrictive filter) finds exactly the hits of the match-first plan
// (planJoin), labels included, and those are the unfiltered hits the
// filter keeps; forks (sharing their source's records up to the fork
// point), a compaction, a deleted session and a small limit included.
func TestSearchFilterPlansAgree(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	words := []string{"the wombat digs", "fix the build", "the quokka smiles", "refactor the parser", "wombat build fix"}
	var ids []string
	dirs := map[string]string{} // session -> work dir
	for i := range 40 {
		dir := fmt.Sprintf("/w%d", i%7)
		s := newSession(t, db, fmt.Sprintf("s%d", i), dir)
		ids, dirs[s.ID] = append(ids, s.ID), dir
		for j := range 3 + i%4 {
			must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", fmt.Sprintf("%s %d", words[(i+j)%len(words)], j))))
		}
		switch i % 10 {
		case 3: // a fork at a checkpoint, in another dir, with its own records
			cp := must[int](t)(db.Checkpoint(bg, s.ID, false))
			must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "the wombat after the fork point")))
			f := must[Session](t)(db.ForkSession(bg, s.ID, -1, cp))
			if _, err := db.writer.Exec(`UPDATE sessions SET work_dir = '/forks' WHERE id = ?`, f.ID); err != nil {
				t.Fatal(err)
			}
			must[Record](t)(db.AppendMessage(bg, f.ID, message.NewText("user", "the fork's own wombat build")))
			ids, dirs[f.ID] = append(ids, f.ID), "/forks"
		case 5:
			must[Generation](t)(db.StartCompacted(bg, s.ID, []message.Message{message.NewText("user", "the wombat kept")}, 0, 10, false))
		case 8:
			if err := db.DeleteSession(bg, s.ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	search := func(o SearchOptions, plan int) []SearchHit {
		t.Helper()
		var out []SearchHit
		if err := db.searchEach(bg, o, plan, func(h SearchHit) error { out = append(out, h); return nil }); err != nil {
			t.Fatal(err)
		}
		return out
	}
	checked := 0
	for _, q := range []string{"the", "wombat", "build fix", "the OR quokka", "fi*", "absent"} {
		all := search(SearchOptions{Query: q, Limit: 1000}, planAuto)
		for _, dir := range []string{"/w0", "/w3", "/forks", "/nowhere"} {
			for _, limit := range []int{1000, 3} {
				o := SearchOptions{Query: q, WorkDir: dir, Limit: limit}
				narrow, join := search(o, planNarrow), search(o, planJoin)
				if !reflect.DeepEqual(narrow, join) {
					t.Errorf("%q in %s, limit %d: narrow plan\n%+v\njoin plan\n%+v", q, dir, limit, narrow, join)
				}
				want := slices.DeleteFunc(slices.Clone(all), func(h SearchHit) bool { return dirs[h.RecordSession] != dir })
				if len(want) > limit {
					want = want[:limit]
				}
				if !reflect.DeepEqual(narrow, want) && !(len(narrow) == 0 && len(want) == 0) {
					t.Errorf("%q in %s, limit %d: %+v, want the unfiltered hits of the dir %+v", q, dir, limit, narrow, want)
				}
				checked += len(narrow)
			}
		}
		for _, id := range ids {
			o := SearchOptions{Query: q, SessionID: id, Limit: 1000}
			narrow, join := search(o, planNarrow), search(o, planJoin)
			if !reflect.DeepEqual(narrow, join) {
				t.Errorf("%q in session %s: narrow plan\n%+v\njoin plan\n%+v", q, id, narrow, join)
			}
			var want []ViewPos
			for _, h := range all {
				if h.SessionID == id || slices.Contains(h.AlsoIn, id) {
					want = append(want, h.Pos())
				}
			}
			var got []ViewPos
			for _, h := range narrow {
				got = append(got, h.Pos())
				if h.SessionID != id {
					t.Errorf("%q in session %s: hit listed under %s", q, id, h.SessionID)
				}
			}
			if !slices.Equal(got, want) {
				t.Errorf("%q in session %s: hits at %v, want the unfiltered ones it shows %v", q, id, got, want)
			}
			checked += len(narrow)
		}
	}
	if checked < 100 {
		t.Fatalf("only %d filtered hits compared", checked)
	}
}

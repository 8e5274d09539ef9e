package store

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestMigrateSchemaV2Fixture opens a database written by the released
// schema 2 (testdata/schema-v2.db: a session with three turns reverted to
// checkpoint 2, a fork of it at checkpoint 1 with a message of its own, a
// deleted session, an imported kimi session with a system prompt) and
// checks that every migration since keeps it whole and usable.
func TestMigrateSchemaV2Fixture(t *testing.T) {
	t.Parallel()
	db := openFixture(t, "testdata/schema-v2.db")
	list := must[[]Session](t)(db.ListSessions(bg, ListOptions{IncludeDeleted: true}))
	if len(list) != 4 {
		t.Fatalf("%d sessions, want 4", len(list))
	}
	byTitle := map[string][]Session{}
	for _, s := range list {
		byTitle[s.Title] = append(byTitle[s.Title], s)
		checkCounters(t, db, s.ID)
	}
	if len(byTitle["parser rewrite"]) != 2 || len(byTitle["imported"]) != 1 || !byTitle["deleted one"][0].Deleted {
		t.Fatalf("sessions after migration: %+v", list)
	}
	// The index keeps its doclists newest first (0006), so a newest-first
	// search reads only as far as its LIMIT.
	var ddl string
	if err := db.Reader().QueryRow("SELECT sql FROM sqlite_master WHERE name = 'context_fts'").Scan(&ddl); err != nil || !strings.Contains(ddl, "order=DESC") {
		t.Errorf("context_fts is %q (%v), want order=DESC", ddl, err)
	}
	// The rebuilt index answers words and the new prefix index.
	for q, want := range map[string]int{"quokka": 3, "quo*": 3, "lookahead": 2, "wombat": 1, "zebra": 0, "ch*": 2} {
		hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: q}))
		if len(hits) != want {
			t.Errorf("search %q: %d hits, want %d: %+v", q, len(hits), want, hits)
		}
	}
	// A shared record names the fork.
	hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "lookahead"}))
	if len(hits) == 2 && len(hits[0].AlsoIn) != 1 {
		t.Errorf("the record the fork shares names %v", hits[0].AlsoIn)
	}
	// And it takes writes.
	s := byTitle["imported"][0]
	turn(t, db, s.ID, "after the upgrade, quokka again", 5)
	if hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "quokka"})); len(hits) != 6 { // the user message, the tool call and its result
		t.Errorf("after a write: %d hits", len(hits))
	}
}

// TestOpenSchemaV7Fixture opens a database written by the released schema
// 7 (testdata/schema-v7.db, written through the store API of that
// release: a session with three turns, a recorded Shell edit, a revert to
// checkpoint 2 in the rewind log and a kept interrupted answer; its fork
// at checkpoint 1 with a turn of its own; a compacted session; a cleared
// one; a deleted one; a kimi-cli import with its import record; input
// history) and checks that it opens, migrated to the current schema, with
// every part readable, and takes writes: migration 0008 and every later one
// run against it.
func TestOpenSchemaV7Fixture(t *testing.T) {
	t.Parallel()
	db := openFixture(t, "testdata/schema-v7.db")
	list := must[[]Session](t)(db.ListSessions(bg, ListOptions{IncludeDeleted: true}))
	byTitle := map[string][]Session{}
	for _, s := range list {
		byTitle[s.Title] = append(byTitle[s.Title], s)
		checkCounters(t, db, s.ID)
	}
	if len(list) != 6 || len(byTitle["parser rewrite"]) != 2 || !byTitle["deleted one"][0].Deleted {
		t.Fatalf("sessions: %+v", list)
	}
	causes := func(id string) (out []Cause) {
		for _, g := range must[[]Generation](t)(db.Generations(bg, id)) {
			out = append(out, g.Cause)
		}
		return out
	}
	var a, fork Session
	for _, s := range byTitle["parser rewrite"] {
		if s.ForkOf != "" {
			fork = s
		} else {
			a = s
		}
	}
	if got := causes(a.ID); !slices.Contains(got, CauseRevert) || !slices.Contains(got, CauseInterrupt) {
		t.Errorf("the reverted session's generations: %v", got)
	}
	if got := causes(byTitle["compacted"][0].ID); !slices.Contains(got, CauseCompact) {
		t.Errorf("the compacted session's generations: %v", got)
	}
	if got := causes(byTitle["cleared"][0].ID); !slices.Contains(got, CauseClear) {
		t.Errorf("the cleared session's generations: %v", got)
	}
	if r, err := db.LastRewind(bg, a.ID, 0); err != nil || r.Op != "revert" || r.FilesUndo == 0 {
		t.Errorf("the rewind log: %+v, %v", r, err)
	}
	if ev := must[[]FileEvent](t)(db.FileEvents(bg, a.ID, 0)); len(ev) != 1 || ev[0].Path != "main.go" {
		t.Errorf("file events: %+v", ev)
	} else if b, err := db.Blob(bg, ev[0].After.Hash); err != nil || string(b) != "package main\n" {
		t.Errorf("the edit's content: %q, %v", b, err)
	}
	if h := must[[]string](t)(db.InputHistory(bg, "/w/parser", 10)); len(h) != 2 {
		t.Errorf("input history: %q", h)
	}
	if k, ok, err := db.LookupKimiImport(bg, "uuid-kimi-1"); err != nil || !ok || k.SessionID != byTitle["imported"][0].ID {
		t.Errorf("the kimi import record: %+v, %v, %v", k, ok, err)
	}
	// deploy: the prompt, its Shell call and result, and the compaction summary.
	for q, want := range map[string]int{"zebra": 3, "wombats": 1, "quokkas": 1, "deploy": 4} {
		if hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: q})); len(hits) != want {
			t.Errorf("search %q: %d hits, want %d", q, len(hits), want)
		}
	}
	turn(t, db, fork.ID, "after the upgrade", 70)
	if hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "upgrade"})); len(hits) != 3 {
		t.Errorf("after a write: %d hits for the new turn, want 3", len(hits))
	}
}

// openFixture opens a copy of a fixture database and checks it was
// migrated to the current schema.
func openFixture(t *testing.T, name string) *DB {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "rewind.db")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := Open(bg, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	var v int
	if err := db.Reader().QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != SchemaVersion() {
		t.Fatalf("%s: user_version %d (%v), want %d", name, v, err, SchemaVersion())
	}
	return db
}

// TestMigrateSchemaV12Fixture opens a database written by the released
// schema 12 (testdata/schema-v12.db: sessions with 30 and 20 turns of
// mixed words, accents, punctuation and long answers, a revert, a fork, a
// kimi-cli import with its system prompt, a deleted session) whose search
// index held its own copy of the text, and checks that migration 13 (the
// contentless index) finds the same hits with the same snippets as that
// release did (testdata/schema-v12-hits.json, written by it: every query's
// hits, labels and snippets; testdata/schema-v12-gen.go.txt wrote both),
// and that the file was compacted.
func TestMigrateSchemaV12Fixture(t *testing.T) {
	t.Parallel()
	db := openFixture(t, "testdata/schema-v12.db")
	var ddl string
	if err := db.Reader().QueryRow("SELECT sql FROM sqlite_master WHERE name = 'context_fts'").Scan(&ddl); err != nil ||
		!strings.Contains(ddl, `content=""`) || !strings.Contains(ddl, "order=DESC") || !strings.Contains(ddl, `prefix="2,3"`) {
		t.Errorf("context_fts is %q (%v), want contentless, order=DESC, prefix 2,3", ddl, err)
	}
	for _, gone := range []string{"context_fts_content", "context_fts_v13", "search_copy", "reclaim_pending"} {
		var n int
		if err := db.Reader().QueryRow("SELECT count(*) FROM sqlite_master WHERE name = ?", gone).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s still there (%v)", gone, err)
		}
	}
	var free int64
	if err := db.Reader().QueryRow("PRAGMA freelist_count").Scan(&free); err != nil || free > 1024 {
		t.Errorf("%d free pages after the migration (%v)", free, err)
	}
	checkFixtureHits(t, db, "testdata/schema-v12-hits.json")
	// And it takes writes, found by the new index.
	s := must[[]Session](t)(db.ListSessions(bg, ListOptions{}))[0]
	turn(t, db, s.ID, "after the upgrade, a wombat", 9000)
	if hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "wombat"})); len(hits) != 3 || hits[0].Snippet != "out after the upgrade, a «wombat»" {
		t.Errorf("after a write: %+v", hits)
	}
}

// checkFixtureHits runs every query of a fixture's hits file (written by
// the release that wrote the fixture: its labels and snippets) and
// compares the hits.
func checkFixtureHits(t *testing.T, db *DB, name string) {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][]SearchHit
	if err := json.Unmarshal(data, &want); err != nil {
		t.Fatal(err)
	}
	if len(want) < 20 {
		t.Fatalf("%d queries in the fixture", len(want))
	}
	for key, hits := range want {
		var o SearchOptions
		if _, err := fmt.Sscanf(key, "%q in %q %q", &o.Query, &o.WorkDir, &o.SessionID); err != nil {
			t.Fatalf("key %s: %v", key, err)
		}
		o.Limit = 40
		if key == `"the" in "" ""` {
			o.Limit = 10
		}
		got := must[[]SearchHit](t)(db.Search(bg, o))
		if len(got) != len(hits) {
			t.Errorf("%s: %d hits, want %d", key, len(got), len(hits))
			continue
		}
		for i := range hits {
			g, _ := json.Marshal(got[i])
			w, _ := json.Marshal(hits[i])
			if string(g) != string(w) {
				t.Errorf("%s: hit %d\n got %s\nwant %s", key, i, g, w)
				break
			}
		}
	}
}

// TestMigrateSchemaV13Fixture opens a database written by the released
// schema 13 (testdata/schema-v13.db: schema 12's fixture and a sub-agent
// session, a session started with an agent, a 150-turn session, and a
// large import that failed half-way, its ids retired; written through
// that release's store by testdata/schema-v13-gen.go.txt), and checks that
// migration 14 (records keyed by the session's integer key) keeps every
// record and finds the same hits with the same snippets as that release
// (testdata/schema-v13-hits.json), and that the file was compacted.
func TestMigrateSchemaV13Fixture(t *testing.T) {
	t.Parallel()
	db := openFixture(t, "testdata/schema-v13.db")
	var ddl string
	if err := db.Reader().QueryRow("SELECT sql FROM sqlite_master WHERE name = 'context'").Scan(&ddl); err != nil ||
		!strings.Contains(ddl, "session_key") || strings.Contains(ddl, "session_id") {
		t.Errorf("context is %q (%v), want session_key and no session_id", ddl, err)
	}
	for _, gone := range []string{"context_v14", "context_copy", "reclaim_pending"} {
		var n int
		if err := db.Reader().QueryRow("SELECT count(*) FROM sqlite_master WHERE name = ?", gone).Scan(&n); err != nil || n != 0 {
			t.Errorf("%s still there (%v)", gone, err)
		}
	}
	var free, records, keyless int64
	if err := db.Reader().QueryRow(`SELECT (SELECT freelist_count FROM pragma_freelist_count), (SELECT count(*) FROM context),
		(SELECT count(*) FROM sessions WHERE key IS NULL)`).Scan(&free, &records, &keyless); err != nil || free > 1024 || records != 1246 || keyless != 0 {
		t.Errorf("after the migration: %d free pages, %d records, %d sessions without a key (%v); want ≤ 1024, 1246, 0", free, records, keyless, err)
	}
	checkFixtureHits(t, db, "testdata/schema-v13-hits.json")
	byTitle := map[string]Session{}
	for _, s := range must[[]Session](t)(db.ListSessions(bg, ListOptions{IncludeDeleted: true, Subagents: true})) {
		byTitle[s.Title] = s
		checkCounters(t, db, s.ID)
	}
	if sub := byTitle["sub"]; sub.SubagentOf != byTitle["parser rewrite"].ID || sub.SubagentType != "coder" {
		t.Errorf("the sub-agent session: %+v", sub)
	}
	if agent := must[string](t)(db.SessionAgent(bg, byTitle["with agent"].ID)); agent != "okabe" {
		t.Errorf("agent %q", agent)
	}
	if v := must[View](t)(db.View(bg, byTitle["with agent"].ID)); len(v.Records) != 150*6 { // a turn: checkpoint, its marker, prompt, answer, usage, result
		t.Errorf("the long session has %d records, want %d", len(v.Records), 150*6)
	}
	// A fork cut at a checkpoint still names it (read through the key).
	for _, s := range byTitle {
		if s.ForkOf != "" && s.ForkCheckpoint != 10 {
			t.Errorf("fork %s: checkpoint %d, want 10", s.ID, s.ForkCheckpoint)
		}
	}
	// It takes writes: a new session gets the next key.
	s := newSession(t, db, "after", "/w")
	turn(t, db, s.ID, "after the upgrade, a wombat", 9000)
	var key, top int64
	if err := db.Reader().QueryRow(`SELECT key, (SELECT max(key) FROM sessions WHERE id <> ?) FROM sessions WHERE id = ?`, s.ID, s.ID).Scan(&key, &top); err != nil || key != top+1 {
		t.Errorf("the new session's key %d after %d (%v)", key, top, err)
	}
	if hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "wombat"})); len(hits) != 3 || hits[0].Snippet != "out after the upgrade, a «wombat»" {
		t.Errorf("after a write: %+v", hits)
	}
}

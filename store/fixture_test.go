package store

import (
	"os"
	"path/filepath"
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
	data, err := os.ReadFile("testdata/schema-v2.db")
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
	defer db.Close()
	var v int
	if err := db.Reader().QueryRow("PRAGMA user_version").Scan(&v); err != nil || v != SchemaVersion() {
		t.Fatalf("user_version %d (%v), want %d", v, err, SchemaVersion())
	}
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

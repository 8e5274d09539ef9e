package store

import (
	"encoding/json"
	"testing"

	"github.com/rewind-agent/rewind/store/message"
)

// TestSearchSkipsMetadataRoles: an imported kimi system prompt (role
// "_system_prompt") stays in its view but is not indexed, and one indexed
// by an older rewind is not found either.
func TestSearchSkipsMetadataRoles(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	body := func(m message.Message) json.RawMessage { b, _ := json.Marshal(m); return b }
	prompt := message.NewText("_system_prompt", "You are a wombat agent.")
	s := must[Session](t)(db.ImportSession(bg, NewSession{Title: "imp"}, []ImportedGeneration{{Records: []Record{
		{Kind: KindMessage, Body: body(prompt)},
		{Kind: KindMessage, Body: body(message.NewText("user", "tell me about the wombat"))},
	}}}))
	must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("_system_prompt", "appended wombat prompt")))
	v := checkCounters(t, db, s.ID)
	if len(v.Records) != 3 || v.Records[0].Role != "_system_prompt" {
		t.Fatalf("view %+v", v.Records)
	}
	if n := countRows(t, db, "context_fts_docsize"); n != 1 {
		t.Fatalf("%d rows indexed, want 1 (the user message)", n)
	}
	hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "wombat"}))
	if len(hits) != 1 || hits[0].Role != "user" || hits[0].Seq != 2 {
		t.Fatalf("hits %+v", hits)
	}

	// As an older rewind indexed it.
	if _, err := db.writer.Exec(`INSERT INTO context_fts (docid, text)
		SELECT id, 'You are a wombat agent.' FROM context WHERE session_key = (SELECT key FROM sessions WHERE id = ?) AND seq = 1`, s.ID); err != nil {
		t.Fatal(err)
	}
	if hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "wombat agent"})); len(hits) != 0 {
		t.Fatalf("system prompt found: %+v", hits)
	}
}

// TestWorkDirFilterIgnoresATrailingSlash: a work dir filter is the same
// dir with or without a trailing slash or a "." in it, in the search and in
// the session list (`rewind search build --work-dir /home/dev/project48/`
// found nothing).
func TestWorkDirFilterIgnoresATrailingSlash(t *testing.T) {
	t.Parallel()
	db := openTest(t)
	s := must[Session](t)(db.CreateSession(bg, NewSession{Title: "dir", WorkDir: "/home/dev/project48"}))
	must[Record](t)(db.AppendMessage(bg, s.ID, message.NewText("user", "build the kumquat")))
	for _, dir := range []string{"/home/dev/project48", "/home/dev/project48/", "/home/dev/./project48"} {
		if hits := must[[]SearchHit](t)(db.Search(bg, SearchOptions{Query: "kumquat", WorkDir: dir})); len(hits) != 1 {
			t.Errorf("search in %s: %d hits, want 1", dir, len(hits))
		}
		if list := must[[]Session](t)(db.ListSessions(bg, ListOptions{WorkDir: dir})); len(list) != 1 {
			t.Errorf("sessions of %s: %d, want 1", dir, len(list))
		}
	}
}

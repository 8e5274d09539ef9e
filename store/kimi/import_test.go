package kimi

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store/message"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

func openDB(t *testing.T) *store.DB {
	t.Helper()
	db := storetest.Open(t)
	return db
}

func export(t *testing.T, db *store.DB, id string, gen int) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := Export(context.Background(), db, id, gen, "", &b); err != nil {
		t.Fatalf("export %s gen %d: %v", id, gen, err)
	}
	return b.Bytes()
}

func listIDs(t *testing.T, db *store.DB) []string {
	t.Helper()
	ss, err := db.ListSessions(context.Background(), store.ListOptions{IncludeDeleted: true})
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(ss))
	for i, s := range ss {
		ids[i] = s.ID
	}
	sort.Strings(ids)
	return ids
}

func TestImportExportSingleFile(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	path := filepath.Join("testdata", "single", "context.jsonl")
	s, err := ImportPath(ctx, db, path, "/home/me/parser")
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != "Fix the failing test in parser_test.go" || s.WorkDir != "/home/me/parser" {
		t.Errorf("session title %q work dir %q", s.Title, s.WorkDir)
	}
	if s.CurrentGen != 0 || s.Tokens != 7345 || s.Checkpoints != 4 {
		t.Errorf("session counters: gen %d tokens %d checkpoints %d", s.CurrentGen, s.Tokens, s.Checkpoints)
	}
	gens, err := db.Generations(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(gens) != 1 || gens[0].Cause != store.CauseImport || gens[0].Archived() {
		t.Errorf("generations = %+v", gens)
	}
	want := readFile(t, path)
	assertSameContext(t, export(t, db, s.ID, -1), want, "current")
	assertSameContext(t, export(t, db, s.ID, 0), want, "gen 0")

	// The view holds the system prompt as its first record; the model-facing
	// messages are the rest.
	v, err := db.View(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Records) == 0 || v.Records[0].Role != RoleSystemPrompt {
		t.Fatalf("first record = %+v", v.Records)
	}
	msgs := v.Messages()
	if msgs[0].Role != RoleSystemPrompt || msgs[1].Role != "user" {
		t.Errorf("messages start %q, %q", msgs[0].Role, msgs[1].Role)
	}
}

func TestImportRevertKeepsKimiSemantics(t *testing.T) {
	t.Parallel()
	// Reverting an imported session to checkpoint N leaves what kimi-cli's
	// revert_to(N) leaves: the lines before the checkpoint-N line.
	ctx := context.Background()
	db := openDB(t)
	path := filepath.Join("testdata", "single", "context.jsonl")
	s, err := ImportPath(ctx, db, path, "/w")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.RevertTo(ctx, s.ID, 2, store.CauseRevert, ""); err != nil {
		t.Fatal(err)
	}
	lines := nonBlankLines(readFile(t, path))
	var prefix []byte
	for _, l := range lines {
		if canon(t, l) == `{"id":2,"role":"_checkpoint"}` {
			break
		}
		prefix = append(append(prefix, l...), '\n')
	}
	if len(nonBlankLines(prefix)) != 8 {
		t.Fatalf("fixture changed: prefix has %d lines", len(nonBlankLines(prefix)))
	}
	assertSameContext(t, export(t, db, s.ID, -1), prefix, "after revert")
	// The imported generation is kept whole.
	assertSameContext(t, export(t, db, s.ID, 0), readFile(t, path), "archived gen 0")
}

func TestImportSessionDirRotationOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	dir := filepath.Join("testdata", "session")
	s, err := ImportPath(ctx, db, dir, "/home/me/hello")
	if err != nil {
		t.Fatal(err)
	}
	if s.Title != "Write a hello world program in Go, in main.go" {
		t.Errorf("title %q (want the first user message of the oldest file)", s.Title)
	}
	gens, err := db.Generations(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(gens) != 3 || s.CurrentGen != 2 {
		t.Fatalf("%d generations, current %d", len(gens), s.CurrentGen)
	}
	files := []string{"context_1.jsonl", "context_2.jsonl", "context.jsonl"}
	for i, g := range gens {
		if g.Gen != i || g.Cause != store.CauseImport || g.Archived() != (i < 2) {
			t.Errorf("generation %d = %+v", i, g)
		}
		assertSameContext(t, export(t, db, s.ID, g.Gen), readFile(t, filepath.Join(dir, files[i])), files[i])
	}
	assertSameContext(t, export(t, db, s.ID, -1), readFile(t, filepath.Join(dir, "context.jsonl")), "current")
	if s.Tokens != 812 {
		t.Errorf("tokens %d, want the current file's 812", s.Tokens)
	}

	// The whole session exports back as the same directory.
	out := filepath.Join(t.TempDir(), "kimi-session")
	if _, err := ExportSession(ctx, db, s.ID, out, "", nil); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(out)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "context.jsonl context_1.jsonl context_2.jsonl" {
		t.Fatalf("exported files %v", names)
	}
	for _, n := range names {
		assertSameContext(t, readFile(t, filepath.Join(out, n)), readFile(t, filepath.Join(dir, n)), "dir "+n)
	}
	// It never overwrites.
	if _, err := ExportSession(ctx, db, s.ID, out, "", nil); err == nil || !strings.Contains(err.Error(), "already exists") {
		t.Errorf("second export into the same dir: %v", err)
	}
	// And the exported directory imports again to the same session.
	s2, err := ImportPath(ctx, db, out, "/w")
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range files {
		assertSameContext(t, export(t, db, s2.ID, i), readFile(t, filepath.Join(dir, n)), "re-import "+n)
	}
}

func TestImportSessionDirNumericOrder(t *testing.T) {
	t.Parallel()
	// context_10 is newer than context_2: numbers sort as numbers, gaps are fine.
	ctx := context.Background()
	db := openDB(t)
	dir := t.TempDir()
	write := func(name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("context_10.jsonl", `{"role":"user","content":"third"}`+"\n")
	write("context_2.jsonl", `{"role":"user","content":"second"}`+"\n")
	write("context_1.jsonl", `{"role":"user","content":"first"}`+"\n")
	write("context.jsonl", `{"role":"user","content":"current"}`+"\n")
	write("context_x.jsonl", "not json")
	write("context_0.jsonl", "not json")
	write("wire.jsonl", "not json")
	write("context.jsonl.bak", "not json")
	if err := os.Mkdir(filepath.Join(dir, "context_3.jsonl"), 0o700); err != nil {
		t.Fatal(err)
	}
	s, err := ImportPath(ctx, db, dir, "/w")
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"first", "second", "third", "current"} {
		got := export(t, db, s.ID, i)
		if string(got) != `{"role":"user","content":"`+want+`"}`+"\n" {
			t.Errorf("generation %d = %s, want %s", i, got, want)
		}
	}
	if s.Title != "first" || s.CurrentGen != 3 {
		t.Errorf("title %q current %d", s.Title, s.CurrentGen)
	}
}

func TestImportClearedSession(t *testing.T) {
	t.Parallel()
	// kimi-cli leaves an empty context.jsonl after /clear: an empty current
	// generation, the rotated file archived.
	ctx := context.Background()
	db := openDB(t)
	dir := filepath.Join("testdata", "cleared")
	s, err := ImportPath(ctx, db, dir, "/w")
	if err != nil {
		t.Fatal(err)
	}
	if s.CurrentGen != 1 || s.Messages != 0 || s.Tokens != 0 || s.Title != "Write a hello world program in Go, in main.go" {
		t.Errorf("session %+v", s)
	}
	if got := export(t, db, s.ID, -1); len(got) != 0 {
		t.Errorf("current generation exported %q, want nothing", got)
	}
	assertSameContext(t, export(t, db, s.ID, 0), readFile(t, filepath.Join(dir, "context_1.jsonl")), "archived")
}

func TestImportErrorsImportNothing(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	if _, err := ImportPath(ctx, db, filepath.Join("testdata", "session"), "/w"); err != nil {
		t.Fatal(err)
	}
	before := listIDs(t, db)
	noCtx := t.TempDir()
	if err := os.WriteFile(filepath.Join(noCtx, "context_1.jsonl"), []byte(`{"role":"user","content":"a"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	emptyDir := t.TempDir()
	for _, n := range []string{"context.jsonl", "context_1.jsonl"} {
		if err := os.WriteFile(filepath.Join(emptyDir, n), []byte("\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	mal := filepath.Join("testdata", "malformed")
	cases := []struct {
		path string
		want string // the error starts "import: " and contains this
		line int    // > 0: a *LineError at this line
	}{
		{filepath.Join(mal, "bad_json.jsonl"), filepath.Join(mal, "bad_json.jsonl") + ":4: invalid JSON", 4},
		{filepath.Join(mal, "array_line.jsonl"), filepath.Join(mal, "array_line.jsonl") + ":3: want a JSON object, got an array", 3},
		{filepath.Join(mal, "no_role.jsonl"), filepath.Join(mal, "no_role.jsonl") + `:2: no "role" field`, 2},
		{filepath.Join(mal, "bad_checkpoint.jsonl"), filepath.Join(mal, "bad_checkpoint.jsonl") + ":3: _checkpoint:", 3},
		{filepath.Join(mal, "bad_content.jsonl"), filepath.Join(mal, "bad_content.jsonl") + ":1: user message: content", 1},
		// a bad rotated file fails the whole directory, after the good ones parsed
		{filepath.Join(mal, "bad_session"), filepath.Join(mal, "bad_session", "context_2.jsonl") + ":3: invalid JSON", 3},
		{filepath.Join(mal, "empty.jsonl"), filepath.Join(mal, "empty.jsonl") + ": nothing to import", 0},
		{emptyDir, emptyDir + ": nothing to import", 0},
		{filepath.Join(mal, "missing.jsonl"), filepath.Join(mal, "missing.jsonl") + ": no such file or directory", 0},
		{noCtx, noCtx + ": no context.jsonl in the directory", 0},
	}
	for _, c := range cases {
		s, err := ImportPath(ctx, db, c.path, "/w")
		if err == nil {
			t.Errorf("%s: imported %+v, want an error", c.path, s)
			continue
		}
		if !strings.HasPrefix(err.Error(), "import: ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %q, want it to contain %q", c.path, err, c.want)
		}
		var le *LineError
		if got := errors.As(err, &le); got != (c.line > 0) || (got && le.Line != c.line) {
			t.Errorf("%s: LineError %v (%+v), want line %d", c.path, got, le, c.line)
		}
		if after := listIDs(t, db); strings.Join(after, ",") != strings.Join(before, ",") {
			t.Errorf("%s: sessions changed from %v to %v", c.path, before, after)
		}
	}
}

func TestExportNativeSession(t *testing.T) {
	t.Parallel()
	// A session rewind wrote itself exports in kimi-cli's format and parses back.
	ctx := context.Background()
	db := openDB(t)
	s, err := db.CreateSession(ctx, store.NewSession{Title: "native", WorkDir: "/w"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Checkpoint(ctx, s.ID, false); err != nil {
		t.Fatal(err)
	}
	if _, err := db.AppendMessage(ctx, s.ID, message.NewText("user", "list files")); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Checkpoint(ctx, s.ID, true); err != nil {
		t.Fatal(err)
	}
	step := store.Step{
		Assistant: message.Message{Role: "assistant", Content: message.Content{Parts: []message.Part{{Type: "think", Think: "ls"}, {Type: "text", Text: "Listing."}}},
			ToolCalls: []message.ToolCall{{ID: "c1", Type: "function", Name: "ListDir", Args: `{"path":"."}`}}},
		ToolResults: []message.Message{{Role: "tool", Content: message.TextContent("a.go\nb.go"), ToolCallID: "c1"}},
		TokenCount:  321,
	}
	if _, err := db.CommitStep(ctx, s.ID, step); err != nil {
		t.Fatal(err)
	}
	got := export(t, db, s.ID, -1)
	want := strings.Join([]string{
		`{"role":"_checkpoint","id":0}`,
		`{"role":"user","content":"list files"}`,
		`{"role":"_checkpoint","id":1}`,
		`{"role":"user","content":"<system>CHECKPOINT 1</system>"}`,
		`{"role":"assistant","content":[{"type":"think","think":"ls"},{"type":"text","text":"Listing."}],"tool_calls":[{"type":"function","id":"c1","function":{"name":"ListDir","arguments":"{\"path\":\".\"}"}}]}`,
		`{"role":"_usage","token_count":321}`,
		`{"role":"tool","content":"a.go\nb.go","tool_call_id":"c1"}`,
	}, "\n") + "\n"
	assertSameContext(t, got, []byte(want), "native")

	// Export → import → export is stable.
	p := filepath.Join(t.TempDir(), "context.jsonl")
	if err := os.WriteFile(p, got, 0o600); err != nil {
		t.Fatal(err)
	}
	s2, err := ImportPath(ctx, db, p, "/w")
	if err != nil {
		t.Fatal(err)
	}
	if again := export(t, db, s2.ID, -1); !bytes.Equal(again, got) {
		t.Errorf("re-export differs\n got: %s\nwant: %s", again, got)
	}
	if s2.Title != "list files" {
		t.Errorf("title %q", s2.Title)
	}
}

func TestExportUnknownSessionOrGeneration(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db := openDB(t)
	var b bytes.Buffer
	if err := Export(ctx, db, "nope", -1, "", &b); !errors.Is(err, store.ErrSessionNotFound) {
		t.Errorf("unknown session: %v", err)
	}
	s, err := ImportPath(ctx, db, filepath.Join("testdata", "single", "context.jsonl"), "/w")
	if err != nil {
		t.Fatal(err)
	}
	if err := Export(ctx, db, s.ID, 5, "", &b); !errors.Is(err, store.ErrGenerationNotFound) {
		t.Errorf("unknown generation: %v", err)
	}
	if b.Len() != 0 {
		t.Errorf("wrote %q on error", b.String())
	}
}

package peers

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/message"
	"github.com/rewind-agent/rewind/store/storetest"
)

func openDB(t testing.TB) *store.DB {
	t.Helper()
	return storetest.Open(t)
}

func importPath(t *testing.T, db *store.DB, path string) Result {
	t.Helper()
	d, ok, err := Detect(path)
	if err != nil || !ok {
		t.Fatalf("Detect(%s) = %v, %v", path, ok, err)
	}
	res, err := ImportAll(context.Background(), db, d.Sources, Options{WorkDir: "/fallback", Warn: func(w string) { t.Logf("warning: %s", w) }})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func sessionsByTitle(t *testing.T, db *store.DB) map[string]store.Session {
	t.Helper()
	list, err := db.ListSessions(context.Background(), store.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]store.Session{}
	for _, s := range list {
		out[s.Title] = s
	}
	return out
}

func viewMessages(t *testing.T, db *store.DB, id string) []message.Message {
	t.Helper()
	v, err := db.View(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	var out []message.Message
	for _, r := range v.Records {
		if r.Kind == store.KindMessage {
			m, err := r.Message()
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, m)
		}
	}
	return out
}

// TestImportCodexHome imports the codex fixtures' home: three sessions,
// their work dir, model, resumed turns in one session, failed calls,
// reasoning, usage, and the auto-compaction as a compact generation over
// the archived one.
func TestImportCodexHome(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	res := importPath(t, db, "testdata/codex-home")
	if res.Imported != 3 || res.Unknown != 0 || res.Torn != 0 {
		t.Fatalf("result %+v, want 3 imported", res)
	}
	byTitle := sessionsByTitle(t, db)
	s, ok := byTitle["Write a file and list the dir."]
	if !ok {
		t.Fatalf("no exec session among %v", byTitle)
	}
	if s.WorkDir != "/tmp/peers/fx/work" || s.Model != "fake-model" || s.Origin != store.OriginCodex || !s.Imported {
		t.Errorf("session %+v: want work dir, model and origin codex", s)
	}
	if s.Checkpoints != 3 {
		t.Errorf("%d turns, want 3 (exec and two exec resume)", s.Checkpoints)
	}
	if got := s.UpdatedAt.UTC().Format("15:04:05"); got != "00:19:28" {
		t.Errorf("updated at %s, want the last record's time 00:19:28", got)
	}
	msgs := viewMessages(t, db, s.ID)
	var failed, calls, think int
	for _, m := range msgs {
		if k, _ := message.MarkerOf(m); k == message.MarkerToolError {
			failed++
			if !strings.Contains(m.Content.PlainText(), "missing.txt") {
				t.Errorf("the failed call's output is lost: %q", m.Content.PlainText())
			}
		}
		calls += len(m.ToolCalls)
		if m.Content.Reasoning() != "" {
			think++
		}
		for _, c := range m.ToolCalls {
			if c.Name != "Shell" {
				t.Errorf("exec_command became %s, want Shell", c.Name)
			}
		}
	}
	if failed != 1 || calls != 4 || think != 6 {
		t.Errorf("%d failed results, %d calls, %d reasoning messages; want 1, 4, 6", failed, calls, think)
	}
	if s.Tokens != 2400 {
		t.Errorf("tokens %d, want the last count 2400", s.Tokens)
	}

	c := byTitle["@big Read everything."]
	gens, err := db.Generations(context.Background(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(gens) != 2 || gens[1].Cause != store.CauseCompact || gens[1].SourceGen == nil || *gens[1].SourceGen != 0 || !gens[0].Archived() {
		t.Fatalf("generations %+v: want the archived import and a compact generation from it", gens)
	}
	first := viewMessages(t, db, c.ID)[0]
	if k, summary := message.MarkerOf(first); k != message.MarkerCompaction || !strings.Contains(summary, "SUMMARY:") {
		t.Errorf("the compact generation opens with %q, want the compaction marker and codex's summary", first.Content.PlainText())
	}
}

// TestImportClaudeHome imports the Claude Code fixtures' home: -p and
// --continue in one session, Write/Read/Edit/Bash translated, the failed
// Bash call, usage counted once per message.id, /compact as a compact
// generation, the sub-agent's file as its own session.
func TestImportClaudeHome(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	res := importPath(t, db, "testdata/claude-home")
	if res.Imported != 5 || res.Unknown != 0 {
		t.Fatalf("result %+v, want 5 imported (4 sessions and a sub-agent)", res)
	}
	byTitle := sessionsByTitle(t, db)
	s := byTitle["Make notes.txt, read it, fix it, and run two commands."]
	if s.Origin != store.OriginClaude || s.WorkDir != "/tmp/peers/fx/cwork" || s.Model != "claude-opus-4-8" || s.Checkpoints != 2 {
		t.Fatalf("session %+v: want origin claude, the work dir, the model and 2 turns (-p, --continue)", s)
	}
	names := map[string]int{}
	failed := 0
	for _, m := range viewMessages(t, db, s.ID) {
		for _, c := range m.ToolCalls {
			names[c.Name]++
		}
		if k, _ := message.MarkerOf(m); k == message.MarkerToolError {
			failed++
		}
	}
	if names["WriteFile"] != 1 || names["ReadFile"] != 1 || names["StrReplaceFile"] != 1 || names["Shell"] != 3 || failed != 1 {
		t.Errorf("calls %v and %d failed: want WriteFile, ReadFile, StrReplaceFile, 3 Shell, 1 failed", names, failed)
	}
	// Every line of an answer repeats its usage: 7 answers, 7 usage records.
	v, err := db.View(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	usage := 0
	for _, r := range v.Records {
		if r.Kind == store.KindUsage {
			usage++
		}
	}
	if usage != 7 {
		t.Errorf("%d usage records, want 7 (one per message.id)", usage)
	}

	c := byTitle["Second session: list the files."]
	gens, err := db.Generations(context.Background(), c.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(gens) != 2 || gens[1].Cause != store.CauseCompact || !gens[0].Archived() {
		t.Fatalf("generations %+v: want the /compact as a compact generation", gens)
	}
	parent := byTitle["Delegate a look around."]
	kids, err := db.SubagentsOf(context.Background(), []string{parent.ID})
	if err != nil {
		t.Fatal(err)
	}
	if len(kids) != 1 || kids[0].Title != "Look around" || kids[0].SubagentType != "general-purpose" || kids[0].SubagentCall != "toolu_13_0" || kids[0].Origin != store.OriginClaude {
		t.Errorf("sub-agents of the Agent call's session: %+v, want the sub-agent's file as one, linked to its call", kids)
	}
}

// TestReimportIsIdempotent imports a home twice: the second run changes
// nothing.
func TestReimportIsIdempotent(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	for _, home := range []string{"testdata/codex-home", "testdata/claude-home"} {
		first := importPath(t, db, home)
		again := importPath(t, db, home)
		if again.Imported != 0 || again.Updated != 0 || again.Unchanged != first.Imported {
			t.Errorf("%s again: %+v, want all %d unchanged", home, again, first.Imported)
		}
	}
	if n := len(sessionsByTitle(t, db)); n != 7 { // 3 codex, 4 Claude Code (and a sub-agent, not listed)
		t.Errorf("%d sessions, want 7", n)
	}
}

// TestGrownFileAddsOnlyNewRecords imports the first part of a rollout,
// then the whole file: the session gains exactly the records of the new
// lines, in its current generation, and a torn last line waits.
func TestGrownFileAddsOnlyNewRecords(t *testing.T) {
	t.Parallel()
	for _, fx := range []struct{ origin, path string }{fixtures[0], fixtures[3], fixtures[4]} {
		whole, err := os.ReadFile(filepath.Join("testdata", fx.path))
		if err != nil {
			t.Fatal(err)
		}
		full := parseFixture(t, fx.origin, fx.path)
		db := openDB(t)
		path := filepath.Join(t.TempDir(), filepath.Base(fx.path))
		cut := len(whole) / 2
		half := whole[:cut] // ends in a torn line
		if err := os.WriteFile(path, half, 0o644); err != nil {
			t.Fatal(err)
		}
		var warnings []string
		d, _, err := Detect(path)
		if err != nil {
			t.Fatal(err)
		}
		res, err := ImportAll(context.Background(), db, d.Sources, Options{Warn: func(w string) { warnings = append(warnings, w) }})
		if err != nil {
			t.Fatal(err)
		}
		if res.Torn != 1 || len(warnings) != 1 || !strings.Contains(warnings[0], "torn last line") {
			t.Errorf("%s: torn %d, warnings %q: want one warning", fx.path, res.Torn, warnings)
		}
		if err := os.WriteFile(path, whole, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err = ImportAll(context.Background(), db, d.Sources, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Updated != 1 {
			t.Fatalf("%s: %+v, want the session updated", fx.path, res)
		}
		s := sessionsByTitle(t, db)[full.Title]
		gens, err := db.Generations(context.Background(), s.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(gens) != len(full.Gens) {
			t.Errorf("%s: %d generations, want %d as a whole import", fx.path, len(gens), len(full.Gens))
		}
		v, err := db.View(context.Background(), s.ID)
		if err != nil {
			t.Fatal(err)
		}
		last := full.Gens[len(full.Gens)-1].Records
		if len(v.Records) != len(last) {
			t.Errorf("%s: the view has %d records, want %d as a whole import", fx.path, len(v.Records), len(last))
		}
		for i := range min(len(v.Records), len(last)) {
			if string(v.Records[i].Body) != string(last[i].Body) || v.Records[i].Kind != last[i].Kind {
				t.Errorf("%s: record %d is %s %s, want %s %s", fx.path, i, v.Records[i].Kind, v.Records[i].Body, last[i].Kind, last[i].Body)
				break
			}
		}
	}
}

// TestImportClaudeBranch imports a session that Claude Code resumed from
// an earlier point (`--resume ID --resume-session-at UUID`): the new
// prompt is a second child of the first turn's last answer. The branch
// is the current generation (the first turn, then the new prompts); the
// abandoned prompt is kept in the archived generation before it.
func TestImportClaudeBranch(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	if res := importPath(t, db, "testdata/claude-branch-home"); res.Imported != 1 {
		t.Fatalf("import %+v, want one session", res)
	}
	s := sessionsByTitle(t, db)["First prompt: list the files."]
	prompts := func(recs []store.Record) string {
		var out []string
		for _, r := range recs {
			if r.Kind == store.KindMessage && r.Role == "user" {
				m, err := r.Message()
				if err != nil {
					t.Fatal(err)
				}
				if p := m.Content.PlainText(); p != "" {
					out = append(out, strings.SplitN(p, "\n", 2)[0])
				}
			}
		}
		return strings.Join(out, " | ")
	}
	v, err := db.View(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := prompts(v.Records), "First prompt: list the files. | Instead: count the files. | After the branch: say bye."; got != want {
		t.Errorf("the current view's prompts: %q, want %q", got, want)
	}
	gens, err := db.Generations(context.Background(), s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(gens) != 2 || !gens[0].Archived() || gens[1].Archived() {
		t.Fatalf("generations %+v: want the abandoned branch archived under the current one", gens)
	}
	old, err := db.GenerationView(context.Background(), s.ID, gens[0].Gen)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := prompts(old.Records), "First prompt: list the files. | Second prompt: say hi."; got != want {
		t.Errorf("the archived generation's prompts: %q, want %q", got, want)
	}
}

// TestImportCodexLocalShell imports a rollout holding a local_shell_call
// item as codex 0.171 writes it: a Shell call whose command is the argv
// joined (bash -lc's script), its source name kept; codex did not run it
// (it offers exec_command, not local_shell), so no result follows.
func TestImportCodexLocalShell(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	if res := importPath(t, db, "testdata/codex-local-shell-home"); res.Imported != 1 || res.Unknown != 0 {
		t.Fatalf("import %+v, want one session, nothing unknown", res)
	}
	s := sessionsByTitle(t, db)["Run a local shell command."]
	var calls []message.ToolCall
	for _, m := range viewMessages(t, db, s.ID) {
		calls = append(calls, m.ToolCalls...)
	}
	if len(calls) != 1 || calls[0].Name != "Shell" || string(calls[0].Extra["source_name"]) != `"local_shell"` || calls[0].Args != `{"command":"echo from-local-shell"}` || calls[0].ID != "call_1_0" {
		t.Errorf("calls %+v, want the local_shell_call as one Shell call", calls)
	}
}

// TestTranslatedCallArgsAreReadable: a translated call's arguments keep
// the command's characters as the source wrote them (`rewind show` prints
// them): "printf hello > hello.txt && cat hello.txt", not the \u003e and
// \u0026 of Go's HTML-safe encoding.
func TestTranslatedCallArgsAreReadable(t *testing.T) {
	t.Parallel()
	db := openDB(t)
	importPath(t, db, "testdata/codex-home")
	s := sessionsByTitle(t, db)["Write a file and list the dir."]
	var args []string
	for _, m := range viewMessages(t, db, s.ID) {
		for _, c := range m.ToolCalls {
			args = append(args, c.Args)
		}
	}
	want := `{"command":"printf hello > hello.txt && cat hello.txt"}`
	if !slices.Contains(args, want) {
		t.Fatalf("the printf call's arguments are not %s among %q", want, args)
	}
}

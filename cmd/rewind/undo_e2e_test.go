package main

// Every rewind can be undone (issue 16, item 4): a forced files-only revert
// overwrites a user's edit, prints its undo command, and that command puts
// the edit back; conversation rewinds undo the same way.

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
)

var undoCmd = regexp.MustCompile("undo with `rewind (undo [0-9a-z]+)`")

// undoArgs is the undo command a rewind printed.
func undoArgs(t *testing.T, out string) []string {
	t.Helper()
	m := undoCmd.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no undo command in:\n%s", out)
	}
	return strings.Fields(m[1])
}

// agentWroteFile is a session whose one run wrote a.txt ("agent\n").
func agentWroteFile(t *testing.T) (*env, string) {
	t.Helper()
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("c1", "WriteFile", map[string]any{"path": "a.txt", "content": "agent\n"})),
		llmtest.Text("written"),
	)
	e := newEnv(t).withServer(srv)
	e.mustOK("-p", "write a.txt", "--yolo")
	return e, e.onlySession()
}

func TestForcedFilesOnlyRevertCanBeUndone(t *testing.T) {
	t.Parallel()
	e, id := agentWroteFile(t)
	path := filepath.Join(e.workDir, "a.txt")
	writeFile(t, path, "the user's own edit\n")

	r := e.mustOK("revert", id, "0", "--files-only", "--force")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("--force did not revert: %v", err)
	}
	r = e.mustOK(undoArgs(t, r.stdout)...)
	if data, err := os.ReadFile(path); err != nil || string(data) != "the user's own edit\n" {
		t.Fatalf("undo did not bring the user's edit back: %q %v\n%s", data, err, r.stdout)
	}
	if g := decode[[]map[string]any](t, e.look("generations", id, "--json").stdout); len(g) != 1 {
		t.Errorf("undoing a files-only revert moved the conversation: %d generations", len(g))
	}
	// Undoing the undo redoes; the edit it overwrites is the user's again,
	// so it asks for --force as the revert did (issue 20, item 5).
	expectError(t, e.run("undo", id), 1, "a.txt (changed since the agent's last change)", "--force")
	e.mustOK("undo", id, "--force")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("undo of the undo did not redo: %v", err)
	}
}

func TestRevertWithFilesUndoneTogether(t *testing.T) {
	t.Parallel()
	e, id := agentWroteFile(t)
	before := e.look("show", id, "--json").stdout

	r := e.mustOK("revert", id, "0", "--files")
	args := undoArgs(t, r.stdout)
	if d := e.mustOK("undo", id, "--dry-run"); !strings.Contains(d.stdout, "would restore generation 0 as generation 2") ||
		!strings.Contains(d.stdout, "create    a.txt") {
		t.Errorf("undo --dry-run said:\n%s", d.stdout)
	}
	r = e.mustOK(args...)
	if data, err := os.ReadFile(filepath.Join(e.workDir, "a.txt")); err != nil || string(data) != "agent\n" {
		t.Errorf("undo did not bring the file back: %q %v\n%s", data, err, r.stdout)
	}
	after := e.look("show", id, "--json").stdout
	if strip := regexp.MustCompile(`"(gen|current_gen|generation)":\s*\d+`); strip.ReplaceAllString(after, "") != strip.ReplaceAllString(before, "") {
		t.Errorf("undo did not bring the conversation back:\nbefore %s\nafter %s", before, after)
	}
}

func TestUndoWithNothingToUndo(t *testing.T) {
	t.Parallel()
	e := newEnv(t).throughBinary()
	s := e.seed("fresh")
	expectError(t, e.run("undo", s.id), 1, "no rewind to undo")
}

func TestRestoreFilesOnlyKeepsTheConversation(t *testing.T) {
	t.Parallel()
	e, id := agentWroteFile(t)
	e.mustOK("revert", id, "0", "--files")
	r := e.mustOK("restore", id, "0", "--files-only")
	if data, err := os.ReadFile(filepath.Join(e.workDir, "a.txt")); err != nil || string(data) != "agent\n" {
		t.Errorf("restore --files-only did not bring the file back: %q %v\n%s", data, err, r.stdout)
	}
	if g := decode[[]map[string]any](t, e.look("generations", id, "--json").stdout); len(g) != 2 {
		t.Errorf("restore --files-only moved the conversation: %d generations", len(g))
	}
}

// TestDryRunOfDuplicatedCheckpointCountsFromTheFirst: the plan reads a
// repeated checkpoint id as the store does (its first occurrence), so the
// dry run's count is what the revert archives.
func TestDryRunOfDuplicatedCheckpointCountsFromTheFirst(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	id := importDuplicatedCheckpoint(t, e)
	expectLines(t, "revert --dry-run", e.mustOK("revert", id, "1", "--dry-run").stdout,
		"would revert to checkpoint 1: generation 1, 2 messages would be archived in generation 0")
	expectLines(t, "revert", e.mustOK("revert", id, "1").stdout,
		"reverted to checkpoint 1: generation 1, 2 messages archived in generation 0")
}

// importDuplicatedCheckpoint imports a kimi-cli context whose checkpoint 1
// appears twice (first before "second", then before "third").
func importDuplicatedCheckpoint(t *testing.T, e *env) string {
	t.Helper()
	ctxFile := filepath.Join(e.workDir, "context.jsonl")
	writeFile(t, ctxFile, `{"role":"_checkpoint","id":0}
{"role":"user","content":"first"}
{"role":"_checkpoint","id":1}
{"role":"user","content":"second"}
{"role":"_checkpoint","id":1}
{"role":"user","content":"third"}
`)
	return strings.TrimSpace(e.mustOK("import", ctxFile).stdout)
}

// TestUndoOfForcedRevertKeepsTheConflictGuard (issue 20, item 5): a forced
// files revert overwrites the user's edit of log.txt and undo puts the edit
// back; the file is then guarded as it was before the forced revert: the
// dry run says "conflict", and a plain revert leaves the edit alone.
func TestUndoOfForcedRevertKeepsTheConflictGuard(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Calls(llmtest.Call("c1", "WriteFile", map[string]any{"path": "log.txt", "content": "edit 1\n"})),
		llmtest.Text("edited once"),
		llmtest.Calls(llmtest.Call("c2", "WriteFile", map[string]any{"path": "log.txt", "content": "edit 1\nedit 2\n"})),
		llmtest.Text("edited twice"),
	)
	e := newEnv(t).withServer(srv)
	e.mustOK("-p", "EDIT 1", "--yolo")
	id := e.onlySession()
	e.mustOK("-c", "-p", "EDIT 2", "--yolo")
	path := filepath.Join(e.workDir, "log.txt")
	mine := "edit 1\nedit 2\nmine\n"
	writeFile(t, path, mine)

	guarded := func(when string) {
		t.Helper()
		expectLines(t, when, e.mustOK("revert", id, "3", "--files", "--dry-run").stdout,
			"  conflict (changed since the agent's last change)  log.txt")
	}
	guarded("before the forced revert")
	e.mustOK("revert", id, "3", "--files", "--force")
	if data, _ := os.ReadFile(path); string(data) != "edit 1\n" {
		t.Fatalf("the forced revert left log.txt %q", data)
	}
	e.mustOK("undo", id)
	if data, _ := os.ReadFile(path); string(data) != mine {
		t.Fatalf("undo left log.txt %q, want the user's edit back", data)
	}
	guarded("after the undo")
	expectError(t, e.run("revert", id, "3", "--files"), 1, "log.txt (changed since the agent's last change)", "--force")
	if data, _ := os.ReadFile(path); string(data) != mine {
		t.Fatalf("a plain revert overwrote the user's edit: log.txt %q", data)
	}
}

// `rewind generations` calls a generation an undo made "undo", as the
// timeline does (it said "restore", the store's cause), and --json marks
// it undo: true beside its cause.
func TestGenerationsNameTheUndo(t *testing.T) {
	t.Parallel()
	e, id := agentWroteFile(t)
	r := e.mustOK("revert", id, "0")
	e.mustOK(undoArgs(t, r.stdout)...)
	gens := decode[[]map[string]any](t, e.mustOK("generations", id, "--json").stdout)
	last := gens[len(gens)-1]
	if last["cause"] != "restore" || last["undo"] != true {
		t.Fatalf("the undo's generation in --json: %v", last)
	}
	text := e.mustOK("generations", id).stdout
	lines := strings.Split(strings.TrimSpace(text), "\n")
	if f := strings.Fields(lines[len(lines)-1]); len(f) < 4 || f[3] != "undo" {
		t.Fatalf("the undo's row: %q\n%s", lines[len(lines)-1], text)
	}
	if !strings.Contains(text, "archived by undo in gen") {
		t.Fatalf("the generation the undo archived does not say so:\n%s", text)
	}
}

package main

// `revert --dry-run` and `restore --dry-run` end to end: they say what the
// real command would do and change nothing, conversation included.

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/soul/llm/llmtest"
	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

// snapshot is everything a dry run must leave alone: the generations, the
// current view and the work dir's files.
type snapshot struct {
	generations, view string
	files             map[string]string
}

func (e *env) snapshot(id string) snapshot {
	e.t.Helper()
	// Read through the store, not two more runs of the binary per look.
	db := storetest.OpenAt(e.t, e.dbPath(), store.Options{})
	defer db.Close() // before the next run of the binary
	ctx := context.Background()
	gens, err := db.Generations(ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	view, err := db.View(ctx, id)
	if err != nil {
		e.t.Fatal(err)
	}
	s := snapshot{generations: string(mustJSON(e.t, gens)), view: string(mustJSON(e.t, view)), files: map[string]string{}}
	err = filepath.WalkDir(e.workDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		s.files[p] = string(data)
		return err
	})
	if err != nil {
		e.t.Fatal(err)
	}
	return s
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (e *env) expectUnchanged(before snapshot, id, what string) {
	e.t.Helper()
	after := e.snapshot(id)
	if after.generations != before.generations {
		e.t.Errorf("%s changed the generations:\nbefore %s\nafter %s", what, before.generations, after.generations)
	}
	if after.view != before.view {
		e.t.Errorf("%s changed the current view", what)
	}
	if !reflect.DeepEqual(after.files, before.files) {
		e.t.Errorf("%s changed the files:\nbefore %q\nafter %q", what, before.files, after.files)
	}
}

// expectLines checks that every want is a line (or, ending in "…", the
// start of a line) of out.
func expectLines(t *testing.T, what, out string, wants ...string) {
	t.Helper()
	lines := strings.Split(out, "\n")
	for _, w := range wants {
		found := false
		for _, l := range lines {
			if prefix, ok := strings.CutSuffix(w, "…"); ok && strings.HasPrefix(l, prefix) || l == w {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("%s: no line %q in:\n%s", what, w, out)
		}
	}
}

var archivedCount = regexp.MustCompile(`(\d+) messages? (?:would be )?archived`)

func TestDryRunRevertAndRestore(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t)
	srv.Enqueue(
		llmtest.Calls(
			llmtest.Call("c1", "WriteFile", map[string]any{"path": "keep.txt", "content": "new\n"}),
			llmtest.Call("c2", "WriteFile", map[string]any{"path": "made.txt", "content": "made by the agent\n"}),
		),
		llmtest.Text("written"),
	)
	e := newEnv(t).withServer(srv)
	keep := filepath.Join(e.workDir, "keep.txt")
	// The user's original content carries an escape sequence: a diff must
	// never print it raw.
	if err := os.WriteFile(keep, []byte("old \x1b[31mred\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.mustOK("-p", "write two files", "--yolo")
	id := e.onlySession()

	// Conversation only.
	before := e.snapshot(id)
	r := e.mustOK("revert", id, "0", "--dry-run")
	expectLines(t, "revert --dry-run", r.stdout,
		"would revert to checkpoint 0: generation 1, …", "dry run: nothing was changed")
	if strings.Contains(r.stdout, "files") {
		t.Errorf("revert --dry-run without a files flag talks about files:\n%s", r.stdout)
	}
	dryArchived := archivedCount.FindStringSubmatch(r.stdout)
	e.expectUnchanged(before, id, "revert --dry-run")

	// Conversation and files, with diffs.
	r = e.mustOK("revert", id, "0", "--files", "--dry-run", "--diff")
	expectLines(t, "revert --files --dry-run --diff", r.stdout,
		"would revert to checkpoint 0: generation 1, …",
		"files to revert to checkpoint 0: 1 to modify, 0 to create, 1 to delete",
		"  modify    keep.txt",
		"  delete    made.txt",
		"--- a/keep.txt", "+++ b/keep.txt", "-new", "+old ^[[31mred",
		"-made by the agent",
		"dry run: nothing was changed")
	if strings.Contains(r.stdout, "\x1b") {
		t.Errorf("a raw escape sequence reached the output:\n%q", r.stdout)
	}
	e.expectUnchanged(before, id, "revert --files --dry-run --diff")

	// Files only, no diffs.
	r = e.mustOK("revert", id, "0", "--files-only", "--dry-run")
	expectLines(t, "revert --files-only --dry-run", r.stdout,
		"files to revert to checkpoint 0: 1 to modify, 0 to create, 1 to delete", "dry run: nothing was changed")
	if strings.Contains(r.stdout, "would revert") || strings.Contains(r.stdout, "+++") {
		t.Errorf("--files-only --dry-run mentions the conversation or prints diffs:\n%s", r.stdout)
	}
	e.expectUnchanged(before, id, "revert --files-only --dry-run")

	// A file changed by the user is reported as a conflict; the dry run
	// says the real command would refuse, and still changes nothing.
	if err := os.WriteFile(filepath.Join(e.workDir, "made.txt"), []byte("the user's edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before = e.snapshot(id)
	r = e.mustOK("revert", id, "0", "--files", "--dry-run")
	expectLines(t, "revert --files --dry-run with a conflict", r.stdout,
		"  conflict (changed since the agent's last change)  made.txt",
		"without --force the command would change nothing: 1 file was changed since the agent last touched it",
		"dry run: nothing was changed")
	e.expectUnchanged(before, id, "revert --files --dry-run with a conflict")
	r = e.mustOK("revert", id, "0", "--files", "--force", "--dry-run")
	expectLines(t, "revert --files --force --dry-run", r.stdout,
		"  overwrite (changed since the agent's last change)  made.txt", "dry run: nothing was changed")
	e.expectUnchanged(before, id, "revert --files --force --dry-run")
	if err := os.WriteFile(filepath.Join(e.workDir, "made.txt"), []byte("made by the agent\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// The real revert does what the dry run said.
	r = e.mustOK("revert", id, "0", "--files")
	if got := archivedCount.FindStringSubmatch(r.stdout); dryArchived == nil || got == nil || got[1] != dryArchived[1] {
		t.Errorf("dry run predicted %q archived, the revert said:\n%s", dryArchived, r.stdout)
	}
	if data, _ := os.ReadFile(keep); string(data) != "old \x1b[31mred\n" {
		t.Errorf("keep.txt after the revert: %q", data)
	}

	// Restore generation 0 with its files, dry first.
	before = e.snapshot(id)
	r = e.mustOK("restore", id, "0", "--files", "--dry-run", "--diff")
	expectLines(t, "restore --files --dry-run --diff", r.stdout,
		"would restore generation 0 as generation 2 (…",
		"files to restore to the end of generation 0: 1 to modify, 1 to create, 0 to delete",
		"  modify    keep.txt",
		"  create    made.txt",
		"-old ^[[31mred", "+new", "+made by the agent",
		"dry run: nothing was changed")
	e.expectUnchanged(before, id, "restore --files --dry-run --diff")
	r = e.mustOK("restore", id, "0", "--dry-run")
	expectLines(t, "restore --dry-run", r.stdout,
		"would restore generation 0 as generation 2 (…", "dry run: nothing was changed")
	e.expectUnchanged(before, id, "restore --dry-run")
	e.mustOK("restore", id, "0", "--files")
	if data, _ := os.ReadFile(keep); string(data) != "new\n" {
		t.Errorf("keep.txt after the restore: %q", data)
	}

	// Errors stay errors in a dry run.
	expectError(t, e.run("revert", id, "9", "--dry-run"), 1, "checkpoint 9")
	expectError(t, e.run("restore", id, "9", "--dry-run"), 1, "generation 9")
	// Flags that do not go together are refused before the database is read.
	expectError(t, runArgs(t, "revert", id, "0", "--files", "--diff"), 2, "--dry-run")
	expectError(t, runArgs(t, "revert", id, "0", "--dry-run", "--diff"), 2, "--files")
	expectError(t, runArgs(t, "restore", id, "0", "--dry-run", "--diff"), 2, "--files")
}

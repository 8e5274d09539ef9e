package filecp

import (
	"os"
	"testing"
)

// TestUndoOfForcedRewindKeepsTheGuard (issue 20, item 5): a file the user
// changed after the agent is a conflict; a forced rewind overwrites it and
// its undo puts the user's content back. That content is still the user's:
// every later rewind treats it as a conflict again, however it got back.
func TestUndoOfForcedRewindKeepsTheGuard(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	writeTree(t, e.root, map[string]string{"log.txt": "v0\n"})
	cp := e.checkpoint()
	e.writeFile("log.txt", "v0\nagent\n")
	e.message("done")
	if err := e.tr.Flush(e.ctx); err != nil {
		t.Fatal(err)
	}
	mine := "v0\nagent\nmine\n"
	if err := os.WriteFile(e.path("log.txt"), []byte(mine), 0o644); err != nil {
		t.Fatal(err)
	}
	guarded := func(when string) {
		t.Helper()
		dry := e.must(e.tr.RevertFiles(e.ctx, cp, RevertOptions{DryRun: true}))
		if len(dry.Conflicts) != 1 || dry.Conflicts[0].Path != "log.txt" || dry.Changed() != 0 {
			t.Fatalf("%s: the dry run %+v, want log.txt as a conflict", when, dry)
		}
	}
	guarded("before the forced rewind")
	forced := e.must(e.tr.RevertFiles(e.ctx, cp, RevertOptions{Force: true}))
	undo := e.must(e.tr.RestoreFilesTo(e.ctx, forced.Undo, RevertOptions{}))
	if b, _ := os.ReadFile(e.path("log.txt")); string(b) != mine || len(undo.Conflicts) != 0 {
		t.Fatalf("undo: log.txt %q, conflicts %+v", b, undo.Conflicts)
	}
	guarded("after the undo")
	plain := e.must(e.tr.RevertFiles(e.ctx, cp, RevertOptions{}))
	if b, _ := os.ReadFile(e.path("log.txt")); string(b) != mine || plain.Changed() != 0 {
		t.Fatalf("a plain rewind overwrote the user's content: log.txt %q, %+v", b, plain)
	}

	// Forced again and undone again: still guarded. Undoing the undo redoes
	// the forced rewind, so it is forced too: without Force it is the same
	// conflict.
	forced = e.must(e.tr.RevertFiles(e.ctx, cp, RevertOptions{Force: true}))
	undo = e.must(e.tr.RestoreFilesTo(e.ctx, forced.Undo, RevertOptions{}))
	guarded("after a second undo")
	if redo := e.must(e.tr.RestoreFilesTo(e.ctx, undo.Undo, RevertOptions{DryRun: true})); len(redo.Conflicts) != 1 {
		t.Fatalf("redo without force: %+v, want the conflict", redo)
	}
	redo := e.must(e.tr.RestoreFilesTo(e.ctx, undo.Undo, RevertOptions{Force: true}))
	if b, _ := os.ReadFile(e.path("log.txt")); string(b) != "v0\n" {
		t.Fatalf("redo: log.txt %q", b)
	}

	// The agent writes over the user's content: a revert to before that
	// write puts the user's content back, and it is the user's again.
	e.must(e.tr.RestoreFilesTo(e.ctx, redo.Undo, RevertOptions{})) // the user's content, guarded
	guarded("after undoing the redo")
	before := e.checkpoint()
	e.writeFile("log.txt", "agent over mine\n")
	e.message("done")
	e.must(e.tr.RevertFiles(e.ctx, before, RevertOptions{}))
	if b, _ := os.ReadFile(e.path("log.txt")); string(b) != mine {
		t.Fatalf("revert over the agent's write: log.txt %q", b)
	}
	guarded("after reverting the agent's write over it")
}

package main

import (
	"context"
	"strings"
	"testing"

	"github.com/rewind-agent/rewind/store"
	"github.com/rewind-agent/rewind/store/storetest"
)

// TestForkCommand: `rewind fork` makes the workspace's fork from the
// command line: the whole current view, the view before a checkpoint, an
// archived generation; it prints the new id (stdout) and the work dir the
// fork belongs to (stderr), leaves the source as it was, works while
// another process holds the source, and says in one line what it did not
// find.
func TestForkCommand(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	s := e.seed("fork me")

	r := e.binaryOK("fork", s.id)
	id := strings.TrimSpace(r.stdout)
	if strings.Contains(id, "\n") || id == s.id || len(id) != len(s.id) {
		t.Fatalf("fork printed %q on stdout, want the new session's id alone", r.stdout)
	}
	if line := strings.TrimSuffix(r.stderr, "\n"); strings.Contains(line, "\n") ||
		!strings.Contains(line, "forked session "+s.id+" into "+id) || !strings.Contains(line, e.workDir) ||
		!strings.Contains(line, "rewind --session "+id) {
		t.Errorf("fork's stderr line: %q", r.stderr)
	}
	whole := decode[map[string]any](t, e.look("show", id, "--json").stdout)
	src := decode[map[string]any](t, e.look("show", s.id, "--json").stdout)
	if len(whole["records"].([]any)) != len(src["records"].([]any)) {
		t.Errorf("the fork of the whole view shows %d records, its source %d", len(whole["records"].([]any)), len(src["records"].([]any)))
	}
	listed := false
	for _, row := range decode[[]map[string]any](t, e.look("sessions", "--json").stdout) {
		if row["id"] == id {
			listed = row["fork_of"] == s.id && row["work_dir"] == e.workDir
		}
	}
	if !listed {
		t.Errorf("sessions --json does not list %s as a fork of %s in %s", id, s.id, e.workDir)
	}

	// --checkpoint: the conversation before it; --json: the new session as
	// sessions --json prints it
	j := decode[map[string]any](t, e.mustOK("fork", s.id, "--checkpoint", "1", "--json").stdout)
	if j["fork_of"] != s.id || j["fork_checkpoint"] != 1.0 || j["work_dir"] != e.workDir || j["messages"] != 2.0 || j["id"] == id {
		t.Errorf("fork --checkpoint 1 --json: %v", j)
	}

	// --generation: an archived generation, whole or cut
	e.mustOK("revert", s.id, "1")
	if j := decode[map[string]any](t, e.mustOK("fork", s.id, "--generation", "0", "--json").stdout); j["messages"] != 6.0 {
		t.Errorf("fork --generation 0 has %v messages, want the 6 of generation 0", j["messages"])
	}
	if j := decode[map[string]any](t, e.mustOK("fork", s.id, "--generation", "0", "--checkpoint", "1", "--json").stdout); j["messages"] != 2.0 || j["fork_checkpoint"] != 1.0 {
		t.Errorf("fork --generation 0 --checkpoint 1: %v", j)
	}
	if g := decode[[]map[string]any](t, e.look("generations", s.id, "--json").stdout); len(g) != 2 {
		t.Errorf("forking wrote generations into the source: %v", g)
	}

	// another process writing the source does not stop a fork
	ctx := context.Background()
	db := storetest.OpenAt(t, e.dbPath(), store.Options{})
	lease, err := db.AcquireLease(ctx, s.id)
	if err != nil {
		t.Fatal(err)
	}
	defer lease.Release(ctx)
	e.mustOK("fork", s.id)

	n := len(decode[[]map[string]any](t, e.look("sessions", "--json").stdout))
	for _, tc := range []struct {
		args  []string
		code  int
		wants []string
	}{
		{[]string{"fork", "zzz"}, 1, []string{`no session matches "zzz"`, "rewind sessions"}},
		{[]string{"fork", s.id, "--checkpoint", "7"}, 1, []string{"has no checkpoint 7", "rewind show " + s.id}},
		{[]string{"fork", s.id, "--generation", "9"}, 1, []string{"has no generation 9", "rewind generations " + s.id}},
		{[]string{"fork", s.id, "--generation", "0", "--checkpoint", "5"}, 1, []string{"has no checkpoint 5 in generation 0"}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			expectError(t, e.run(tc.args...), tc.code, tc.wants...)
		})
	}
	expectError(t, runArgs(t, "fork", s.id, "--checkpoint", "-1"), 2, "--checkpoint must be a non-negative number", "rewind fork --help")
	expectError(t, runArgs(t, "fork"), 2, "`rewind fork` takes 1 argument, got 0")
	if m := len(decode[[]map[string]any](t, e.look("sessions", "--json").stdout)); m != n {
		t.Errorf("failed forks made %d sessions", m-n)
	}
}

package main

import (
	"os"
	"strings"
	"testing"
)

// A database written by an earlier rewind is migrated on open, which takes
// tens of seconds on a big history: rewind says so first on stderr (once),
// instead of leaving a blank terminal, and the command still succeeds.
func TestOldDatabaseUpgradeIsAnnounced(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	data, err := os.ReadFile("../../store/testdata/schema-v2.db")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(e.dbPath(), data, 0o600); err != nil {
		t.Fatal(err)
	}
	r := e.mustOK("sessions")
	if !strings.Contains(r.stderr, "rewind: upgrading "+e.dbPath()+" from schema 2 to ") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("first open of a schema-2 database: stderr %q, want one line announcing the upgrade", r.stderr)
	}
	if r.stdout == "" {
		t.Error("sessions printed nothing after the upgrade")
	}
	if r := e.mustOK("sessions"); r.stderr != "" {
		t.Errorf("second open: stderr %q, want nothing (already upgraded)", r.stderr)
	}
}
